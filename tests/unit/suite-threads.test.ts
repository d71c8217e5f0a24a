// The suite engine's threads (cli/suite-threads.ts): a run that stopped cleanly leaves its thread to the next
// run, any other ends it, and no thread serves more than its share of runs. The thread here answers the pool's
// protocol as vitest's runtime does (a "stop" answered "stopped"), and tells which thread it is.
import { afterEach, describe, expect, it } from 'vitest';
import type { PoolOptions, PoolWorker, WorkerRequest } from 'vitest/node';
import { SuiteThreads } from '../../cli/suite-threads.js';

const ENTRY = new URL(`data:text/javascript,${encodeURIComponent(`
  import { parentPort, threadId } from 'node:worker_threads';
  parentPort.on('message', (message) => {
    if (message.type === 'stop') parentPort.postMessage({ __vitest_worker_response__: true, type: 'stopped', ...(message.fail ? { error: { message: 'teardown failed' } } : {}) });
    if (message.type === 'who') parentPort.postMessage({ type: 'me', threadId });
  });
`)}`);

const OPTIONS = { env: {}, execArgv: [] } as unknown as PoolOptions;

let threads: SuiteThreads | undefined;
afterEach(async () => {
  await threads?.close();
  threads = undefined;
});

/** One run's worker: started, asked which thread it is, then stopped as the pool stops it (cleanly unless told). */
async function oneRun(pool: SuiteThreads, stop: 'clean' | 'failed' | 'forced' = 'clean'): Promise<number> {
  const worker = pool.pool().createPoolWorker(OPTIONS);
  await worker.start();
  const threadId = await answer(worker, { type: 'who' }, 'me');
  if (stop !== 'forced') await answer(worker, { type: 'stop', fail: stop === 'failed' }, 'stopped');
  await worker.stop();
  return (threadId as { threadId: number }).threadId;
}

function answer(worker: PoolWorker, request: object, type: string): Promise<unknown> {
  return new Promise((resolve) => {
    const listener = (message: { type?: string }) => {
      if (message.type !== type) return;
      worker.off('message', listener);
      resolve(message);
    };
    worker.on('message', listener);
    worker.send(request as WorkerRequest);
  });
}

describe('the suite engine\'s threads', () => {
  it('give a run the thread of the run before it, when that one stopped cleanly', async () => {
    threads = new SuiteThreads(ENTRY);
    const first = await oneRun(threads);
    expect(await oneRun(threads)).toBe(first);
  });

  it('end a thread whose stop failed or was forced, and start the next run in a new one', async () => {
    threads = new SuiteThreads(ENTRY);
    const failed = await oneRun(threads, 'failed');
    const forced = await oneRun(threads, 'forced');
    const next = await oneRun(threads);
    expect(new Set([failed, forced, next]).size).toBe(3);
  });

  it('end a thread once it has served 25 runs', async () => {
    threads = new SuiteThreads(ENTRY);
    const ids = [];
    for (let run = 0; run < 26; run += 1) ids.push(await oneRun(threads));
    expect(new Set(ids.slice(0, 25)).size).toBe(1);
    expect(ids[25]).not.toBe(ids[0]);
  });
});
