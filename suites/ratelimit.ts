// Rate limits. RATE-01..06 judge the X-RateLimit-* headers of every response the run has received (this
// suite runs last, so that is every other suite's traffic); RATE-07..12 judge the 429 probe, which sends
// the run's last requests so that no other check ever sees a 429 it did not cause. RATE-13 only reads.
// RATE-14 sets every 429 of the run, the probe's included, beside the Remaining promised before it was sent.
import { check, suite, type CheckContext } from '../helpers/judge/check.js';
import { credentialOf } from '../helpers/http/client.js';
import { describeExchange, type Exchange } from '../helpers/http/exchange.js';
import { expectSchema, expectStatus, expectThat, responseOf } from '../helpers/judge/expect.js';
import { groupExchanges, operationOf } from '../helpers/judge/operations.js';
import { outcomeOfThrown, SkipCheck } from '../helpers/judge/outcome.js';
import { readRateLimitHeaders, UNIX_TIME_FLOOR } from '../helpers/http/pacing.js';
import {
  carriesIntegers, RATE_01, RATE_02, RATE_03, RATE_05, RATE_18, serverNow, SHOWN_HEADER, type Invariant, type RateLimitHeader,
} from '../helpers/judge/invariants.js';
import { unknownPetId } from '../helpers/fixtures/pets.js';
import { asBigInt, isJsonObject } from '../helpers/json.js';
import { provoke429, type ProbeOutcome } from '../helpers/fixtures/rate-limit-probe.js';
import { parseHttpDate, retryAfterForm } from '../helpers/http/retry-after.js';
import { runKey } from '../helpers/run-context.js';
import { answeredAt } from '../helpers/fixtures/read-after-write.js';
import { RATE_PLANS } from '../helpers/spec/facts.js';

const PROBE_RULES: ReadonlySet<string> = new Set(['RATE-07', 'RATE-08', 'RATE-09', 'RATE-10', 'RATE-11', 'RATE-12']);

/** Every response of the run before the probe. */
function responses(ctx: CheckContext): Exchange[] {
  return ctx.client.exchanges.filter((exchange) => exchange.response && !PROBE_RULES.has(exchange.rule ?? ''));
}

const SAMPLES = runKey<Promise<void>>('ratelimit: samples');

/**
 * Makes sure there is something to judge, once per run: a count to follow exactly (below), an error answered
 * to the key, one request without a key. A full run has the last two, and sends only the five requests of the count.
 */
function ensureSamples(ctx: CheckContext): Promise<void> {
  return ctx.run.shared(SAMPLES, async () => {
    const withKey = (exchange: Exchange) => credentialOf(exchange.request.auth) === 'key';
    const seen = responses(ctx);
    await followTheCount(ctx);
    if (!responses(ctx).some((exchange) => withKey(exchange) && exchange.response!.status >= 400)) {
      await ctx.client.send({ path: `/pets/${unknownPetId(ctx.client.exchanges)}` });
    }
    if (!seen.some((exchange) => !withKey(exchange))) await ctx.client.send({ path: '/pets', query: { limit: '1' }, auth: 'none' });
  });
}

/**
 * Each reading operation with the key, one request at a time with nothing else in flight, each followed by a
 * listing (surely counted): RATE-04 and RATE-15 can then follow the count from answer to answer exactly,
 * however many requests the run before sent together (those are counted in any order, and say less).
 */
async function followTheCount(ctx: CheckContext): Promise<void> {
  const list = () => ctx.client.send({ path: '/pets', query: { limit: '1' } });
  const first = await list();
  const page = first.response?.json;
  const pet = Array.isArray(page) ? page[0] : undefined;
  // A pet the target listed, else one it cannot hold: either answer is counted, or not, the same way.
  const id = (isJsonObject(pet) ? asBigInt(pet.id) : undefined) ?? unknownPetId(ctx.client.exchanges);
  await ctx.client.send({ path: `/pets/${id}` });
  await list();
  await ctx.client.send({ path: '/store/orders' });
  await list();
}

/**
 * Reports, per operation and status, the responses of the run that break the invariant: one violation per
 * group ("getPet 404: 3 of 3 …"), with the first offender as evidence. The invariant is the one definition
 * the stateful exploration judges each answer by too. A rule never passes on nothing: when no response of the
 * run carries what it judges, the check is skipped, saying what was missing (`nothing`).
 */
async function judgeEach(ctx: CheckContext, rule: Invariant, nothing: string): Promise<void> {
  await ensureSamples(ctx);
  const relevant = responses(ctx).filter((exchange) => rule.appliesTo(exchange));
  if (relevant.length === 0) ctx.skip(nothing);
  for (const [group, members] of groupExchanges(relevant, ctx.config.baseUrl, true)) {
    const broken = members.filter((exchange) => rule.problem(exchange) !== undefined);
    const first = broken[0];
    if (!first) continue;
    ctx.violation({ what: `${group}: ${broken.length} of ${members.length} response(s) break the rule`, expected: rule.expected, seen: rule.problem(first)!, exchanges: [first] });
  }
  ctx.observe(`judged ${relevant.length} response(s) of this run`);
}

/** Why no response carries every one of `names` as an integer: which header was missing or malformed, and which rule reports it. */
function notCarried(ctx: CheckContext, names: readonly RateLimitHeader[], purpose: string): string {
  const shown = names.map((name) => SHOWN_HEADER[name]).join(' and ');
  const present = responses(ctx).some((exchange) => names.every((name) => exchange.response!.headers[name] !== undefined));
  return present
    ? `no response carried ${shown} as an integer, so there is ${purpose} (RATE-02 reports the malformed values)`
    : `no response carried ${shown}, so there is ${purpose} (RATE-01 reports the missing headers)`;
}

/** Why no step from one request to the next could be read: the headers it needs, or the order of the requests. */
function noStepReason(ctx: CheckContext, purpose: string): string {
  const counting = ['x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
  return responses(ctx).some((exchange) => carriesIntegers(exchange, counting))
    ? `no two requests fell in one window one after the other, so there is ${purpose}`
    : notCarried(ctx, counting, purpose);
}

/** One request with the key and the one answered just before it was sent, in the same window. */
interface Step {
  before: Exchange;
  after: Exchange;
  from: number;
  to: number;
}

/**
 * Consecutive requests with the key, one sent after the other had been answered (so the server counted them
 * in that order, whatever the concurrency), in the same window (the same X-RateLimit-Reset and X-RateLimit-Limit). A 401 is left out:
 * a server that did not recognise the key (a lowercase "bearer", say) counted it elsewhere.
 */
function keySteps(exchanges: readonly Exchange[]): Step[] {
  const counted = exchanges.filter((exchange) => credentialOf(exchange.request.auth) === 'key'
    && exchange.response!.status !== 401 && readRateLimitHeaders(exchange.response!.headers).remaining !== undefined);
  const steps: Step[] = [];
  for (const [index, after] of counted.entries()) {
    if (after.sentAfter === undefined) continue;
    const before = counted.slice(0, index).reverse().find((candidate) => candidate.seq <= after.sentAfter!);
    if (!before) continue;
    const [a, b] = [readRateLimitHeaders(before.response!.headers), readRateLimitHeaders(after.response!.headers)];
    // Another X-RateLimit-Limit is another limit in force: a bucket of its own (per-route limits), as RATE-15 reads it.
    if (a.reset === undefined || a.reset !== b.reset || a.limit !== b.limit) continue;
    steps.push({ before, after, from: a.remaining!, to: b.remaining! });
  }
  return steps;
}

/**
 * Whether a response came in the last second before its X-RateLimit-Reset. Reset counts whole seconds, so a
 * sliding window whose oldest request ages out at 12.3 s announces 13 s: between the two, Remaining may
 * rise, or stand still after a counted request, under an unchanged Reset without any rule being broken.
 */
function inLastSecondBeforeReset(exchange: Exchange): boolean {
  const reset = readRateLimitHeaders(exchange.response!.headers).reset!;
  const now = serverNow(exchange);
  // The Date header is the server's time rounded down to the second; our clock gets a second more for its skew.
  const margin = now.slack === 1 ? 1 : 2;
  return now.seconds >= reset - margin;
}

/**
 * Whether a response's X-RateLimit-Reset had already passed when it was answered (a Reset of 0, or seconds
 * until the reset read as a timestamp): it names no window that is still running, so two responses that
 * share it are not known to share a window (RATE-05 reports the value).
 */
function resetAlreadyPast(exchange: Exchange): boolean {
  const reset = readRateLimitHeaders(exchange.response!.headers).reset!;
  const now = serverNow(exchange);
  return reset < now.seconds - now.slack;
}

/** Why steps were set aside, in the words of what their Reset showed. */
function asideReason(past: readonly Step[], lastSecond: readonly Step[]): string {
  const reasons: string[] = [];
  if (past.length > 0) {
    const value = readRateLimitHeaders(past[0]!.after.response!.headers).reset;
    reasons.push(`${past.length} step(s) answered with an X-RateLimit-Reset already past (${value}), which names no running window (RATE-05 reports it)`);
  }
  if (lastSecond.length > 0) reasons.push(`${lastSecond.length} step(s) ending in the last second before their X-RateLimit-Reset, where requests may be aging out of a sliding window`);
  return reasons.join('; ');
}

/**
 * How many requests the window may have given back between a step's two answers, as the server itself states its pace:
 * X-RateLimit-Limit less Remaining, restored by X-RateLimit-Reset (all of it, for a fixed window, at once; a token
 * bucket or a sliding log as it goes). A fixed window therefore restores nothing within itself in any time a step takes.
 */
function restoredDuring(step: Step): number {
  const { limit, remaining, reset } = readRateLimitHeaders(step.before.response!.headers);
  if (limit === undefined || remaining === undefined || reset === undefined || limit <= remaining) return 0;
  // Reset and the Date it is read against are whole seconds: the time left may be up to two less than they say.
  const now = serverNow(step.before);
  const untilReset = reset - now.seconds - (now.slack === 1 ? 2 : now.slack);
  if (untilReset <= 0) return Number.POSITIVE_INFINITY;
  // The server may have counted the earlier request as soon as it was sent, and the later one as late as its answer
  // came: the window restores over that span, which the earlier answer's arrival (late on a loaded client) would cut short.
  const seconds = Math.max(0, answeredAt(step.after) - Date.parse(step.before.startedAt)) / 1000;
  return ((limit - remaining) / untilReset) * seconds;
}

/**
 * The holds that are not a restoring limiter's rounding. A token bucket shows whole requests of a fractional count: a
 * request that lowered it by one while a sliver flowed back may leave the whole number where it was. Such a limiter
 * lowers Remaining on the same request sent again, one at a time: each held request is sent three more times, and a
 * hold stands only when none of those lowered it either. A fixed window never holds, so this costs nothing there.
 */
async function holdsNotRounding(ctx: CheckContext, holds: readonly Step[]): Promise<Step[]> {
  const unexplained: Step[] = [];
  const remeasured = new Map<string, boolean>();
  for (const step of holds) {
    const { url } = step.after.request;
    if (!remeasured.has(url)) {
      const again: Exchange[] = [];
      for (let i = 0; i < 3; i++) again.push(await ctx.client.send({ path: pathFromBase(url, ctx.config.baseUrl) }));
      const remaining = again.map((exchange) => readRateLimitHeaders(exchange.response!.headers).remaining);
      remeasured.set(url, remaining.some((value, index) => index > 0 && value !== undefined && remaining[index - 1] !== undefined && value < remaining[index - 1]!));
      if (remeasured.get(url)) ctx.observe(`X-RateLimit-Remaining held on ${describeExchange(step.after)}, and fell when the same request was sent again one at a time: a limiter that restores requests as it goes, rounding its count`);
    }
    if (!remeasured.get(url)) unexplained.push(step);
  }
  return unexplained;
}

/** A request's path and query below the base URL, to send the same request again. */
function pathFromBase(url: string, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return url.startsWith(base) ? url.slice(base.length) : new URL(url).pathname + new URL(url).search;
}

/** The plan of the spec a limit and window length match (Limits › Request rate, by plan). */
function planOf(limit: number, windowSeconds: number | undefined): string {
  const perMinute = RATE_PLANS.find((plan) => plan.perMinute === limit)?.name;
  const perDay = RATE_PLANS.find((plan) => plan.perDay === limit)?.name;
  // The plan whose limits the spec calls custom (Enterprise): a limit no plan names may be one of its.
  const custom = RATE_PLANS.filter((plan) => plan.perMinute === undefined || plan.perDay === undefined).map((plan) => `${plan.name}, custom?`).join('; ');
  const unnamed = (per: string) => `no plan of the spec (${limit} a ${per}${custom ? `: ${custom}` : ''})`;
  if (windowSeconds !== undefined && windowSeconds <= 65) {
    return perMinute ? `the ${perMinute} plan (${limit} a minute)` : unnamed('minute');
  }
  if (windowSeconds !== undefined && windowSeconds >= 3600) {
    return perDay ? `the daily limit of the ${perDay} plan (${limit} a day)` : unnamed('day');
  }
  const guesses = [perMinute && `${perMinute} a minute`, perDay && `${perDay} a day`].filter(Boolean);
  return guesses.length > 0 ? `the ${guesses.join(' or the ')} figure` : 'no plan of the spec';
}

/** Seconds either way by which two whole-second statements of one moment may differ: each is rounded to the second. */
const ROUNDING_S = 2;
const HOUR_S = 3_600;

/** What a 429 states of when the client may go on: its Retry-After and its X-RateLimit-Reset, in seconds from the answer. */
interface StatedTimes {
  retryIn: number;
  resetIn: number;
  /** How the answer's "now" was read (its Date header, or our clock), with the slack that reading allows. */
  now: { by: string; slack: number };
}

/**
 * The times a 429 states, when it states both readably: a Retry-After in either form, an X-RateLimit-Reset that is a
 * Unix timestamp inside the day ahead (RATE-05 judges one that is not, and RATE-08 a Retry-After that is not either form).
 */
function statedTimes(exchange: Exchange): StatedTimes | undefined {
  const { headers } = responseOf(exchange);
  const value = headers['retry-after'];
  const reset = readRateLimitHeaders(headers).reset;
  if (value === undefined || retryAfterForm(value) === 'invalid' || reset === undefined || RATE_05.problem(exchange) !== undefined) return undefined;
  const now = serverNow(exchange);
  const retryIn = retryAfterForm(value) === 'delta-seconds' ? Number(value.trim()) : parseHttpDate(value)! / 1000 - now.seconds;
  return { retryIn, resetIn: reset - now.seconds, now: { by: now.by, slack: now.slack } };
}

/** How finely a recorded exchange's start is timed: an ISO time, to the millisecond. */
const TIMESTAMP_RESOLUTION_MS = 1;

/** The longest Retry-After the run waits out without --verify-recovery, to see whether a retry that early is taken. */
const CHEAP_RECOVERY_S = 5;

/** A 429 whose Retry-After, of at most CHEAP_RECOVERY_S, falls well before the X-RateLimit-Reset it states beside it. */
function retrySoonerThanReset(refused: Exchange): boolean {
  const times = statedTimes(refused);
  return times !== undefined && times.retryIn <= CHEAP_RECOVERY_S && times.resetIn - times.retryIn > ROUNDING_S + times.now.slack;
}

/**
 * A 429 whose Retry-After was waited out, and the request after it refused again in the same window: the same
 * X-RateLimit-Reset and no request left. The retry the first said would be taken was not: its Retry-After stated a
 * time the window it stood in did not reach. (A limiter that frees capacity as it goes takes that retry, or moves its
 * Reset; another client on the key may take the freed place first, which the caller excuses.)
 */
function refusedAgainInTheSameWindow(exchanges: readonly Exchange[], refused: Exchange): Exchange | undefined {
  const times = statedTimes(refused);
  const reset = readRateLimitHeaders(responseOf(refused).headers).reset;
  if (!times || reset === undefined) return undefined;
  const retryAt = Date.parse(refused.startedAt) + refused.durationMs + times.retryIn * 1000;
  return exchanges.find((later) => {
    if (later.seq <= refused.seq || (later.sentAfter ?? 0) < refused.seq || credentialOf(later.request.auth) !== 'key') return false;
    // A recorded start is whole milliseconds (ISO time) and the answer's end has a tenth of one: a retry sent in the
    // very millisecond its wait ended reads as up to 1 ms early, though the client waited it out from the answer's end.
    if (Date.parse(later.startedAt) + TIMESTAMP_RESOLUTION_MS <= retryAt || later.response?.status !== 429) return false;
    const stated = readRateLimitHeaders(later.response.headers);
    return stated.reset === reset && stated.remaining === 0;
  });
}

/**
 * How a 429's two times contradict each other, or undefined. A retry later than the reset: the limit the headers
 * describe is free again before the client is told it may try (RATE-10 holds those headers to the refusing limit).
 * Two times a whole number of hours apart: the same moment written in two time zones, one of them false (a reset
 * computed from local time). A retry well before the reset is a limiter that frees capacity as it goes (a sliding
 * window, a token bucket): both can be true, so nothing else is judged.
 */
function timesDisagree({ retryIn, resetIn, now }: StatedTimes): string | undefined {
  const apart = resetIn - retryIn;
  if (apart < -(ROUNDING_S + now.slack)) return `Retry-After ${Math.round(retryIn)} s, later than the X-RateLimit-Reset ${Math.round(resetIn)} s ahead (by ${now.by})`;
  const hours = Math.round(apart / HOUR_S);
  if (hours !== 0 && Math.abs(apart - hours * HOUR_S) <= ROUNDING_S) {
    return `Retry-After ${Math.round(retryIn)} s and X-RateLimit-Reset ${Math.round(resetIn)} s ahead (by ${now.by}): ${hours} hour(s) apart to the second, one of them in another time zone`;
  }
  return undefined;
}

const PROBE = runKey<Promise<ProbeOutcome>>('ratelimit: the 429 probe');

/** The probe runs once per run, for whichever of RATE-07..12 comes first; RATE-07 is the probe's own rule. */
function theProbe(ctx: CheckContext): Promise<ProbeOutcome> {
  if (ctx.config.skip.includes('RATE-07')) throw new SkipCheck('the 429 probe is RATE-07, which --skip names');
  return ctx.run.shared(PROBE, () => provoke429(ctx));
}

/** The probe's first 429; the check is skipped, with the reason, when the probe did not run or saw none. */
async function the429(ctx: CheckContext): Promise<Exchange> {
  let probe: ProbeOutcome;
  try {
    probe = await theProbe(ctx);
  } catch (error) {
    if (outcomeOfThrown(error) === 'skipped') {
      ctx.skip(`needs the 429 of the probe, which did not run: ${(error as Error).message}`);
    }
    throw error;
  }
  if (!probe.first429) ctx.skip(`needs a 429, and the probe provoked none: ${probe.overLimit ? 'the server answered past Remaining 0 (RATE-07)' : probe.inconclusive}`);
  return probe.first429;
}

export default suite('ratelimit', [
  check('RATE-01', async (ctx) => {
    await judgeEach(ctx, RATE_01, 'the run received no response, so there are no headers to judge');
  }),

  check('RATE-02', async (ctx) => {
    await judgeEach(ctx, RATE_02, 'no response carried any X-RateLimit-* header, so there is no value to judge (RATE-01 reports the missing headers)');
  }),

  check('RATE-03', async (ctx) => {
    await judgeEach(ctx, RATE_03, notCarried(ctx, ['x-ratelimit-limit', 'x-ratelimit-remaining'], 'nothing to compare'));
  }),

  check('RATE-04', async (ctx) => {
    await ensureSamples(ctx);
    const all = keySteps(responses(ctx));
    if (all.length === 0) ctx.skip(noStepReason(ctx, 'no step to judge'));
    const past = all.filter((step) => resetAlreadyPast(step.after));
    const lastSecond = all.filter((step) => !past.includes(step) && inLastSecondBeforeReset(step.after));
    const steps = all.filter((step) => !past.includes(step) && !lastSecond.includes(step));
    if (steps.length === 0) ctx.skip(`no step to judge: ${asideReason(past, lastSecond)}`);
    // A listing answered 200 is surely counted; the spec leaves open which other operations are, so for those Remaining
    // may stay put. It may go up only by what the window, as the server itself states it, restores in the time between.
    const rises = steps.filter((step) => step.to > step.from + restoredDuring(step));
    const holds = steps.filter((step) => step.to === step.from && step.from > 0 && restoredDuring(step) < 1
      && operationOf(step.after, ctx.config.baseUrl) === 'listPets' && step.after.response!.status === 200);
    const unexplained = await holdsNotRounding(ctx, holds);
    const broken = [...rises, ...unexplained];
    for (const [group, members] of groupExchanges(broken.map((step) => step.after), ctx.config.baseUrl, true)) {
      const step = broken.find((candidate) => candidate.after === members[0])!;
      ctx.violation({
        what: `${group}: ${members.length} request(s) with the key did not lower X-RateLimit-Remaining within one window (same X-RateLimit-Reset)`,
        expected: `X-RateLimit-Remaining below ${step.from} on the next request`, seen: `${step.to}`, exchanges: [step.before, step.after],
      });
    }
    const aside = all.length - steps.length;
    ctx.observe(`judged ${steps.length} step(s) from one request with the key to the next${aside > 0 ? `; set aside: ${asideReason(past, lastSecond)}` : ''}`);
  }),

  check('RATE-05', async (ctx) => {
    await judgeEach(ctx, RATE_05, notCarried(ctx, ['x-ratelimit-reset'], 'nothing to judge'));
  }),

  check('RATE-06', async (ctx) => {
    await ensureSamples(ctx);
    const withKey = responses(ctx).filter((exchange) => credentialOf(exchange.request.auth) === 'key');
    const limits = [...new Set(withKey.map((exchange) => readRateLimitHeaders(exchange.response!.headers).limit).filter((limit) => limit !== undefined))];
    if (limits.length === 0) ctx.skip('no response with the key carries an integer X-RateLimit-Limit');
    // The longest stretch from a response to its Reset approaches the window's length.
    const ahead = withKey.map((exchange) => (readRateLimitHeaders(exchange.response!.headers).reset ?? NaN) - serverNow(exchange).seconds).filter((s) => s > 0);
    const windowSeconds = ahead.length > 0 ? Math.ceil(Math.max(...ahead)) : undefined;
    for (const limit of limits) {
      ctx.observe(`X-RateLimit-Limit ${limit}${windowSeconds === undefined ? '' : `, windows of about ${windowSeconds} s`}: ${planOf(limit, windowSeconds)}`);
    }
  }),

  check('RATE-07', async (ctx) => {
    const probe = await theProbe(ctx);
    if (probe.overLimit) {
      const { zero, accepted } = probe.overLimit;
      ctx.violation({
        expected: 'status 429 for a request sent after X-RateLimit-Remaining reached 0 in the same window',
        seen: `${accepted.response!.status} with X-RateLimit-Remaining ${accepted.response!.headers['x-ratelimit-remaining'] ?? '(none)'}`, exchanges: [zero, accepted],
      });
      return;
    }
    if (!probe.first429) ctx.skip(probe.inconclusive!);
    const position = probe.exchanges.filter((exchange) => exchange.seq <= probe.first429!.seq).length;
    ctx.observe(`X-RateLimit-Remaining was ${probe.startRemaining}; the probe sent ${probe.exchanges.length} request(s), the first 429 answered request ${position}`);
  }),

  check('RATE-08', async (ctx) => {
    const limited = await the429(ctx);
    const value = responseOf(limited).headers['retry-after'];
    if (value === undefined) {
      ctx.violation({ expected: 'a Retry-After header on the 429', seen: 'none', exchanges: [limited] });
      return;
    }
    expectThat(ctx, retryAfterForm(value) !== 'invalid', {
      expected: 'Retry-After as delta-seconds (e.g. 30) or an HTTP-date (e.g. Sun, 06 Nov 1994 08:49:37 GMT)', seen: `"${value}"`, exchanges: [limited],
    });
  }),

  check('RATE-09', async (ctx) => {
    const limited = await the429(ctx);
    const body = expectSchema(ctx, limited, 'Error', 'the 429') as { status: unknown } | undefined;
    if (!body) return;
    expectThat(ctx, String(body.status) === '429', { expected: 'the 429\'s Error body to say "status": 429', seen: `"status": ${String(body.status)}`, exchanges: [limited] });
  }),

  check('RATE-10', async (ctx) => {
    const limited = await the429(ctx);
    const missing = RATE_01.problem(limited);
    if (!expectThat(ctx, missing === undefined, { expected: 'X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset on the 429', seen: missing ?? '', exchanges: [limited] })) return;
    const remaining = responseOf(limited).headers['x-ratelimit-remaining']!.trim();
    expectThat(ctx, remaining === '0', { expected: 'X-RateLimit-Remaining 0 on the 429', seen: remaining, exchanges: [limited] });
  }),

  check('RATE-11', async (ctx) => {
    const limited = await the429(ctx);
    // A Retry-After of a few seconds well before the Reset of its window: waiting it out is cheap, and the answer after
    // it says which of the two statements holds (RATE-16 judges them together).
    if (!ctx.config.verifyRecovery && !retrySoonerThanReset(limited)) ctx.skip('checking recovery means waiting out the Retry-After of the probe\'s 429; run with --verify-recovery');
    const value = responseOf(limited).headers['retry-after'];
    if (value === undefined || retryAfterForm(value) === 'invalid') ctx.skip('the 429 carries no usable Retry-After (RATE-08), so there is no time to wait for');
    // The client holds this request back until Retry-After has passed, and says so on the terminal.
    const next = await ctx.client.send({ path: '/pets', query: { limit: '1' }, expect429: true });
    expectStatus(ctx, next, [200], `the first request after Retry-After: ${value}`);
  }),

  check('RATE-12', async (ctx) => {
    const limited = await the429(ctx);
    const value = responseOf(limited).headers['retry-after'];
    const form = value === undefined ? 'absent' : retryAfterForm(value);
    ctx.observe(`Retry-After on the 429: ${value === undefined ? 'none' : `"${value}"`} (${form})`);
  }),

  check('RATE-13', async (ctx) => {
    await ensureSamples(ctx);
    const judged = responses(ctx);
    const byOperation = new Map<string, CountTally>();
    for (const step of keySteps(judged)) {
      // Success and error apart: a server may count only what succeeded (the spec leaves that open).
      const answer = step.after.response!.status < 400 ? 'success' : 'error';
      const operation = `${operationOf(step.after, ctx.config.baseUrl) ?? describeExchange(step.after)} (${answer})`;
      const tally = byOperation.get(operation) ?? { lowered: 0, kept: 0, atZero: 0 };
      if (step.to < step.from) tally.lowered += 1;
      else if (step.from > 0) tally.kept += 1;
      else tally.atZero += 1;
      byOperation.set(operation, tally);
    }
    const anonymous = anonymousCounting(judged);
    if (byOperation.size === 0 && anonymous === undefined) {
      ctx.skip(noStepReason(ctx, 'no count to follow from one request to the next'));
    }
    for (const [operation, tally] of byOperation) ctx.observe(`${operation} with the key: ${countingText(tally)}`);
    ctx.observe(anonymous ?? 'requests without a valid key: not enough consecutive requests in one window to tell how they are counted');
  }),

  check('RATE-14', async (ctx) => {
    const { judged, aside } = refusalsWithPromises(ctx.client.exchanges);
    const setAside = aside.length > 0 ? `; ${aside.length} set aside: ${[...new Set(aside)].join('; ')}` : '';
    if (judged.length === 0) {
      ctx.skip(aside.length > 0 ? `no 429 to the key could be set beside the answer before it${setAside}`
        : 'no request with the key was answered 429, so there is no refusal to judge (the 429 probe, RATE-07, provokes one)');
    }
    // Another client may spend the window between two of our requests: then Remaining promises nothing, and
    // the 429s are held to what the rest of the area judges (the tolerance a shared key always had).
    if (anotherClient(ctx)) {
      ctx.observe(`${judged.length} 429(s) not held against the Remaining before them: ${anotherClient(ctx)}`);
      return;
    }
    const broken = judged.filter((refusal) => refusal.promised > refusal.between);
    for (const [group, members] of groupExchanges(broken.map((refusal) => refusal.refused), ctx.config.baseUrl, false)) {
      const first = broken.find((refusal) => refusal.refused === members[0])!;
      ctx.violation({
        what: `${group}: ${members.length} request(s) answered 429 while the answer before each was sent promised requests left in the same window, and no other client was seen spending the key`,
        expected: `no 429 while X-RateLimit-Remaining ${first.promised} promised requests left and at most ${first.between} other request(s) of this run could have spent them`,
        seen: `429 after X-RateLimit-Remaining ${first.promised}`,
        exchanges: [first.promise, first.refused],
      });
    }
    ctx.observe(`judged ${judged.length} 429(s) against the X-RateLimit-Remaining answered before each was sent${setAside}`);
  }),

  check('RATE-15', async (ctx) => {
    await ensureSamples(ctx);
    // Every exchange, the probe's included: what could have been counted between two answers is any request of the run.
    const falls = fallsInOneWindow(ctx.client.exchanges);
    if (falls.length === 0) ctx.skip(noStepReason(ctx, 'no fall of X-RateLimit-Remaining to weigh against the requests sent'));
    // Another client's requests lower Remaining too: then a fall says nothing of how this run's were counted.
    if (anotherClient(ctx)) {
      ctx.observe(`${falls.length} fall(s) of X-RateLimit-Remaining not weighed against this run's requests: ${anotherClient(ctx)}`);
      return;
    }
    const broken = falls.filter((fall) => fall.fell > fall.counted);
    // Grouped by the operation answered just before the fall: the answer that did not count itself.
    for (const [group, members] of groupExchanges(broken.map((fall) => fall.before), ctx.config.baseUrl, true)) {
      const first = broken.find((fall) => fall.before === members[0])!;
      const [from, to] = [first.before, first.after].map((exchange) => readRateLimitHeaders(exchange.response!.headers).remaining);
      ctx.violation({
        what: `after ${group}: ${members.length} time(s) the next answer with the key showed X-RateLimit-Remaining fallen further than the requests sent could spend, no other client seen: the answer before it did not count the request it answered`,
        expected: `X-RateLimit-Remaining of at least ${from! - first.counted} (${from} less the ${first.counted} request(s) that could have been counted in between)`,
        seen: `${to}`,
        exchanges: [first.before, first.after],
      });
    }
    ctx.observe(`judged ${falls.length} fall(s) of X-RateLimit-Remaining between answers with the key in one window against the requests that could have been counted`);
  }),
  check('RATE-16', async (ctx) => {
    // Every 429 of the run with the key, the probe's included (this check comes after it).
    const refusals = ctx.client.exchanges.filter((exchange) => exchange.response?.status === 429 && credentialOf(exchange.request.auth) === 'key');
    if (refusals.length === 0) ctx.skip('no request with the key was answered 429, so there are no stated times to compare (the 429 probe, RATE-07, provokes one)');
    const stated = refusals.flatMap((exchange) => {
      const times = statedTimes(exchange);
      return times ? [{ exchange, times }] : [];
    });
    if (stated.length === 0) ctx.skip(`no 429 stated both a Retry-After that can be read and an X-RateLimit-Reset within the day ahead (RATE-05, RATE-08, RATE-10 report which is missing or malformed), so their times cannot be compared`);
    const broken = stated.filter(({ times }) => timesDisagree(times) !== undefined);
    const first = broken[0];
    if (first) {
      ctx.violation({
        what: `${broken.length} of ${stated.length} 429(s)`, expected: 'a Retry-After no later than X-RateLimit-Reset, and the two not a whole number of hours apart',
        seen: timesDisagree(first.times)!, exchanges: [first.exchange],
      });
    }
    const sharing = anotherClient(ctx);
    const refusedAgain = stated.flatMap(({ exchange }) => {
      const again = refusedAgainInTheSameWindow(ctx.client.exchanges, exchange);
      return again ? [{ exchange, again }] : [];
    });
    const early = refusedAgain[0];
    if (early && sharing) ctx.observe(`a retry after Retry-After was refused again in the same window (${describeExchange(early.again)}), which another client on the key may explain: ${sharing}`);
    else if (early) {
      ctx.violation({
        what: 'a retry sent once Retry-After had passed', expected: 'the retry Retry-After announces to be taken, or a Retry-After no earlier than the X-RateLimit-Reset of a window that does not free capacity before it',
        seen: `Retry-After: ${responseOf(early.exchange).headers['retry-after']} (X-RateLimit-Reset ${readRateLimitHeaders(responseOf(early.exchange).headers).reset}), and the retry after it was answered 429 in the same window, X-RateLimit-Remaining 0 (${describeExchange(early.again)})`,
        exchanges: [early.exchange, early.again],
      });
    }
    ctx.observe(`compared the Retry-After and X-RateLimit-Reset of ${stated.length} 429(s)`);
  }),
  check('RATE-17', async (ctx) => {
    await ensureSamples(ctx);
    // Every answer of the run, the probe's included: the probe is what fills a window to its Limit.
    const { windows, outOfTime } = servedWindows(ctx);
    if (windows.length === 0) {
      // Both carried as integers, but every Reset already past when it came (a delta, milliseconds, a local clock): no window to count in.
      ctx.skip(outOfTime > 0
        ? `every one of the ${outOfTime} answer(s) served with the key that carried X-RateLimit-Limit and X-RateLimit-Reset as integers named a Reset already past when it came, or came in its last second, so no window whose served requests can be counted is known (RATE-05 reports the Reset values)`
        : notCarried(ctx, ['x-ratelimit-limit', 'x-ratelimit-reset'], 'no window whose served requests can be counted'));
    }
    for (const window of windows.filter((each) => each.served.length > each.limit)) {
      ctx.violation({
        what: `the window whose X-RateLimit-Reset is ${window.reset}`,
        expected: `at most ${window.limit} request(s) with the key served in it (X-RateLimit-Limit: ${window.limit}; another client on the key only leaves fewer)`,
        seen: `${window.served.length} served (a 2xx to a documented operation), the first over the limit ${describeExchange(window.served[window.limit]!)}`,
        exchanges: [window.served[0]!, window.served[window.limit]!],
      });
    }
    const fullest = windows.reduce((most, each) => (each.served.length > most.served.length ? each : most));
    ctx.observe(`counted the requests served in ${windows.length} window(s) of the run; the fullest served ${fullest.served.length} under X-RateLimit-Limit ${fullest.limit}`);
  }),

  check('RATE-18', async (ctx) => {
    // Every 429 of the run, the probe's included (this check comes after it), whatever credential it answered.
    const refusals = ctx.client.exchanges.filter((exchange) => exchange.response?.status === 429);
    if (refusals.length === 0) ctx.skip('no request was answered 429, so there is no 429 body to judge (the 429 probe, RATE-07, provokes one)');
    const judged = refusals.filter((exchange) => RATE_18.appliesTo(exchange));
    if (judged.length === 0) ctx.skip(`none of the ${refusals.length} 429(s) of the run carried a body, so there is no media type to judge`);
    const broken = judged.filter((exchange) => RATE_18.problem(exchange) !== undefined);
    if (broken.length > 0) ctx.violation({ what: `${broken.length} of ${judged.length} 429(s) with a body`, expected: RATE_18.expected, seen: RATE_18.problem(broken[0]!)!, exchanges: [broken[0]!] });
    ctx.observe(`judged the body of ${judged.length} 429(s)`);
  }),
], { wholeRun: true });

/** Of the steps to one operation: how many lowered Remaining, how many did not, how many came when it was already 0. */
interface CountTally {
  lowered: number;
  kept: number;
  atZero: number;
}

/** "counted (4 of 4 requests lowered X-RateLimit-Remaining)"; a step from Remaining 0 tells nothing either way. */
function countingText({ lowered, kept, atZero }: CountTally): string {
  const zero = atZero > 0 ? `; ${atZero} came when X-RateLimit-Remaining was already 0, which tells nothing` : '';
  if (lowered + kept === 0) return `not told (no request came while X-RateLimit-Remaining was above 0${zero})`;
  const how = kept === 0 ? 'counted' : lowered === 0 ? 'not counted' : 'counted sometimes';
  return `${how} (${lowered} of ${lowered + kept} request(s) lowered X-RateLimit-Remaining${zero})`;
}

/**
 * Why the window's accounting is not exact, when the pacer saw an answer the server served with Remaining
 * fallen further than this run's own requests explain: another client spends the key.
 */
/** The requests with the key one window served: those whose answers share its X-RateLimit-Reset, under its Limit. */
interface ServedWindow {
  reset: number;
  limit: number;
  served: Exchange[];
}

/**
 * The run's answers with the key that served a documented operation (a 2xx: whatever a server counts, it served these),
 * by the window their X-RateLimit-Reset names. Left out: a Reset already past (it names no running window), and an
 * answer in the last second before its Reset, where a sliding log's oldest requests age out under an unchanged Reset.
 * A fixed window serves at most its Limit under one Reset; a token bucket or a sliding log moves its Reset on as it
 * admits requests, and serves no more under one Reset than it gives back in a second, less than its Limit.
 */
function servedWindows(ctx: CheckContext): { windows: ServedWindow[]; outOfTime: number } {
  const windows = new Map<number, ServedWindow>();
  let outOfTime = 0;
  for (const exchange of ctx.client.exchanges) {
    const response = exchange.response;
    if (!response || response.status < 200 || response.status > 299 || credentialOf(exchange.request.auth) !== 'key') continue;
    if (operationOf(exchange, ctx.config.baseUrl) === undefined) continue;
    const { limit, reset } = readRateLimitHeaders(response.headers);
    if (limit === undefined || reset === undefined) continue;
    if (resetAlreadyPast(exchange) || inLastSecondBeforeReset(exchange)) {
      outOfTime += 1;
      continue;
    }
    const window = windows.get(reset) ?? { reset, limit, served: [] };
    window.limit = Math.max(window.limit, limit);
    window.served.push(exchange);
    windows.set(reset, window);
  }
  return { windows: [...windows.values()], outOfTime };
}

function anotherClient(ctx: CheckContext): string | undefined {
  if (!ctx.client.pacing.snapshot('key').sharedSeenServed) return undefined;
  return 'X-RateLimit-Remaining fell further than this run\'s own requests explain on an answer the server served, so another client spends the key (the pacer said so on the terminal)';
}

/** A 429 to the key, the last answer with the key that arrived before it was sent, and what could have spent the difference. */
interface Refusal {
  refused: Exchange;
  promise: Exchange;
  /** X-RateLimit-Remaining on the promise. */
  promised: number;
  /** Requests, on any credential, that the server may have counted after the promise and before the 429. */
  between: number;
}

/**
 * Each 429 answering the key, set beside the promise made before it was sent: the last answer with the key
 * (arrival order, not send order: requests in flight together are counted in any order) carrying
 * X-RateLimit-Remaining. A 429 in another window than the promise's (another X-RateLimit-Reset or Limit: a
 * daily limit beside the minute's, or a window that rolled over) is set aside, with the reason.
 */
function refusalsWithPromises(exchanges: readonly Exchange[]): { judged: Refusal[]; aside: string[] } {
  const judged: Refusal[] = [];
  const aside: string[] = [];
  // The key as the spec sends it only: a limiter keyed by the raw header may count "bearer <key>" apart.
  const keyAnswers = exchanges.filter((exchange) => exchange.response && exchange.request.auth === 'key');
  for (const refused of keyAnswers.filter((exchange) => exchange.response!.status === 429)) {
    const promise = keyAnswers.filter((candidate) => candidate.seq <= (refused.sentAfter ?? -1) && candidate.response!.status !== 401
      && readRateLimitHeaders(candidate.response!.headers).remaining !== undefined).at(-1);
    const why = promise ? notOneWindow(promise, refused) : 'no answer with X-RateLimit-Remaining came before it was sent';
    if (why) {
      aside.push(why);
      continue;
    }
    // The promise counts every request the server had counted when it answered; those counted later are the
    // ones still unanswered when it was sent (in flight beside it) and the ones sent before the 429 came back.
    const between = exchanges.filter((other) => other !== promise && other !== refused
      && other.seq > (promise!.sentAfter ?? 0) && (other.sentAfter ?? 0) < refused.seq).length;
    judged.push({ refused, promise: promise!, promised: readRateLimitHeaders(promise!.response!.headers).remaining!, between });
  }
  return { judged, aside };
}

/** Why a 429 and the answer before it are not known to share one window, or undefined when they do. */
function notOneWindow(promise: Exchange, refused: Exchange): string | undefined {
  const [a, b] = [readRateLimitHeaders(promise.response!.headers), readRateLimitHeaders(refused.response!.headers)];
  if (a.reset === undefined || a.reset < UNIX_TIME_FLOOR) return 'the answer before it carried no X-RateLimit-Reset timestamp to name its window (RATE-01, RATE-05)';
  if (b.limit !== undefined && a.limit !== undefined && b.limit !== a.limit) return `it carried another X-RateLimit-Limit (${b.limit}, not ${a.limit}): another limit in force`;
  if (b.reset !== undefined) return b.reset === a.reset ? undefined : `it carried another X-RateLimit-Reset (${b.reset}, not ${a.reset}): another window`;
  // Without a Reset of its own, the 429 is in the promise's window only while that window surely runs.
  const now = serverNow(refused);
  const resetSeconds = a.reset > 1e11 ? a.reset / 1000 : a.reset;
  return now.seconds + now.slack < resetSeconds ? undefined : 'it came when the window of the answer before it may have ended';
}

/** Two answers with the key in one window, the later sent after the earlier came back, and what could have been counted between. */
interface Fall {
  before: Exchange;
  after: Exchange;
  fell: number;
  /** Requests, on any credential, the server may have counted after `before` up to and including `after`. */
  counted: number;
}

/**
 * Each answer with the key beside the last answer with the key that arrived before it was sent, in the same
 * window (one X-RateLimit-Reset timestamp, one Limit): how far Remaining fell between them, and how many requests
 * of the run could have been counted in that time. 401s (a key the server did not take) and 429s (RATE-14's,
 * and their Remaining 0 is RATE-10's) are left out.
 */
function fallsInOneWindow(exchanges: readonly Exchange[]): Fall[] {
  // The key as the spec sends it only: a limiter keyed by the raw header may count "bearer <key>" apart.
  const counted = exchanges.filter((exchange) => exchange.response && exchange.request.auth === 'key'
    && ![401, 429].includes(exchange.response.status) && readRateLimitHeaders(exchange.response.headers).remaining !== undefined);
  const falls: Fall[] = [];
  for (const after of counted) {
    const before = counted.filter((candidate) => candidate.seq <= (after.sentAfter ?? -1)).at(-1);
    if (!before) continue;
    const [a, b] = [readRateLimitHeaders(before.response!.headers), readRateLimitHeaders(after.response!.headers)];
    if (a.reset === undefined || a.reset < UNIX_TIME_FLOOR || a.reset !== b.reset || a.limit !== b.limit) continue;
    const between = exchanges.filter((other) => other !== before && other.seq > (before.sentAfter ?? 0) && (other.sentAfter ?? 0) < after.seq).length;
    falls.push({ before, after, fell: a.remaining! - b.remaining!, counted: between });
  }
  return falls;
}

/**
 * Whether requests without a valid key share the key's count, have a bucket of their own, or are not counted:
 * read from each such request and the response answered just before it was sent, in the same window.
 */
function anonymousCounting(exchanges: readonly Exchange[]): string | undefined {
  const tally = { continuedKey: 0, apartFromKey: 0, lowered: 0, kept: 0, atZero: 0 };
  const anonymous = exchanges.filter((exchange) => credentialOf(exchange.request.auth) !== 'key');
  for (const after of anonymous) {
    const before = exchanges.filter((candidate) => candidate.seq <= (after.sentAfter ?? -1)).at(-1);
    const [a, b] = [before && readRateLimitHeaders(before.response!.headers), readRateLimitHeaders(after.response!.headers)];
    if (!before || a?.remaining === undefined || b.remaining === undefined || a.reset !== b.reset) continue;
    // From Remaining 0 no count can fall: such a step says nothing of how the request was counted.
    if (a.remaining === 0) tally.atZero += 1;
    else if (credentialOf(before.request.auth) === 'key') {
      if (b.remaining === a.remaining - 1) tally.continuedKey += 1;
      else tally.apartFromKey += 1;
    } else if (b.remaining < a.remaining) tally.lowered += 1;
    else tally.kept += 1;
  }
  const afterKey = tally.continuedKey + tally.apartFromKey;
  const afterAnonymous = tally.lowered + tally.kept;
  if (afterKey + afterAnonymous + tally.atZero === 0) return undefined;
  const how = afterKey + afterAnonymous === 0 ? 'not told'
    : tally.continuedKey > tally.apartFromKey ? 'counted with the key\'s requests'
      : tally.lowered > 0 ? 'counted in a bucket of their own'
        : tally.kept > 0 ? 'not counted' : 'kept apart from the key\'s count';
  const evidence = [
    afterKey > 0 ? `after a request with the key, ${tally.continuedKey} of ${afterKey} continued its count` : undefined,
    afterAnonymous > 0 ? `after one without, ${tally.lowered} of ${afterAnonymous} lowered X-RateLimit-Remaining` : undefined,
    tally.atZero > 0 ? `${tally.atZero} came when X-RateLimit-Remaining was already 0, which tells nothing` : undefined,
  ].filter((part) => part !== undefined);
  return `requests without a valid key (${anonymous.length}): ${how} (${evidence.join('; ')})`;
}
