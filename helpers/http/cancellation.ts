import { existsSync, readFileSync } from 'node:fs';
import { SkipCheck } from '../judge/outcome.js';

/** The run was cancelled (SIGINT, SIGTERM): no further request is sent, the rules left are skipped. */
export class RunCancelled extends SkipCheck {
  override name = 'RunCancelled';
}

// Often enough that an in-flight request is abandoned within a fraction of a second.
const POLL_MS = 100;

/**
 * The suites run in a worker thread, which no signal reaches; the CLI writes a marker file when it is
 * told to stop (its content names the signal), and this watch turns that file into an AbortSignal.
 */
export class CancellationWatch {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly markerPath: string) {
    this.#timer = setInterval(() => this.#poll(), POLL_MS).unref();
  }

  /** Aborts in-flight requests and waits when the run is cancelled. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cancelled(): boolean {
    this.#poll();
    return this.#controller.signal.aborted;
  }

  /** Why the run stopped, for every rule it did not reach. */
  get reason(): string {
    return `the run was cancelled (${String(this.#controller.signal.reason ?? 'signal')}) before this rule was judged`;
  }

  throwIfCancelled(): void {
    if (this.cancelled) throw new RunCancelled(this.reason);
  }

  /** A wait (for a rate-limit window, say) that ends early, as RunCancelled, when the run is cancelled. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.cancelled) return reject(new RunCancelled(this.reason));
      const onAbort = () => {
        clearTimeout(timer);
        reject(new RunCancelled(this.reason));
      };
      const timer = setTimeout(() => {
        this.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #poll(): void {
    if (this.#controller.signal.aborted || !existsSync(this.markerPath)) return;
    this.#controller.abort(readFileSync(this.markerPath, 'utf8').trim() || 'signal');
    clearInterval(this.#timer);
  }
}
