// The run-wide invariants that hold for one exchange at a time: what the spec says of *every* response, error
// or body, each owned by one rule. The errors and rate-limit suites judge them on every exchange of the run;
// the stateful exploration (FUZZ-03) judges each answer it gets as it comes, so that a broken answer fails the
// command that provoked it and fast-check can shrink to it. One definition each, so both judge alike.
// The invariants that need the exchanges around one (RATE-04, RATE-14, RATE-15) stay in the rate-limit suite.
import { answeredSuccess, type Exchange } from '../http/exchange.js';
import { parseHttpDate } from '../http/retry-after.js';
import { UNIX_TIME_FLOOR } from '../http/pacing.js';
import { asBigInt, isJsonObject } from '../json.js';
import { isJsonContentType, preview } from './expect.js';
import { validateSchema } from './schema.js';

/** One statement about every exchange it applies to, owned by one rule. */
export interface Invariant {
  readonly rule: string;
  /** What every exchange it applies to must show: the `expected` of a finding. */
  readonly expected: string;
  /** Whether the statement says anything of this exchange (an exchange without a response applies to none). */
  appliesTo(exchange: Exchange): boolean;
  /** What is wrong with an exchange it applies to, or undefined when the statement holds. */
  problem(exchange: Exchange): string | undefined;
}

/** An invariant broken by one exchange. */
export interface InvariantFinding {
  rule: string;
  expected: string;
  seen: string;
  exchange: Exchange;
}

function invariant(rule: string, expected: string, appliesTo: (exchange: Exchange) => boolean, problem: (exchange: Exchange) => string | undefined): Invariant {
  return { rule, expected, appliesTo: (exchange) => exchange.response !== undefined && appliesTo(exchange), problem };
}

// ── errors and bodies ──

/**
 * An error response to any request under the base URL: the spec says "every error response", so a framework's
 * 404 for an unknown path, a 405, a 413 or a front proxy's refusal count as much as a documented error. 429s
 * are left out: their body is "not shown", the rate-limit rules judge them. So are answers to HEAD, which
 * carry no body by definition and may leave out the headers a body would have set (RFC 9110 §9.3.2).
 */
export function isErrorResponse(exchange: Exchange): boolean {
  const status = exchange.response?.status ?? 0;
  return status >= 400 && status !== 429 && exchange.request.method !== 'HEAD';
}

/** The methods the spec names: GET and POST. Any other is one a server may not implement at all. */
const NAMED_METHODS: readonly string[] = ['GET', 'POST'];

/**
 * Whether a 5xx is RFC 9110's answer to a method the server does not implement: 501 "is the appropriate response
 * when the server does not recognize the request method" (§15.6.2), and a server that implements no DELETE
 * anywhere SHOULD send it (§9.1). For the methods the spec names it is a server error like any other.
 */
export function isNotImplementedMethod(exchange: Exchange): boolean {
  return exchange.response?.status === 501 && !NAMED_METHODS.includes(exchange.request.method);
}

/**
 * A success that carries a body: "Request and response bodies are application/json" holds for every body,
 * GET /store/orders included (its shape is not shown, its media type is). A 204 or an empty body has no
 * content type to judge: the status rules judge those answers.
 */
export function isSuccessWithBody(exchange: Exchange): boolean {
  return answeredSuccess(exchange) && exchange.response!.status !== 204 && exchange.response!.rawBody.length > 0;
}

/** An error whose Error body carries an integer status: the only ones ERR-03 can compare (a missing or mistyped one is ERR-02's). */
export function hasIntegerStatusField(exchange: Exchange): boolean {
  const json = exchange.response?.json;
  return isJsonObject(json) && asBigInt(json.status) !== undefined;
}

function contentTypeProblem(exchange: Exchange): string | undefined {
  const type = exchange.response!.headers['content-type'];
  return isJsonContentType(type) ? undefined : `content type ${type ?? '(none)'}`;
}

const JSON_TYPE = 'content type application/json (a charset parameter is fine)';

export const ERR_01 = invariant('ERR-01', JSON_TYPE, isErrorResponse, contentTypeProblem);

/**
 * A 429 that carries a body: its shape is not shown (RATE-09 asks for an Error, a SHOULD), but "Request and response
 * bodies are application/json" and "every error response has content type application/json" state its media type,
 * as they state that of GET /store/orders (ERR-05). An empty 429 has no content type to judge.
 */
export const RATE_18 = invariant('RATE-18', JSON_TYPE, (exchange) => exchange.response?.status === 429 && exchange.request.method !== 'HEAD' && exchange.response.rawBody.length > 0, contentTypeProblem);

export const ERR_02 = invariant('ERR-02', 'an Error body with code, message and status', isErrorResponse, (exchange) => {
  const { json, rawBody } = exchange.response!;
  if (json === undefined) return `a body that is not JSON: ${preview(rawBody, 80)}`;
  const problems = validateSchema('Error', json);
  return problems.length === 0 ? undefined : `${problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ')} in ${preview(rawBody, 120)}`;
});

export const ERR_03 = invariant('ERR-03', 'the Error status field equal to the HTTP status', (exchange) => isErrorResponse(exchange) && hasIntegerStatusField(exchange), (exchange) => {
  const { json, status } = exchange.response!;
  const field = asBigInt((json as Record<string, unknown>).status)!;
  return field === BigInt(status) ? undefined : `"status": ${field} in a ${status} response`;
});

export const ERR_04 = invariant('ERR-04', 'a status below 500', (exchange) => !isNotImplementedMethod(exchange), (exchange) => {
  const { status, rawBody } = exchange.response!;
  return status >= 500 ? `status ${status} to a request ${exchange.request.body === undefined ? 'without a body' : `with the body ${preview(exchange.request.body, 80)}`}; answered ${preview(rawBody, 80)}` : undefined;
});

/**
 * A success body must be application/json in what it says and in what it is: a body labelled JSON that does not parse
 * (gzip inside gzip, HTML behind a JSON label, a cut-off page) is no JSON body a client can read.
 */
export const ERR_05 = invariant('ERR-05', `${JSON_TYPE}, and a body that is JSON`, isSuccessWithBody, (exchange) => {
  const typeProblem = contentTypeProblem(exchange);
  if (typeProblem) return typeProblem;
  const { json, jsonError, rawBody, headers } = exchange.response!;
  if (json !== undefined) return undefined;
  const coding = headers['content-encoding'] ? ` (Content-Encoding: ${headers['content-encoding']})` : '';
  return `a body labelled application/json that is not JSON${coding}: ${jsonError ?? 'it does not parse'}; it begins ${preview(rawBody, 60)}`;
});

// ── rate-limit headers ──

export const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
export type RateLimitHeader = (typeof RATE_LIMIT_HEADERS)[number];
export const SHOWN_HEADER: Record<RateLimitHeader, string> = {
  'x-ratelimit-limit': 'X-RateLimit-Limit', 'x-ratelimit-remaining': 'X-RateLimit-Remaining', 'x-ratelimit-reset': 'X-RateLimit-Reset',
};
// The spec's plans include daily limits, so a Reset up to a day ahead is "near".
const LONGEST_WINDOW_S = 86_400;
// Without a Date header, Reset is read against our clock, which may differ from the server's.
const CLOCK_SKEW_S = 300;

/** Whether a response carries every one of `names` as a non-negative integer. */
export function carriesIntegers(exchange: Exchange, names: readonly RateLimitHeader[]): boolean {
  return names.every((name) => /^\d+$/.test(exchange.response?.headers[name]?.trim() ?? ''));
}

/** The server's "now" for a response: its Date header (then to the second), or our clock when it sends none. */
export function serverNow(exchange: Exchange): { seconds: number; slack: number; by: string } {
  const date = exchange.response!.headers.date;
  const dateMs = date === undefined ? undefined : parseHttpDate(date, Date.parse(exchange.startedAt));
  if (dateMs !== undefined) return { seconds: dateMs / 1000, slack: 1, by: 'its Date header' };
  return { seconds: (Date.parse(exchange.startedAt) + exchange.durationMs) / 1000, slack: CLOCK_SKEW_S, by: 'our clock (no Date header)' };
}

export const RATE_01 = invariant('RATE-01', 'X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset', () => true, (exchange) => {
  const missing = RATE_LIMIT_HEADERS.filter((name) => exchange.response!.headers[name] === undefined).map((name) => SHOWN_HEADER[name]);
  return missing.length > 0 ? `no ${missing.join(', ')}` : undefined;
});

export const RATE_02 = invariant('RATE-02', 'each rate-limit header a non-negative integer',
  (exchange) => RATE_LIMIT_HEADERS.some((name) => exchange.response!.headers[name] !== undefined),
  (exchange) => {
    const headers = exchange.response!.headers;
    const bad = RATE_LIMIT_HEADERS.filter((name) => headers[name] !== undefined && !/^\d+$/.test(headers[name]!.trim()));
    return bad.length > 0 ? bad.map((name) => `${SHOWN_HEADER[name]}: "${headers[name]}"`).join(', ') : undefined;
  });

export const RATE_03 = invariant('RATE-03', 'X-RateLimit-Remaining no greater than X-RateLimit-Limit',
  (exchange) => carriesIntegers(exchange, ['x-ratelimit-limit', 'x-ratelimit-remaining']),
  (exchange) => {
    const headers = exchange.response!.headers;
    const [limit, remaining] = [headers['x-ratelimit-limit']!.trim(), headers['x-ratelimit-remaining']!.trim()];
    return BigInt(remaining) > BigInt(limit) ? `X-RateLimit-Remaining ${remaining} above X-RateLimit-Limit ${limit}` : undefined;
  });

export const RATE_05 = invariant('RATE-05', 'X-RateLimit-Reset a Unix timestamp (seconds) at most a day ahead',
  (exchange) => carriesIntegers(exchange, ['x-ratelimit-reset']),
  (exchange) => {
    const value = exchange.response!.headers['x-ratelimit-reset']!.trim();
    const reset = Number(value);
    const now = serverNow(exchange);
    const when = (seconds: number) => (seconds * 1000 < 8.64e15 ? new Date(seconds * 1000).toISOString() : 'beyond any date');
    if (reset < UNIX_TIME_FLOOR) return `X-RateLimit-Reset ${value}, which reads as seconds until the reset, not a Unix timestamp`;
    // A server may compute its headers when the request arrives and answer after a stall (a freedom the spec leaves):
    // a Reset is in the past only when it was past before the request was even sent.
    const sent = now.seconds - exchange.durationMs / 1000;
    if (reset < sent - now.slack) return `X-RateLimit-Reset ${value} (${when(reset)}), ${Math.round(now.seconds - reset)} s in the past by ${now.by}, before the request was sent`;
    if (reset > now.seconds + LONGEST_WINDOW_S + now.slack) {
      const unit = reset > 1e11 ? '; a Unix timestamp counts seconds, not milliseconds' : '';
      return `X-RateLimit-Reset ${value} (${when(reset)}), more than a day ahead by ${now.by}${unit}`;
    }
    return undefined;
  });

/** Every invariant that one exchange can be judged by, in catalog order. */
export const EXCHANGE_INVARIANTS: readonly Invariant[] = [ERR_01, ERR_02, ERR_03, ERR_04, ERR_05, RATE_01, RATE_02, RATE_03, RATE_05];

/** The invariant's finding on one exchange, or undefined when it holds or says nothing of it. */
export function judgeInvariant(rule: Invariant, exchange: Exchange): InvariantFinding | undefined {
  if (!rule.appliesTo(exchange)) return undefined;
  const seen = rule.problem(exchange);
  return seen === undefined ? undefined : { rule: rule.rule, expected: rule.expected, seen, exchange };
}

/** What every invariant finds on one exchange: nothing on an answer that keeps them all. */
export function invariantFindings(exchange: Exchange): InvariantFinding[] {
  return EXCHANGE_INVARIANTS.flatMap((rule) => judgeInvariant(rule, exchange) ?? []);
}
