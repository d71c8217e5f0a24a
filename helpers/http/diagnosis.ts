import type { Exchange, RecordedResponse } from './exchange.js';

/**
 * The first answers show the run is aimed at the wrong thing (a base URL without /v1, a website, a login
 * proxy, a key from another environment): judging rule by rule would print every rule failed for one
 * cause. The run stops instead, with this, and exit code 3.
 */
export interface Diagnosis {
  /** What was seen, in one sentence. */
  problem: string;
  /** What to change, naming the option. */
  hint: string;
  /** The exchange that showed it (the last of them, for "every request answered 401"). */
  seq: number;
}

/** Only the start of a run is read: later on a 404 or a 401 is something a check provoked, and judges. */
export const DIAGNOSED_WITHIN = 8;
/** Answers with the key, all 401, after which the key (not the server) is taken to be wrong. */
const REFUSED_KEY_ANSWERS = 3;
const LOGIN_PATH = /(log-?in|sign-?in|auth|sso|oauth|saml|session)/i;

/**
 * Reads the run's first exchanges for a target that cannot be judged. A conforming server answers GET /pets
 * with a valid key 200 with JSON, so a 404 there, an HTML page on a success, or a redirect to a login page
 * say the base URL is wrong; 401 to every request with the key says the key is. A 429 or a 5xx says neither.
 */
export function diagnoseEarlyAnswers(exchanges: readonly Exchange[], baseUrl: string): Diagnosis | undefined {
  const early = exchanges.filter((exchange) => exchange.seq <= DIAGNOSED_WITHIN && exchange.response);
  for (const exchange of early) {
    const response = exchange.response!;
    const url = new URL(exchange.request.url);
    const path = pathOf(exchange, baseUrl);
    const seen = `${exchange.request.method} ${url.pathname} answered ${response.status}`;
    if (exchange.request.method === 'GET' && path === '/pets' && withKey(exchange) && response.status === 404) {
      return { problem: `${seen} with the key: no Pet Store API at this address`, hint: baseUrlHint(baseUrl), seq: exchange.seq };
    }
    if (response.status >= 200 && response.status <= 299 && isHtml(response)) {
      return { problem: `${seen} with an HTML page where JSON is expected: this address serves a website, not the API`, hint: baseUrlHint(baseUrl), seq: exchange.seq };
    }
    const location = response.headers.location;
    if (response.status >= 300 && response.status <= 399 && location && LOGIN_PATH.test(location)) {
      return { problem: `${seen}, redirecting to a login page (${location}): a sign-in proxy stands in front of this address`, hint: baseUrlHint(baseUrl), seq: exchange.seq };
    }
  }
  // GET /pets among them: one operation refusing a good key (a defect of that operation) is judged by its rule.
  const withTheKey = early.filter((exchange) => withKey(exchange) && exchange.response!.status !== 429);
  const listed = withTheKey.some((exchange) => exchange.request.method === 'GET' && pathOf(exchange, baseUrl) === '/pets');
  if (listed && withTheKey.length >= REFUSED_KEY_ANSWERS && withTheKey.every((exchange) => exchange.response!.status === 401)) {
    return {
      problem: `every request with the key was answered 401 (${withTheKey.length} of ${withTheKey.length})`,
      hint: 'is the key right, or is it for another environment? Set PETSTORE_API_KEY to a key of this server (and check --base-url names the environment the key is for)',
      seq: withTheKey.at(-1)!.seq,
    };
  }
  return undefined;
}

/** The path below the base URL: "/pets" for …/v1/pets?limit=1. */
function pathOf(exchange: Exchange, baseUrl: string): string {
  return new URL(exchange.request.url).pathname.slice(new URL(baseUrl).pathname.replace(/\/+$/, '').length);
}

function withKey(exchange: Exchange): boolean {
  return exchange.request.auth === 'key';
}

function isHtml(response: RecordedResponse): boolean {
  return /^text\/html\b/i.test(response.headers['content-type'] ?? '') || /^\s*<(!doctype html|html)\b/i.test(response.rawBody);
}

function baseUrlHint(baseUrl: string): string {
  const withV1 = /\/v1$/.test(new URL(baseUrl).pathname) ? undefined : `${baseUrl.replace(/\/+$/, '')}/v1`;
  return withV1
    ? `check --base-url: it must be the API's base address, ending in /v1 (did you mean --base-url ${withV1}?)`
    : '--base-url must be the base address of the Pet Store API (where GET /pets lists the pets), ending in /v1';
}
