import { SkipCheck } from '../judge/outcome.js';

/** The run was cancelled (SIGINT, SIGTERM): no further request is sent, the rules left are skipped. */
export class RunCancelled extends SkipCheck {
  override name = 'RunCancelled';
}

/**
 * The suites run in a worker thread, which no signal reaches: the CLI sends the cancellation on the run's
 * channel (its reason names the signal), and this watch turns it into an AbortSignal at once.
 */
export class CancellationWatch {
  readonly #controller = new AbortController();

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
