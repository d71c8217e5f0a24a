import { NoAnswer } from './no-answer.js';

/** The run was cancelled (SIGINT, SIGTERM): no further request is sent, the rules left are skipped. */
export class RunCancelled extends NoAnswer {
  override name = 'RunCancelled';
  readonly reason = 'cancelled';
}

/**
 * The run's cancellation: the signal of whoever started the run (the CLI's SIGINT and SIGTERM, a program's
 * AbortSignal), or `cancel()`. Its reason names what cancelled, and every rule the run had not reached says so.
 */
export class CancellationWatch {
  readonly #controller = new AbortController();
  readonly #detach: () => void;

  /** `from`: the caller's signal, followed until `detach()` (at once if it is aborted already). */
  constructor(from?: AbortSignal) {
    const follow = () => this.cancel(String(from?.reason ?? 'cancelled'));
    if (from?.aborted) follow();
    else from?.addEventListener('abort', follow, { once: true });
    this.#detach = () => from?.removeEventListener('abort', follow);
  }

  /** The run has ended: a caller's signal that lives on (a program's, for many runs) no longer reaches it. */
  detach(): void {
    this.#detach();
  }

  /** Aborts in-flight requests and waits when the run is cancelled. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cancelled(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Why the run stopped, for every rule it did not reach. */
  get reason(): string {
    return `the run was cancelled (${String(this.#controller.signal.reason ?? 'signal')}) before this rule was judged`;
  }

  /** The run is cancelled for `reason` (a signal's name): the first cancellation stands. */
  cancel(reason: string): void {
    if (!this.cancelled) this.#controller.abort(reason || 'signal');
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
}
