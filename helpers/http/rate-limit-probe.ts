import type { CheckContext } from '../judge/check.js';
import type { Exchange } from './exchange.js';
import { SkipCheck } from '../judge/outcome.js';
import { readRateLimitHeaders, type RateLimitHeaders } from './pacing.js';

/** What the 429 probe found. */
export interface ProbeOutcome {
  /** The earliest request answered 429. */
  first429?: Exchange;
  /** A request answered although it was sent, alone, after Remaining 0 of the same window. */
  overLimit?: { zero: Exchange; accepted: Exchange };
  /** Why neither came about: the budget ran out first (windows kept resetting, say). */
  inconclusive?: string;
  /** X-RateLimit-Remaining when the probe began. */
  startRemaining: number;
  exchanges: Exchange[];
}

// GET only, so that --read-only runs the probe too; one pet per page keeps the answers small.
const PROBE_REQUEST = { path: '/pets', query: { limit: '1' }, expect429: true } as const;
// The probe's duration is guessed from the run's latencies; twice the guess, so a slow patch still fits.
const DURATION_SAFETY = 2;

/**
 * Exceeds the key's rate-limit window with as few requests as it can, and then stops. It reads Remaining,
 * sends what Remaining allows, concurrently but never more in flight than Remaining still allows and the
 * last few one at a time, then one request alone, which must be the first over the limit. Only a server
 * whose Remaining is wrong (or a key shared with other clients) sees more than that one request over it.
 */
export async function provoke429(ctx: CheckContext): Promise<ProbeOutcome> {
  const budget = ctx.config.rateLimitBudget;
  if (budget === 0) throw new SkipCheck('the 429 probe is off (--rate-limit-budget 0); give it a budget, e.g. --rate-limit-budget 1100, to run it');
  const exchanges: Exchange[] = [];
  const send = async (): Promise<Exchange> => {
    ctx.client.announceProgress('429 probe', 'requests sent', budget);
    const exchange = await ctx.client.send(PROBE_REQUEST);
    exchanges.push(exchange);
    return exchange;
  };

  let first = await send();
  if (first.response!.status === 429) return { first429: first, startRemaining: 0, exchanges };
  // A window that ends mid-probe wastes what was sent in it: start on a fresh one when this one is nearly over.
  if (windowLeftMs(ctx) < probeDurationMs(ctx, allowedBy(first))) {
    await ctx.client.pacing.untilWindowEnds('key', 'the 429 probe waits for a fresh window, this one ends before it could be spent');
    first = await send();
    if (first.response!.status === 429) return { first429: first, startRemaining: 0, exchanges };
  }
  const start = readRateLimitHeaders(first.response!.headers);
  const allowed = allowedBy(first);
  assertAffordable(ctx, allowed + exchanges.length + 1, start);

  let estimate = allowed;
  let windowReset = start.reset;
  let lastZero = start.remaining === 0 ? first : undefined;
  let first429: Exchange | undefined;
  let overLimit: ProbeOutcome['overLimit'];
  let failure: unknown;
  const learn = (exchange: Exchange): void => {
    if (exchange.response!.status === 429) {
      if (!first429 || exchange.seq < first429.seq) first429 = exchange;
      return;
    }
    const seen = readRateLimitHeaders(exchange.response!.headers);
    if (seen.remaining === undefined) return;
    if (seen.reset !== undefined && windowReset !== undefined && seen.reset > windowReset) {
      // The window reset mid-probe anyway: allowed, the count starts again (within the budget).
      windowReset = seen.reset;
      estimate = seen.remaining;
    } else {
      estimate = Math.min(estimate, seen.remaining);
    }
    if (seen.remaining === 0) lastZero = exchange;
    // Room made since Remaining 0, counting this request: the window is no longer spent. A sliding log frees room as
    // its oldest requests age out, and its Reset, in whole seconds, need not move meanwhile.
    else if (seen.remaining > 0 && lastZero && exchange.seq > lastZero.seq) lastZero = undefined;
  };

  const inflight = new Set<Promise<void>>();
  const launch = (): void => {
    const pending: Promise<void> = send().then(learn, (error: unknown) => {
      failure ??= error;
    }).finally(() => inflight.delete(pending));
    inflight.add(pending);
  };
  while (!first429 && !overLimit && failure === undefined && exchanges.length + inflight.size < budget) {
    // On a key another client spends too, one at a time: that client's requests empty the window unseen,
    // and every probe request then in flight would be one more 429 held against the key.
    const concurrency = ctx.client.pacing.snapshot('key').shared ? 1 : ctx.config.concurrency;
    const free = estimate - inflight.size;
    if (free > 0 && inflight.size < concurrency && (inflight.size === 0 || free > concurrency)) {
      launch();
    } else if (inflight.size > 0) {
      await Promise.race(inflight);
    } else {
      // Remaining is spent and nothing is in flight: this lone request is the first over the limit, unless its own
      // answer shows room again (learn then forgets the spent window), and the probe goes on to the next.
      const zero = lastZero;
      const over = await send();
      learn(over);
      const stillSpent = lastZero !== undefined;
      if (over.response!.status !== 429 && zero && stillSpent && sameWindow(zero, over)) overLimit = { zero, accepted: over };
    }
  }
  await Promise.allSettled([...inflight]);
  if (failure !== undefined) throw failure;
  const inconclusive = first429 || overLimit ? undefined
    : `the probe sent ${exchanges.length} requests (--rate-limit-budget ${budget}) without exceeding the window: X-RateLimit-Remaining went from ${start.remaining} to ${estimate}, the window resetting meanwhile; a larger --rate-limit-budget lets it go on`;
  return { first429, overLimit, inconclusive, startRemaining: start.remaining!, exchanges };
}

/**
 * Requests a response's window still allows. A Remaining above the Limit (RATE-03) is not believed:
 * the Limit bounds what one window can hold.
 */
function allowedBy(exchange: Exchange): number {
  const { remaining, limit } = readRateLimitHeaders(exchange.response!.headers);
  if (remaining === undefined) {
    const value = exchange.response!.headers['x-ratelimit-remaining'];
    const why = value === undefined ? 'the response carries no X-RateLimit-Remaining' : `X-RateLimit-Remaining is "${value}", not an integer`;
    throw new SkipCheck(`the 429 probe cannot tell how many requests would exceed the window: ${why} (RATE-01, RATE-02)`);
  }
  return Math.min(remaining, limit ?? Infinity);
}

/** Skips the probe, naming the option to raise, when exceeding the window costs more than the run allows. */
function assertAffordable(ctx: CheckContext, needed: number, start: RateLimitHeaders): void {
  const budget = ctx.config.rateLimitBudget;
  if (needed > budget) {
    throw new SkipCheck(`exceeding the window would take ${needed} requests (X-RateLimit-Remaining ${start.remaining}), more than --rate-limit-budget ${budget} allows; run with --rate-limit-budget ${needed} or more to check it`);
  }
  const maxRequests = ctx.config.maxRequests;
  const left = maxRequests === null ? Infinity : maxRequests - ctx.client.requestCount;
  if (needed - 1 > left) {
    throw new SkipCheck(`exceeding the window would take ${needed} requests, and --max-requests ${maxRequests} leaves ${left}; raise --max-requests to check it`);
  }
}

/** How long the key's window still runs, by the pacer's reckoning (our clock, server skew corrected). */
function windowLeftMs(ctx: CheckContext): number {
  const resetAtMs = ctx.client.pacing.snapshot('key').resetAtMs;
  return resetAtMs === undefined ? Infinity : resetAtMs - ctx.client.now();
}

/** A generous guess of how long sending `requests` takes, from the median latency of the run so far. */
function probeDurationMs(ctx: CheckContext, requests: number): number {
  const latencies = ctx.client.exchanges.slice(-50).map((exchange) => exchange.durationMs).sort((a, b) => a - b);
  const median = latencies[Math.floor(latencies.length / 2)] ?? 100;
  return DURATION_SAFETY * Math.ceil((requests + 1) / ctx.config.concurrency) * median + 500;
}

/** Two responses of one window: the same X-RateLimit-Reset (a conforming server always sends one). */
function sameWindow(a: Exchange, b: Exchange): boolean {
  return readRateLimitHeaders(a.response!.headers).reset === readRateLimitHeaders(b.response!.headers).reset;
}
