/**
 * Counts transport failures in a row (no response at all: timed out, refused, reset) and opens at
 * `threshold`, for the rest of the run. Without it a target that stops answering costs --timeout for
 * every request left, hundreds of them; with it, a few timeouts and then errored checks at once.
 * It never closes again: a target that dropped several requests in a row cannot be certified by this
 * run anyway, and a half-open probe would make the run's length depend on the target's whims.
 */
export class CircuitBreaker {
  private failuresInARow = 0;
  private lastFailure = '';

  constructor(readonly threshold: number) {}

  get isOpen(): boolean {
    return this.failuresInARow >= this.threshold;
  }

  /** Counts one finished request: a response of any kind resets the count, a transport failure adds to it. */
  record(failure: string | undefined): void {
    if (this.isOpen) return;
    if (failure === undefined) {
      this.failuresInARow = 0;
      return;
    }
    this.failuresInARow += 1;
    this.lastFailure = failure;
  }

  /** Why no further request is sent: the message of every check that needed one. */
  get reason(): string {
    return `the target stopped answering: ${this.threshold} requests in a row got no response (the last: ${this.lastFailure}); no further request is sent`;
  }
}
