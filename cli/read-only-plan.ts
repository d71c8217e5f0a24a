import type { Exchange } from '../helpers/http/exchange.js';
import { readRateLimitHeaders, UNIX_TIME_FLOOR } from '../helpers/http/pacing.js';
import { serverNow } from '../helpers/judge/invariants.js';
import type { Area } from '../helpers/spec/catalog.js';
import { SHRINK_BUDGET_PER_RULE } from '../helpers/explore/explore.js';

/**
 * The most requests each area's checks send with --read-only, whatever the target answers: what the suites send
 * when nothing is created (measured at 83 to 97 in all over the gallery and stores of 0 to 5,000 pets), with room
 * for a full first page read again by status, the samples the errors and rate-limit areas add when run alone, and
 * a request sent again after a connection the server closed. The fuzzing area's is its exploration's reads, below.
 */
const READS_PER_AREA: Readonly<Record<Area, number>> = {
  listing: 40,
  creating: 10,
  fetching: 15,
  auth: 40,
  store: 2,
  versioning: 2,
  fuzzing: 0,
  requests: 20,
  consistency: 4,
  errors: 4,
  ratelimit: 8,
};

/** The reads of the exploration's three fixed sequences (its creates are left out with --read-only). */
const FIXED_SEQUENCE_READS = 17;
/** Most requests of one generated sequence. */
const GENERATED_SEQUENCE_REQUESTS = 8;

/** What a --read-only run promises before it sends: at most `requests`, the 429 probe's budget among them. */
export interface ReadOnlyPlan {
  requests: number;
  /** The probe's share: 0 when --rate-limit-budget was not given. */
  probe: number;
  /** What caps the run: the plan itself, or a smaller --max-requests. */
  cappedBy: 'plan' | '--max-requests';
}

/**
 * The plan of a --read-only run of these areas: the sum of their reads, the exploration's (its fixed sequences, its
 * generated ones and the shrinking of a failure), and the probe's budget. The run is held to it: no request is sent
 * past it, so what the plan line says is true of any target.
 */
export function readOnlyPlan(areas: ReadonlySet<Area>, options: { exploreRuns: number; rateLimitBudget: number; maxRequests: number | null }): ReadOnlyPlan {
  let requests = [...areas].reduce((sum, area) => sum + READS_PER_AREA[area], 0);
  if (areas.has('fuzzing')) requests += FIXED_SEQUENCE_READS + GENERATED_SEQUENCE_REQUESTS * options.exploreRuns + SHRINK_BUDGET_PER_RULE.requests;
  const probe = areas.has('ratelimit') ? options.rateLimitBudget : 0;
  requests += probe;
  if (options.maxRequests !== null && options.maxRequests < requests) return { requests: options.maxRequests, probe: Math.min(probe, options.maxRequests), cappedBy: '--max-requests' };
  return { requests, probe, cappedBy: 'plan' };
}

/** The line a --read-only run prints before it sends anything. */
export function planLine(plan: ReadOnlyPlan): string {
  const probe = plan.probe > 0 ? `, the 429 probe's ${plan.probe} among them (--rate-limit-budget)` : ', and no 429 probe (give --rate-limit-budget to run it)';
  const cap = plan.cappedBy === '--max-requests' ? ' (--max-requests)' : '';
  return `Read-only: only GET, HEAD and OPTIONS are sent, at most ${plan.requests.toLocaleString('en-US')} requests${cap}${probe}`;
}

/** Windows longer than this are not per minute: a key whose window runs for hours shows a daily quota. */
const QUOTA_WINDOW_SECONDS = 3600;

/**
 * The line that says what share of a daily quota the run spends, from the first answer to the key that shows one: a
 * window that ends more than an hour later. Undefined for any other answer (a minute's window, no headers).
 */
export function quotaLine(exchange: Exchange, plan: ReadOnlyPlan): string | undefined {
  if (exchange.request.auth !== 'key' || !exchange.response) return undefined;
  const { limit, remaining, reset } = readRateLimitHeaders(exchange.response.headers);
  if (limit === undefined || reset === undefined || reset < UNIX_TIME_FLOOR) return undefined;
  const ahead = reset - serverNow(exchange).seconds;
  if (ahead <= QUOTA_WINDOW_SECONDS) return undefined;
  const share = Math.ceil((plan.requests / limit) * 100);
  const left = remaining === undefined ? '' : remaining < plan.requests
    ? `; it has ${remaining.toLocaleString('en-US')} left, so the run waits for the next window once those are spent`
    : `; it has ${remaining.toLocaleString('en-US')} left`;
  return `the key's rate-limit window runs ${(ahead / 3600).toFixed(1)} h more (X-RateLimit-Limit ${limit.toLocaleString('en-US')}: a daily quota): this run spends at most ${plan.requests.toLocaleString('en-US')} of it, ${share}%${left}`;
}
