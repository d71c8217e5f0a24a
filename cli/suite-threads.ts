import { Worker } from 'node:worker_threads';
import type { PoolOptions, PoolRunnerInitializer, PoolWorker, WorkerRequest } from 'vitest/node';
import { packagePath } from '../helpers/package-root.js';

/**
 * A thread serves at most this many runs, then ends: what vitest's runtime keeps from run to run (some 4 MB
 * each, measured) stays bounded however long a program certifies in a loop.
 */
const RUNS_PER_THREAD = 25;

/**
 * The suite engine's threads. vitest ends a worker thread once its queue is empty, so every run of an engine
 * would start one and load vitest's runtime into it again; here a thread that stopped cleanly is parked and
 * the engine's next run starts in it (cli/suite-thread.ts drops what the last run evaluated).
 */
export class SuiteThreads {
  readonly #parked: ParkedThread[] = [];
  readonly #all = new Set<Worker>();

  /** `entry`: the thread's script, vitest's runtime kept listening between runs. */
  constructor(private readonly entry: string | URL = packagePath('dist', 'cli', 'suite-thread.js')) {}

  /** vitest's pool option: a thread worker that takes a parked thread when there is one. */
  pool(): PoolRunnerInitializer {
    return { name: POOL_NAME, createPoolWorker: (options) => new ReusedThreadWorker(options, this) };
  }

  /** A parked thread, else a new one. */
  take(options: PoolOptions): ParkedThread {
    const parked = this.#parked.pop();
    if (parked !== undefined) {
      parked.thread.ref();
      return parked;
    }
    // Its stdout and stderr are this process's, as a thread's are by default: vitest's pool pipes them into its
    // logger instead, and a piped stream would keep a parked thread holding the process open.
    const thread = new Worker(this.entry, { env: options.env, execArgv: options.execArgv });
    this.#all.add(thread);
    thread.once('exit', () => {
      this.#all.delete(thread);
      const index = this.#parked.findIndex((parked) => parked.thread === thread);
      if (index !== -1) this.#parked.splice(index, 1);
    });
    return { thread, runs: 0 };
  }

  /** Keeps a thread that stopped cleanly for the next run, unless it has served its share. */
  park(parked: ParkedThread): void {
    if (parked.runs >= RUNS_PER_THREAD) return void this.end(parked.thread);
    // A parked thread, like the idle engine holding it, keeps no process alive.
    parked.thread.unref();
    this.#parked.push(parked);
  }

  async end(thread: Worker): Promise<void> {
    this.#all.delete(thread);
    await thread.terminate();
  }

  /** Ends every thread, parked or not: the engine is closing. */
  async close(): Promise<void> {
    this.#parked.length = 0;
    await Promise.all([...this.#all].map((thread) => this.end(thread)));
  }
}

const POOL_NAME = 'suite-threads';

interface ParkedThread {
  thread: Worker;
  /** Runs it has served. */
  runs: number;
}

type Listener = (arg: any) => void;

/** One run's view of a thread, as vitest's ThreadsPoolWorker is, except that a clean stop parks the thread. */
class ReusedThreadWorker implements PoolWorker {
  readonly name = POOL_NAME;
  #current: ParkedThread | undefined;
  readonly #listeners: [string, Listener][] = [];
  /** The thread answered "stop" without error: its runtime is intact and may serve the next run. */
  #stoppedCleanly = false;

  constructor(private readonly options: PoolOptions, private readonly threads: SuiteThreads) {}

  private get current(): ParkedThread {
    if (this.#current === undefined) throw new Error('the suite thread was used before it started or after it stopped: a bug of the suite engine');
    return this.#current;
  }

  on(event: string, listener: Listener): void {
    this.current.thread.on(event, listener);
    this.#listeners.push([event, listener]);
  }

  off(event: string, listener: Listener): void {
    this.current.thread.off(event, listener);
    const index = this.#listeners.findIndex(([name, known]) => name === event && known === listener);
    if (index !== -1) this.#listeners.splice(index, 1);
  }

  send(message: WorkerRequest): void {
    if (message.type === 'stop') this.listenForStopped();
    this.current.thread.postMessage(message);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  async start(): Promise<void> {
    this.#current ??= this.threads.take(this.options);
    this.#current.runs += 1;
  }

  async stop(): Promise<void> {
    const current = this.#current;
    if (current === undefined) return;
    this.#current = undefined;
    for (const [event, listener] of this.#listeners.splice(0)) current.thread.off(event, listener);
    if (this.#stoppedCleanly) this.threads.park(current);
    else await this.threads.end(current.thread);
  }

  private listenForStopped(): void {
    const { thread } = this.current;
    const onStopped = (message: { type?: string; error?: unknown }) => {
      if (message?.type !== 'stopped') return;
      thread.off('message', onStopped);
      this.#stoppedCleanly = message.error === undefined;
    };
    thread.on('message', onStopped);
  }
}
