// Rate limits. RATE-01..06 judge the X-RateLimit-* headers of every response the run has received (this
// suite runs last, so that is every other suite's traffic); RATE-07..12 judge the 429 probe, which sends
// the run's last requests so that no other check ever sees a 429 it did not cause. RATE-13 only reads.
import { describe } from 'vitest';
import { check, type CheckContext } from '../helpers/judge/check.js';
import { credentialOf } from '../helpers/http/client.js';
import { describeExchange, type Exchange } from '../helpers/http/exchange.js';
import { expectSchema, expectStatus, expectThat, responseOf } from '../helpers/judge/expect.js';
import { groupExchanges, operationOf } from '../helpers/judge/operations.js';
import { outcomeOfThrown, RuleViolation, SkipCheck } from '../helpers/judge/outcome.js';
import { readRateLimitHeaders, UNIX_TIME_FLOOR } from '../helpers/http/pacing.js';
import { unknownPetId } from '../helpers/fixtures/pets.js';
import { provoke429, type ProbeOutcome } from '../helpers/http/rate-limit-probe.js';
import { parseHttpDate, retryAfterForm } from '../helpers/http/retry-after.js';

const HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
const SHOWN: Record<(typeof HEADERS)[number], string> = {
  'x-ratelimit-limit': 'X-RateLimit-Limit', 'x-ratelimit-remaining': 'X-RateLimit-Remaining', 'x-ratelimit-reset': 'X-RateLimit-Reset',
};
// The spec's plans include daily limits, so a Reset up to a day ahead is "near".
const LONGEST_WINDOW_S = 86_400;
// Without a Date header, Reset is read against our clock, which may differ from the server's.
const CLOCK_SKEW_S = 300;
const PROBE_RULES = new Set(['RATE-07', 'RATE-08', 'RATE-09', 'RATE-10', 'RATE-11', 'RATE-12']);

/** Every response of the run before the probe. */
function responses(ctx: CheckContext): Exchange[] {
  return ctx.client.exchanges.filter((exchange) => exchange.response && !PROBE_RULES.has(exchange.rule ?? ''));
}

let sampling: Promise<void> | undefined;

/**
 * Makes sure there is something to judge when this area runs alone (--only ratelimit): two requests with
 * the key one after the other (RATE-04), an error answered to the key, one request without a key.
 * A full run has all of these and sends nothing here.
 */
function ensureSamples(ctx: CheckContext): Promise<void> {
  sampling ??= (async () => {
    const withKey = (exchange: Exchange) => credentialOf(exchange.request.auth) === 'key';
    const seen = responses(ctx);
    const listings = seen.filter((exchange) => withKey(exchange) && operationOf(exchange, ctx.config.baseUrl) === 'listPets').length;
    for (let i = listings; i < 2; i++) await ctx.client.send({ path: '/pets', query: { limit: '1' } });
    if (!seen.some((exchange) => withKey(exchange) && exchange.response!.status >= 400)) {
      await ctx.client.send({ path: `/pets/${unknownPetId(ctx.client.exchanges)}` });
    }
    if (!seen.some((exchange) => !withKey(exchange))) await ctx.client.send({ path: '/pets', query: { limit: '1' }, auth: 'none' });
  })();
  return sampling;
}

/** What one of RATE-01..05 judges: the responses it applies to, and why it is skipped when none does. */
interface Judged {
  applies: (exchange: Exchange) => boolean;
  nothing: string;
}

/**
 * Reports, per operation and status, the responses for which `problem` names what is wrong: one violation
 * per group ("getPet 404: 3 of 3 …"), with the first offender as evidence. A rule never passes on nothing:
 * when no response of the run carries what it judges, the check is skipped, saying what was missing.
 */
async function judgeEach(ctx: CheckContext, judged: Judged, expected: string, problem: (exchange: Exchange) => string | undefined): Promise<void> {
  await ensureSamples(ctx);
  const relevant = responses(ctx).filter(judged.applies);
  if (relevant.length === 0) ctx.skip(judged.nothing);
  for (const [group, members] of groupExchanges(relevant, ctx.config.baseUrl, true)) {
    const broken = members.filter((exchange) => problem(exchange) !== undefined);
    const first = broken[0];
    if (!first) continue;
    ctx.violation({ what: `${group}: ${broken.length} of ${members.length} response(s) break the rule`, expected, seen: problem(first)!, exchanges: [first] });
  }
  ctx.observe(`judged ${relevant.length} response(s) of this run`);
}

/**
 * The responses that carry every one of `names` as an integer, and, when there are none, a reason that
 * says which header was missing or malformed and which rule reports it.
 */
function carrying(ctx: CheckContext, names: readonly (typeof HEADERS)[number][], purpose: string): Judged {
  const integer = (exchange: Exchange, name: string) => /^\d+$/.test(exchange.response!.headers[name]?.trim() ?? '');
  const applies = (exchange: Exchange) => names.every((name) => integer(exchange, name));
  const shown = names.map((name) => SHOWN[name]).join(' and ');
  const present = responses(ctx).some((exchange) => names.every((name) => exchange.response!.headers[name] !== undefined));
  const nothing = present
    ? `no response carried ${shown} as an integer, so there is ${purpose} (RATE-02 reports the malformed values)`
    : `no response carried ${shown}, so there is ${purpose} (RATE-01 reports the missing headers)`;
  return { applies, nothing };
}

function missingHeaders(exchange: Exchange): string | undefined {
  const missing = HEADERS.filter((name) => exchange.response!.headers[name] === undefined).map((name) => SHOWN[name]);
  return missing.length > 0 ? `no ${missing.join(', ')}` : undefined;
}

function nonIntegerHeaders(exchange: Exchange): string | undefined {
  const headers = exchange.response!.headers;
  const bad = HEADERS.filter((name) => headers[name] !== undefined && !/^\d+$/.test(headers[name]!.trim()));
  return bad.length > 0 ? bad.map((name) => `${SHOWN[name]}: "${headers[name]}"`).join(', ') : undefined;
}

function remainingAboveLimit(exchange: Exchange): string | undefined {
  const headers = exchange.response!.headers;
  const [limit, remaining] = [headers['x-ratelimit-limit']?.trim(), headers['x-ratelimit-remaining']?.trim()];
  if (!limit || !remaining || !/^\d+$/.test(limit) || !/^\d+$/.test(remaining)) return undefined; // RATE-01, RATE-02
  return BigInt(remaining) > BigInt(limit) ? `X-RateLimit-Remaining ${remaining} above X-RateLimit-Limit ${limit}` : undefined;
}

/** The server's "now" for a response: its Date header (then to the second), or our clock when it sends none. */
function serverNow(exchange: Exchange): { seconds: number; slack: number; by: string } {
  const date = exchange.response!.headers.date;
  const dateMs = date === undefined ? undefined : parseHttpDate(date, Date.parse(exchange.startedAt));
  if (dateMs !== undefined) return { seconds: dateMs / 1000, slack: 1, by: 'its Date header' };
  return { seconds: (Date.parse(exchange.startedAt) + exchange.durationMs) / 1000, slack: CLOCK_SKEW_S, by: 'our clock (no Date header)' };
}

function resetNotATimestamp(exchange: Exchange): string | undefined {
  const value = exchange.response!.headers['x-ratelimit-reset']?.trim();
  if (value === undefined || !/^\d+$/.test(value)) return undefined; // RATE-01, RATE-02
  const reset = Number(value);
  const now = serverNow(exchange);
  const when = (seconds: number) => (seconds * 1000 < 8.64e15 ? new Date(seconds * 1000).toISOString() : 'beyond any date');
  if (reset < UNIX_TIME_FLOOR) return `X-RateLimit-Reset ${value}, which reads as seconds until the reset, not a Unix timestamp`;
  if (reset < now.seconds - now.slack) return `X-RateLimit-Reset ${value} (${when(reset)}), ${Math.round(now.seconds - reset)} s in the past by ${now.by}`;
  if (reset > now.seconds + LONGEST_WINDOW_S + now.slack) {
    const unit = reset > 1e11 ? '; a Unix timestamp counts seconds, not milliseconds' : '';
    return `X-RateLimit-Reset ${value} (${when(reset)}), more than a day ahead by ${now.by}${unit}`;
  }
  return undefined;
}

/** Why no step from one request to the next could be read: the headers it needs, or the order of the requests. */
function noStepReason(ctx: CheckContext, purpose: string): string {
  const counting = carrying(ctx, ['x-ratelimit-remaining', 'x-ratelimit-reset'], purpose);
  return responses(ctx).some(counting.applies)
    ? `no two requests fell in one window one after the other, so there is ${purpose}`
    : counting.nothing;
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
 * in that order, whatever the concurrency), in the same window (the same X-RateLimit-Reset). A 401 is left out:
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
    if (a.reset === undefined || a.reset !== b.reset) continue;
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

/** The plan of the spec a limit and window length match. */
function planOf(limit: number, windowSeconds: number | undefined): string {
  const perMinute: Record<number, string> = { 60: 'Free', 300: 'Pro', 1000: 'Business' };
  const perDay: Record<number, string> = { 1000: 'Free', 10_000: 'Pro', 100_000: 'Business' };
  if (windowSeconds !== undefined && windowSeconds <= 65) {
    return perMinute[limit] ? `the ${perMinute[limit]} plan (${limit} a minute)` : `no plan of the spec (${limit} a minute: Enterprise, custom?)`;
  }
  if (windowSeconds !== undefined && windowSeconds >= 3600) {
    return perDay[limit] ? `the daily limit of the ${perDay[limit]} plan (${limit} a day)` : `no plan of the spec (${limit} a day: Enterprise, custom?)`;
  }
  const guesses = [perMinute[limit] && `${perMinute[limit]} a minute`, perDay[limit] && `${perDay[limit]} a day`].filter(Boolean);
  return guesses.length > 0 ? `the ${guesses.join(' or the ')} figure` : 'no plan of the spec';
}

let probing: Promise<ProbeOutcome> | undefined;

/** The probe runs once, for whichever of RATE-07..12 comes first; RATE-07 is the probe's own rule. */
function theProbe(ctx: CheckContext): Promise<ProbeOutcome> {
  if (ctx.config.skip.includes('RATE-07')) throw new SkipCheck('the 429 probe is RATE-07, which --skip names');
  probing ??= provoke429(ctx);
  return probing;
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

describe('ratelimit', () => {
  check('RATE-01', async (ctx) => {
    const every = { applies: () => true, nothing: 'the run received no response, so there are no headers to judge' };
    await judgeEach(ctx, every, 'X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset', missingHeaders);
  });

  check('RATE-02', async (ctx) => {
    const anyHeader = {
      applies: (exchange: Exchange) => HEADERS.some((name) => exchange.response!.headers[name] !== undefined),
      nothing: 'no response carried any X-RateLimit-* header, so there is no value to judge (RATE-01 reports the missing headers)',
    };
    await judgeEach(ctx, anyHeader, 'each rate-limit header a non-negative integer', nonIntegerHeaders);
  });

  check('RATE-03', async (ctx) => {
    const both = carrying(ctx, ['x-ratelimit-limit', 'x-ratelimit-remaining'], 'nothing to compare');
    await judgeEach(ctx, both, 'X-RateLimit-Remaining no greater than X-RateLimit-Limit', remainingAboveLimit);
  });

  check('RATE-04', async (ctx) => {
    await ensureSamples(ctx);
    const all = keySteps(responses(ctx));
    if (all.length === 0) ctx.skip(noStepReason(ctx, 'no step to judge'));
    const steps = all.filter((step) => !inLastSecondBeforeReset(step.after));
    if (steps.length === 0) ctx.skip(`all ${all.length} step(s) from one request with the key to the next ended in the last second before X-RateLimit-Reset, where requests may be aging out of a sliding window`);
    // A listing answered 200 is surely counted; the spec leaves open which other operations are,
    // so for those Remaining may stay put, but it may never go up inside a window.
    const broken = steps.filter((step) => step.to > step.from
      || (step.to === step.from && step.from > 0 && operationOf(step.after, ctx.config.baseUrl) === 'listPets' && step.after.response!.status === 200));
    for (const [group, members] of groupExchanges(broken.map((step) => step.after), ctx.config.baseUrl, true)) {
      const step = broken.find((candidate) => candidate.after === members[0])!;
      ctx.violation({
        what: `${group}: ${members.length} request(s) with the key did not lower X-RateLimit-Remaining within one window (same X-RateLimit-Reset)`,
        expected: `X-RateLimit-Remaining below ${step.from} on the next request`, seen: `${step.to}`, exchanges: [step.before, step.after],
      });
    }
    const aside = all.length - steps.length;
    ctx.observe(`judged ${steps.length} step(s) from one request with the key to the next${aside > 0 ? `; ${aside} ending in the last second before their Reset set aside` : ''}`);
  });

  check('RATE-05', async (ctx) => {
    await judgeEach(ctx, carrying(ctx, ['x-ratelimit-reset'], 'nothing to judge'), 'X-RateLimit-Reset a Unix timestamp (seconds) at most a day ahead', resetNotATimestamp);
  });

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
  });

  check('RATE-07', async (ctx) => {
    const probe = await theProbe(ctx);
    if (probe.overLimit) {
      const { zero, accepted } = probe.overLimit;
      throw RuleViolation.of({
        expected: 'status 429 for a request sent after X-RateLimit-Remaining reached 0 in the same window',
        seen: `${accepted.response!.status} with X-RateLimit-Remaining ${accepted.response!.headers['x-ratelimit-remaining'] ?? '(none)'}`, exchanges: [zero, accepted],
      });
    }
    if (!probe.first429) ctx.skip(probe.inconclusive!);
    const position = probe.exchanges.filter((exchange) => exchange.seq <= probe.first429!.seq).length;
    ctx.observe(`X-RateLimit-Remaining was ${probe.startRemaining}; the probe sent ${probe.exchanges.length} request(s), the first 429 answered request ${position}`);
  });

  check('RATE-08', async (ctx) => {
    const limited = await the429(ctx);
    const value = responseOf(limited).headers['retry-after'];
    expectThat(value !== undefined, { expected: 'a Retry-After header on the 429', seen: 'none', exchanges: [limited] });
    expectThat(retryAfterForm(value) !== 'invalid', {
      expected: 'Retry-After as delta-seconds (e.g. 30) or an HTTP-date (e.g. Sun, 06 Nov 1994 08:49:37 GMT)', seen: `"${value}"`, exchanges: [limited],
    });
  });

  check('RATE-09', async (ctx) => {
    const limited = await the429(ctx);
    const body = expectSchema(limited, 'Error', 'the 429') as { status: unknown };
    expectThat(String(body.status) === '429', { expected: 'the 429\'s Error body to say "status": 429', seen: `"status": ${String(body.status)}`, exchanges: [limited] });
  });

  check('RATE-10', async (ctx) => {
    const limited = await the429(ctx);
    const missing = missingHeaders(limited);
    expectThat(missing === undefined, { expected: 'X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset on the 429', seen: missing ?? '', exchanges: [limited] });
    const remaining = responseOf(limited).headers['x-ratelimit-remaining']!.trim();
    expectThat(remaining === '0', { expected: 'X-RateLimit-Remaining 0 on the 429', seen: remaining, exchanges: [limited] });
  });

  check('RATE-11', async (ctx) => {
    if (!ctx.config.verifyRecovery) ctx.skip('checking recovery means waiting out the Retry-After of the probe\'s 429; run with --verify-recovery');
    const limited = await the429(ctx);
    const value = responseOf(limited).headers['retry-after'];
    if (value === undefined || retryAfterForm(value) === 'invalid') ctx.skip('the 429 carries no usable Retry-After (RATE-08), so there is no time to wait for');
    // The client holds this request back until Retry-After has passed, and says so on the terminal.
    const next = await ctx.client.send({ path: '/pets', query: { limit: '1' }, expect429: true });
    expectStatus(next, [200], `the first request after Retry-After: ${value}`);
  });

  check('RATE-12', async (ctx) => {
    const limited = await the429(ctx);
    const value = responseOf(limited).headers['retry-after'];
    const form = value === undefined ? 'absent' : retryAfterForm(value);
    ctx.observe(`Retry-After on the 429: ${value === undefined ? 'none' : `"${value}"`} (${form})`);
  });

  check('RATE-13', async (ctx) => {
    await ensureSamples(ctx);
    const judged = responses(ctx);
    const byOperation = new Map<string, { lowered: number; kept: number }>();
    for (const step of keySteps(judged)) {
      // Success and error apart: a server may count only what succeeded (the spec leaves that open).
      const answer = step.after.response!.status < 400 ? 'success' : 'error';
      const operation = `${operationOf(step.after, ctx.config.baseUrl) ?? describeExchange(step.after)} (${answer})`;
      const tally = byOperation.get(operation) ?? { lowered: 0, kept: 0 };
      if (step.to < step.from) tally.lowered += 1;
      else if (step.from > 0) tally.kept += 1;
      byOperation.set(operation, tally);
    }
    const anonymous = anonymousCounting(judged);
    if (byOperation.size === 0 && anonymous === undefined) {
      ctx.skip(noStepReason(ctx, 'no count to follow from one request to the next'));
    }
    for (const [operation, { lowered, kept }] of byOperation) {
      ctx.observe(`${operation} with the key: ${kept === 0 ? 'counted' : lowered === 0 ? 'not counted' : 'counted sometimes'} (${lowered} request(s) lowered X-RateLimit-Remaining, ${kept} left it)`);
    }
    ctx.observe(anonymous ?? 'requests without a valid key: not enough consecutive requests in one window to tell how they are counted');
  });
});

/**
 * Whether requests without a valid key share the key's count, have a bucket of their own, or are not counted:
 * read from each such request and the response answered just before it was sent, in the same window.
 */
function anonymousCounting(exchanges: readonly Exchange[]): string | undefined {
  const tally = { continuedKey: 0, apartFromKey: 0, lowered: 0, kept: 0 };
  const anonymous = exchanges.filter((exchange) => credentialOf(exchange.request.auth) !== 'key');
  for (const after of anonymous) {
    const before = exchanges.filter((candidate) => candidate.seq <= (after.sentAfter ?? -1)).at(-1);
    const [a, b] = [before && readRateLimitHeaders(before.response!.headers), readRateLimitHeaders(after.response!.headers)];
    if (!before || a?.remaining === undefined || b.remaining === undefined || a.reset !== b.reset) continue;
    if (credentialOf(before.request.auth) === 'key') {
      if (b.remaining === a.remaining - 1) tally.continuedKey += 1;
      else tally.apartFromKey += 1;
    } else if (b.remaining < a.remaining) tally.lowered += 1;
    else tally.kept += 1;
  }
  if (tally.continuedKey + tally.apartFromKey + tally.lowered + tally.kept === 0) return undefined;
  const how = tally.continuedKey > tally.apartFromKey ? 'counted with the key\'s requests'
    : tally.lowered > 0 ? 'counted in a bucket of their own'
      : tally.kept > 0 ? 'not counted' : 'kept apart from the key\'s count';
  return `requests without a valid key (${anonymous.length}): ${how} (after a request with the key: ${tally.continuedKey} continued its count, ${tally.apartFromKey} did not; `
    + `after one without: ${tally.lowered} lowered X-RateLimit-Remaining, ${tally.kept} left it)`;
}
