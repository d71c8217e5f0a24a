import { admittedRanges, admitsJson } from './accept.js';
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
  /**
   * What is wrong: the address (the client then looks once at the other likely base URL), the key, or a
   * proxy that refused to carry the run.
   */
  cause: 'address' | 'key' | 'proxy';
}

/** Only the start of a run is read: later on a 404 or a 401 is something a check provoked, and judges. */
export const DIAGNOSED_WITHIN = 8;
/** Answers with the key, all 401, after which the key (not the server) is taken to be wrong. */
const REFUSED_KEY_ANSWERS = 3;
/** How the diagnosis of a refused key begins: the client names the proxy in it when a proxy may be the one refusing. */
export const EVERY_KEY_REFUSED = 'every request with the key was answered 401';
const LOGIN_PATH = /(log-?in|sign-?in|auth|sso|oauth|saml|session)/i;

/**
 * Reads the run's first exchanges for a target that cannot be judged. A conforming server answers GET /pets
 * with a valid key 200 with JSON, so a 404 there or an HTML page there, or a redirect to a login page
 * anywhere, say the base URL is wrong; 401 to every request with the key says the key is. A 429 or a 5xx
 * says neither. An HTML page elsewhere (a path no operation has, a request that asked for HTML, the orders of
 * a run that sends nothing else) may be the server's own defect, which the run then judges.
 */
export function diagnoseEarlyAnswers(exchanges: readonly Exchange[], baseUrl: string): Diagnosis | undefined {
  const early = exchanges.filter((exchange) => exchange.seq <= DIAGNOSED_WITHIN && exchange.response);
  for (const exchange of early) {
    const response = exchange.response!;
    const url = new URL(exchange.request.url);
    const listsWithKey = exchange.request.method === 'GET' && pathOf(exchange, baseUrl) === '/pets' && withKey(exchange);
    const seen = `${exchange.request.method} ${url.pathname} answered ${response.status}`;
    if (listsWithKey && response.status === 404) {
      return { problem: `${seen} with the key: no Pet Store API at this address`, hint: baseUrlHint(baseUrl), seq: exchange.seq, cause: 'address' };
    }
    if (listsWithKey && asksForJsonOnly(exchange.request.headers.accept) && response.status >= 200 && response.status <= 299 && isHtml(response)) {
      return { problem: `${seen} with an HTML page where JSON is expected: this address serves a website, not the API`, hint: baseUrlHint(baseUrl), seq: exchange.seq, cause: 'address' };
    }
    const location = response.headers.location;
    if (response.status >= 300 && response.status <= 399 && location && LOGIN_PATH.test(location)) {
      return { problem: `${seen}, redirecting to a login page (${location}): a sign-in proxy stands in front of this address`, hint: baseUrlHint(baseUrl), seq: exchange.seq, cause: 'address' };
    }
  }
  return refusedKey(early, baseUrl, REFUSED_KEY_ANSWERS);
}

/**
 * After a run too short for the early reading (`--only LIST-01` sends one request with the key): every request of
 * the whole run with the key answered 401, GET /pets among them, says the key is refused, not that the rules failed.
 */
export function diagnoseRefusedKeyOverRun(exchanges: readonly Exchange[], baseUrl: string): Diagnosis | undefined {
  return refusedKey(exchanges.filter((exchange) => exchange.response), baseUrl, 1);
}

/**
 * Whether a run ended with every request it sent with the key answered 401 (429s aside), none of them GET /pets
 * (`--only store`): one GET /pets with the key then tells a key of another environment, which it refuses too, from
 * one operation refusing a good key (a gateway before the orders), which its rule judges. A replay reads the same
 * exchanges, so it sends the same request, and finds its answer recorded.
 */
export function wantsListingForRefusedKey(exchanges: readonly Exchange[], baseUrl: string): boolean {
  const { answers, allRefused, listed } = keyAnswers(exchanges.filter((exchange) => exchange.response), baseUrl);
  return answers.length > 0 && allRefused && !listed;
}

/**
 * At least `fewest` answers to requests with the key, 429s aside, every one 401, GET /pets among them: one
 * operation refusing a good key (a defect of that operation, `--only store` behind a gateway) is judged by its rule.
 */
function refusedKey(answered: readonly Exchange[], baseUrl: string, fewest: number): Diagnosis | undefined {
  const { answers, allRefused, listed } = keyAnswers(answered, baseUrl);
  if (!listed || answers.length < fewest || !allRefused) return undefined;
  return {
    problem: `${EVERY_KEY_REFUSED} (${answers.length} of ${answers.length})`,
    hint: 'is the key right, or is it for another environment? Set PETSTORE_API_KEY to a key of this server (and check --base-url names the environment the key is for)',
    seq: answers.at(-1)!.seq,
    cause: 'key',
  };
}

/** The answers to requests with the key, 429s aside (a rate limit says nothing of the key); whether each is 401; whether GET /pets is among them. */
function keyAnswers(answered: readonly Exchange[], baseUrl: string): { answers: Exchange[]; allRefused: boolean; listed: boolean } {
  const answers = answered.filter((exchange) => withKey(exchange) && exchange.response!.status !== 429);
  return {
    answers,
    allRefused: answers.every((exchange) => exchange.response!.status === 401),
    listed: answers.some((exchange) => exchange.request.method === 'GET' && pathOf(exchange, baseUrl) === '/pets'),
  };
}

/** The path below the base URL: "/pets" for …/v1/pets?limit=1. */
function pathOf(exchange: Exchange, baseUrl: string): string {
  return new URL(exchange.request.url).pathname.slice(new URL(baseUrl).pathname.replace(/\/+$/, '').length);
}

/**
 * Whether a request asked as the API's clients do: for JSON (no Accept header admits anything), and not for
 * HTML, as a browser's Accept does. A server may answer such a request with HTML only when it is no API at all.
 */
function asksForJsonOnly(accept: string | undefined): boolean {
  return admitsJson(accept) && (accept === undefined || !admittedRanges(accept).includes('text/html'));
}

function withKey(exchange: Exchange): boolean {
  return exchange.request.auth === 'key';
}

export function isHtml(response: RecordedResponse): boolean {
  return /^text\/html\b/i.test(response.headers['content-type'] ?? '') || /^\s*<(!doctype html|html)\b/i.test(response.rawBody);
}

/** Before the one look at the other likely base URL (see hintAfterLooking): what the address alone says. */
function baseUrlHint(baseUrl: string): string {
  const other = otherBaseUrl(baseUrl);
  return endsInV1(baseUrl)
    ? `--base-url must be the base address of the Pet Store API, where GET /pets lists the pets (is it ${other}?)`
    : `check --base-url: it must be the API's base address, where GET /pets lists the pets (did you mean --base-url ${other}?)`;
}

function endsInV1(baseUrl: string): boolean {
  return /\/v1\/*$/.test(new URL(baseUrl).pathname);
}

/**
 * The one other base URL worth a look when the address is wrong: the spec's servers end in /v1, so without
 * it when the run's has it (a server serving at its root), with it when the run's has not.
 */
export function otherBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return endsInV1(baseUrl) ? trimmed.replace(/\/v1$/, '') : `${trimmed}/v1`;
}

/** Whether an answer to GET /pets is the API's: 200 with a JSON array, what a conforming server lists. */
export function listsPets(response: RecordedResponse | undefined): boolean {
  return response?.status === 200 && Array.isArray(response.json);
}

/**
 * The hint once the client has looked at the other likely base URL, with the key: proposed only when the
 * API answered there, so the hint never names an address as right that is not.
 */
export function hintAfterLooking(other: string, look: Exchange): string {
  const asked = `GET ${new URL(look.request.url).pathname}`;
  if (listsPets(look.response)) return `the Pet Store API answers at ${other} (${asked} listed pets): did you mean --base-url ${other}?`;
  const seen = look.response ? `answered ${look.response.status}${look.response.status === 200 ? ' without a list of pets' : ''}` : `failed (${look.error ?? 'no answer'})`;
  return `--base-url must be the base address of the Pet Store API, where GET /pets lists the pets; ${other} is not it either (${asked} ${seen})`;
}
