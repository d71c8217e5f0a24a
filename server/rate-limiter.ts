import type { RateLimitSettings } from './settings.js';

export type Verdict = 'ok' | 'limited' | 'banned';

/** What the limiter decided for one request, and the numbers its headers report. */
export interface Admission {
  verdict: Verdict;
  limit: number;
  remaining: number;
  /** Epoch milliseconds at which the bucket's current window ends (for a token bucket: when it is full again). */
  resetAtMs: number;
  /** Epoch milliseconds at which a request would next be admitted, when that is before the reset (a token bucket). */
  freeAtMs?: number;
  nowMs: number;
  /**
   * With countOnlySuccess, for an admitted request: counts it (or not, when it failed) once its status is
   * known, and returns what then remains.
   */
  settle?: (counted: boolean) => number;
}

export interface LimiterStats {
  requests: number;
  byKey: Record<string, number>;
  bannedKeys: string[];
  /** 429s beyond the first of a window: requests sent although the client had already been told to wait. */
  unplanned429: number;
}

/**
 * How windows are kept, as plain flags: the `limiterPolicy` seam. The reference enforces fixed windows that
 * start afresh; the other flags are the ways real limiters differ.
 */
export interface LimiterBehaviour {
  /** False: the count runs out but nothing is refused. */
  enforce: boolean;
  /** True: a bucket once refused starts every new window exhausted. */
  carryExhaustion: boolean;
  /** How many 429s of a window a key may receive before the next request bans it (no ban when unset). */
  banAfter429s?: number;
  /** An admitted request counts only once it has succeeded. */
  countOnlySuccess?: boolean;
  /** A request counts for windowMs from when it was admitted (a sliding log) instead of fixed windows. */
  slidingLog?: boolean;
  /**
   * A token bucket instead of windows (GCRA, Cloudflare's and Stripe's limiters): it holds `limit` requests and refills
   * continuously, `limit` per windowMs; Remaining is what it holds, rounded down, and the reset is when it is full again.
   */
  tokenBucket?: boolean;
  /** Requests of a window are refused this far below the limit the headers count to. */
  refuseBelowLimitBy?: number;
  /** Buckets whose name ends so get a limit of their own (one limit for writes, another for reads): the first that matches. */
  bucketLimits?: ReadonlyArray<{ endsWith: string; limit: number }>;
  /** Windows start at whole multiples of windowMs since the epoch (every bucket's minute ends together), not at a bucket's first request. */
  alignedWindows?: boolean;
}

interface Window {
  endMs: number;
  count: number;
  refusals: number;
  /** Under a sliding log: when each request still counted was admitted, oldest first. */
  log?: number[];
}

/** A token bucket's state: what it holds (fractions included) as of when it was last filled. */
interface Bucket {
  tokens: number;
  atMs: number;
  refusals: number;
}

/**
 * Fixed windows per bucket; a window starts at the bucket's first request after the last one ended. As a
 * sliding log, each request counts for one window's length, and the window ends when the
 * oldest request still counted drops out: that end moves forward as requests age.
 */
export class FixedWindowLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #buckets = new Map<string, Bucket>();
  readonly #banned = new Set<string>();
  readonly #byKey: Record<string, number> = Object.create(null) as Record<string, number>;
  #requests = 0;
  #unplanned429 = 0;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly behaviour: LimiterBehaviour,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Counts the request against `bucket`; `bannable` is true for API keys (anonymous buckets are never banned). */
  admit(bucket: string, bannable: boolean): Admission {
    const nowMs = this.clock();
    this.#requests += 1;
    this.#byKey[bucket] = (this.#byKey[bucket] ?? 0) + 1;
    if (this.behaviour.tokenBucket) return this.#admitFromBucket(bucket, nowMs);
    const window = this.#currentWindow(bucket, nowMs);
    const verdict = this.#judge(bucket, window, bannable);
    if (verdict === 'ok' && window.log) window.log.push(nowMs);
    const limit = this.#limitOf(bucket);
    const admission: Admission = { verdict, limit, remaining: Math.max(0, limit - window.count), resetAtMs: window.endMs, nowMs };
    if (verdict === 'ok' && this.behaviour.countOnlySuccess) {
      admission.settle = (counted) => {
        if (counted) window.count = Math.min(window.count + 1, limit);
        return Math.max(0, limit - window.count);
      };
    }
    return admission;
  }

  /** Every bucket starts a fresh window, and no key stays banned: as if every window had passed. Stats are kept. */
  reset(): void {
    this.#windows.clear();
    this.#banned.clear();
  }

  stats(): LimiterStats {
    return {
      requests: this.#requests,
      byKey: { ...this.#byKey },
      bannedKeys: [...this.#banned],
      unplanned429: this.#unplanned429,
    };
  }

  #admitFromBucket(key: string, nowMs: number): Admission {
    const { limit, windowMs } = this.settings;
    const perMs = limit / windowMs;
    const bucket = this.#buckets.get(key) ?? { tokens: limit, atMs: nowMs, refusals: 0 };
    bucket.tokens = Math.min(limit, bucket.tokens + (nowMs - bucket.atMs) * perMs);
    bucket.atMs = nowMs;
    this.#buckets.set(key, bucket);
    let verdict: Verdict = 'ok';
    if (bucket.tokens >= 1) bucket.tokens -= 1;
    else {
      bucket.refusals += 1;
      if (bucket.refusals > 1) this.#unplanned429 += 1;
      verdict = 'limited';
    }
    if (verdict === 'ok') bucket.refusals = 0;
    const freeAtMs = bucket.tokens >= 1 ? nowMs : nowMs + (1 - bucket.tokens) / perMs;
    return { verdict, limit, remaining: Math.floor(bucket.tokens), resetAtMs: nowMs + (limit - bucket.tokens) / perMs, freeAtMs, nowMs };
  }

  #currentWindow(bucket: string, nowMs: number): Window {
    if (this.behaviour.slidingLog) return this.#slidingWindow(bucket, nowMs);
    const previous = this.#windows.get(bucket);
    if (previous && nowMs < previous.endMs) return previous;
    const exhausted = previous !== undefined && previous.refusals > 0 && this.behaviour.carryExhaustion;
    const { windowMs } = this.settings;
    const endMs = this.behaviour.alignedWindows ? (Math.floor(nowMs / windowMs) + 1) * windowMs : nowMs + windowMs;
    const fresh: Window = { endMs, count: exhausted ? this.#limitOf(bucket) : 0, refusals: 0 };
    this.#windows.set(bucket, fresh);
    return fresh;
  }

  #slidingWindow(bucket: string, nowMs: number): Window {
    const { windowMs } = this.settings;
    const window = this.#windows.get(bucket) ?? { endMs: nowMs + windowMs, count: 0, refusals: 0, log: [] };
    if (nowMs >= window.endMs) window.refusals = 0;
    window.log = window.log!.filter((at) => at > nowMs - windowMs);
    window.count = window.log.length;
    window.endMs = (window.log[0] ?? nowMs) + windowMs;
    this.#windows.set(bucket, window);
    return window;
  }

  #limitOf(bucket: string): number {
    return this.behaviour.bucketLimits?.find((each) => bucket.endsWith(each.endsWith))?.limit ?? this.settings.limit;
  }

  #judge(bucket: string, window: Window, bannable: boolean): Verdict {
    if (this.#banned.has(bucket)) return 'banned';
    // A refused request does not count: the window never holds more than the limit.
    const limit = this.#limitOf(bucket);
    if (window.count < limit - (this.behaviour.refuseBelowLimitBy ?? 0) || !this.behaviour.enforce) {
      if (!this.behaviour.countOnlySuccess) window.count = Math.min(window.count + 1, limit);
      return 'ok';
    }
    window.refusals += 1;
    const banAfter = this.behaviour.banAfter429s;
    if (bannable && banAfter !== undefined && window.refusals > banAfter) {
      this.#banned.add(bucket);
      return 'banned';
    }
    if (window.refusals > 1) this.#unplanned429 += 1;
    return 'limited';
  }
}
