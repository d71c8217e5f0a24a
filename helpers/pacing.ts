import { parseRetryAfter } from './retry-after.js';

/** What the pacer knows of one credential's window, from the last X-RateLimit-* headers it saw. */
interface Window {
  limit?: number;
  remaining?: number;
  resetAtMs?: number;
  /** Requests sent whose response has not come back: they count against Remaining already. */
  inflight: number;
  /** No request on this credential before this time (a 429's Retry-After or a backoff). */
  blockedUntilMs: number;
}

export interface PacerOptions {
  /** Requests kept in hand in every window. */
  reserve: number;
  /** Longest single wait the run accepts; a longer one ends the run's use of that credential. */
  maxWaitMs: number;
  maxRetries: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Tells the person at the terminal why nothing is happening. */
  onWait: (message: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

export class RateLimitWaitTooLong extends Error {
  override name = 'RateLimitWaitTooLong';
}

/** Paces requests by the rate-limit headers so that a run never trips the limit it is measuring. */
export class Pacer {
  private readonly windows = new Map<string, Window>();
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly options: PacerOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** Waits until a request on this credential may be sent, then counts it as in flight. */
  async acquire(credential: string): Promise<void> {
    const window = this.window(credential);
    for (;;) {
      const waitMs = this.waitNeeded(window);
      if (waitMs <= 0) break;
      if (waitMs > this.options.maxWaitMs) {
        throw new RateLimitWaitTooLong(`the rate-limit window of this credential frees up in ${Math.ceil(waitMs / 1000)} s, longer than the ${Math.ceil(this.options.maxWaitMs / 1000)} s a run waits`);
      }
      this.options.onWait(`rate limit: waiting ${(waitMs / 1000).toFixed(1)} s before the next request (${this.reasonFor(window)})`);
      await this.sleep(waitMs);
      // The window has reset: forget the old count until the next response tells us the new one.
      if (window.resetAtMs !== undefined && this.now() >= window.resetAtMs) window.remaining = undefined;
    }
    window.inflight += 1;
  }

  /** Records a response's headers and releases its in-flight slot. */
  release(credential: string, status: number | undefined, headers: Record<string, string> | undefined): void {
    const window = this.window(credential);
    window.inflight = Math.max(0, window.inflight - 1);
    if (!headers) return;
    const limit = integerHeader(headers['x-ratelimit-limit']);
    const remaining = integerHeader(headers['x-ratelimit-remaining']);
    const reset = integerHeader(headers['x-ratelimit-reset']);
    if (limit !== undefined) window.limit = limit;
    if (remaining !== undefined) window.remaining = window.remaining === undefined ? remaining : Math.min(window.remaining, remaining);
    if (reset !== undefined) {
      const resetAtMs = reset > 1e9 ? reset * 1000 : this.now() + reset * 1000;
      if (window.resetAtMs === undefined || resetAtMs > window.resetAtMs) {
        window.resetAtMs = resetAtMs;
        if (remaining !== undefined) window.remaining = remaining;
      }
    }
    if (status === 429) window.remaining = 0;
  }

  /**
   * After an unplanned 429: how long to wait before retry `attempt` (1-based), or undefined when retries are spent.
   * Blocks the credential for that long, so no request on it goes out while it waits.
   */
  backoffAfter429(credential: string, attempt: number, retryAfter: string | undefined): number | undefined {
    if (attempt > this.options.maxRetries) return undefined;
    const told = parseRetryAfter(retryAfter, this.now()) ?? 0;
    const exponential = Math.min(this.options.backoffCapMs, this.options.backoffBaseMs * 2 ** (attempt - 1));
    const jitter = exponential * 0.25 * this.random();
    const waitMs = Math.max(told, exponential + jitter);
    const window = this.window(credential);
    window.blockedUntilMs = Math.max(window.blockedUntilMs, this.now() + waitMs);
    return waitMs;
  }

  /** The window as last seen, for the checks that report on it. */
  snapshot(credential: string): Readonly<Window> {
    return { ...this.window(credential) };
  }

  private waitNeeded(window: Window): number {
    const now = this.now();
    if (window.blockedUntilMs > now) return window.blockedUntilMs - now;
    if (window.remaining === undefined || window.resetAtMs === undefined) return 0;
    if (window.remaining - window.inflight > this.options.reserve) return 0;
    if (now >= window.resetAtMs) return window.inflight > 0 ? 20 : 0;
    // A small margin: clocks differ, and Reset is rounded to whole seconds.
    return window.resetAtMs - now + 250;
  }

  private reasonFor(window: Window): string {
    if (window.blockedUntilMs > this.now()) return 'honouring Retry-After after a 429';
    return `X-RateLimit-Remaining ${window.remaining ?? '?'} of ${window.limit ?? '?'}, window resets at ${new Date(window.resetAtMs ?? 0).toISOString()}`;
  }

  private window(credential: string): Window {
    let window = this.windows.get(credential);
    if (!window) {
      window = { inflight: 0, blockedUntilMs: 0 };
      this.windows.set(credential, window);
    }
    return window;
  }
}

function integerHeader(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
