// The CLI and a run's suite worker talk on one channel (helpers/run-channel.ts, cli/run-channel.ts): what the
// worker records comes to the CLI in order, the cancellation goes to the worker whenever it comes, before the
// worker listens too, and the CLI knows when it holds every message. Both ends in one thread here: a
// BroadcastChannel delivers to every other instance of its name, in this thread as in another.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RunChannel } from '../../cli/run-channel.js';
import { stringifyJson } from '../../helpers/json.js';
import { WorkerChannel } from '../../helpers/run-channel.js';

function workerOf(channel: RunChannel): { worker: WorkerChannel; cancelled: string[] } {
  const cancelled: string[] = [];
  return { worker: new WorkerChannel(channel.name, (reason) => cancelled.push(reason)), cancelled };
}

/** Lets the messages already posted arrive. */
function delivered(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 20));
}

function runId(): string {
  return `unit-${randomBytes(3).toString('hex')}`;
}

describe('a run\'s channel', () => {
  it('brings the CLI every exchange in the order recorded, bigints intact, and the diagnosis, waits and replay misses', async () => {
    const channel = new RunChannel(runId());
    const { worker } = workerOf(channel);
    try {
      await worker.ready;
      for (const seq of [1, 2, 3]) worker.post({ kind: 'exchange', json: stringifyJson({ seq, response: { json: { id: 2n ** 63n - 1n } } }) });
      worker.post({ kind: 'diagnosis', json: stringifyJson({ problem: 'GET /pets answered 404', hint: 'check --base-url', seq: 1, cause: 'address' }) });
      worker.post({ kind: 'waits', tally: { count: 1, totalMs: 1200, reasons: [] } });
      worker.post({ kind: 'unmatched', request: 'GET http://127.0.0.1:1/v1/pets?limit=1' });
      expect(await channel.received(worker.posted, 2_000)).toBe(true);
      expect(channel.exchanges.map((exchange) => exchange.seq)).toEqual([1, 2, 3]);
      expect((channel.exchanges[0]!.response!.json as { id: bigint }).id).toBe(2n ** 63n - 1n);
      expect(channel.diagnosis?.problem).toBe('GET /pets answered 404');
      expect(channel.waits).toEqual({ count: 1, totalMs: 1200, reasons: [] });
      expect(channel.unmatched).toEqual(['GET http://127.0.0.1:1/v1/pets?limit=1']);
    } finally {
      worker.close();
      channel.close();
    }
  });

  it('tells the worker of a cancellation that came before it listened, as soon as it does', async () => {
    const channel = new RunChannel(runId());
    channel.cancel('SIGTERM');
    const { worker, cancelled } = workerOf(channel);
    try {
      await worker.ready;
      expect(cancelled).toEqual(['SIGTERM']);
    } finally {
      worker.close();
      channel.close();
    }
  });

  it('tells the worker of a cancellation once, when it comes mid-run', async () => {
    const channel = new RunChannel(runId());
    const { worker, cancelled } = workerOf(channel);
    try {
      await worker.ready;
      expect(cancelled).toEqual([]);
      channel.cancel('SIGINT');
      channel.cancel('SIGTERM');
      await delivered();
      expect(cancelled).toEqual(['SIGINT']);
    } finally {
      worker.close();
      channel.close();
    }
  });

  it('hears nothing of another run\'s channel', async () => {
    const [mine, other] = [new RunChannel(runId()), new RunChannel(runId())];
    const { worker: otherWorker } = workerOf(other);
    try {
      await otherWorker.ready;
      otherWorker.post({ kind: 'exchange', json: stringifyJson({ seq: 1 }) });
      other.cancel('SIGTERM');
      await delivered();
      expect(mine.count).toBe(0);
      expect(other.count).toBe(2);
    } finally {
      otherWorker.close();
      mine.close();
      other.close();
    }
  });

  it('says, in bounded time, when fewer messages came than the worker counted', async () => {
    const channel = new RunChannel(runId());
    const { worker } = workerOf(channel);
    try {
      await worker.ready;
      const started = performance.now();
      expect(await channel.received(worker.posted + 1, 100)).toBe(false);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      worker.close();
      channel.close();
    }
  });
});
