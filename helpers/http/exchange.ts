import { isJsonObject, parseJson, type Json } from '../json.js';
import { KEY_PLACEHOLDER, swapCase } from './redact.js';

/** How a request authenticates: the checks of the auth area send every broken form on purpose. */
export type AuthMode =
  | 'key' // Authorization: Bearer <key>
  | 'none' // no Authorization header
  | 'empty-bearer' // Authorization: Bearer
  | 'unknown-key' // Bearer with a key no server issued
  | 'key-plus-char' // Bearer with the key and one character more
  | 'key-minus-char' // Bearer with the key without its last character
  | 'key-case-swapped' // Bearer with the key's letters in the other case
  | 'basic' // the key under the Basic scheme, base64(key:) as RFC 7617 writes it
  | 'basic-raw' // the key under the Basic scheme, not encoded
  | 'token-scheme' // the key under the Token scheme (Django REST framework, Rails)
  | 'bare' // the key with no scheme
  | 'lowercase-bearer' // bearer <key>: RFC 9110 makes the scheme case-insensitive
  | 'bearer-no-space' // Bearer<key>: the scheme and the key with no space between them
  // No Authorization header; the key where auth libraries also look for one (AUTH-10):
  | 'key-elsewhere' // in the query parameters, cookies and headers below, all at once
  | 'key-in-query' // in the query parameters only
  | 'key-in-cookie' // in the cookies only
  | 'key-in-headers'; // in the headers only

/** The key a server cannot know: recognisable in its logs as ours. */
export const UNKNOWN_KEY = 'petstore-conformance-unknown-key-0000';

/** The placeholder's variable name, for shell expansions of it: PETSTORE_API_KEY. */
const KEY_VARIABLE = KEY_PLACEHOLDER.slice(1);

/** The Authorization header for a mode: its real value (sent) and its printable form (recorded). */
export function authorizationFor(mode: AuthMode, key: string): { value?: string; shown?: string } {
  // Shown forms are shell text, so that the curl line reproduces the credential without printing the key.
  // No double quotes inside them: curlFor escapes those, and they would become part of the value.
  switch (mode) {
    case 'key': return { value: `Bearer ${key}`, shown: `Bearer ${KEY_PLACEHOLDER}` };
    case 'none': return {};
    case 'empty-bearer': return { value: 'Bearer ', shown: 'Bearer ' };
    case 'unknown-key': return { value: `Bearer ${UNKNOWN_KEY}`, shown: `Bearer ${UNKNOWN_KEY}` };
    case 'key-plus-char': return { value: `Bearer ${key}x`, shown: `Bearer \${${KEY_VARIABLE}}x` };
    case 'key-minus-char': return { value: `Bearer ${key.slice(0, -1)}`, shown: `Bearer \${${KEY_VARIABLE}%?}` };
    case 'key-case-swapped': return { value: `Bearer ${swapCase(key)}`, shown: `Bearer $(printf %s ${KEY_PLACEHOLDER} | tr a-zA-Z A-Za-z)` };
    case 'basic': return { value: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, shown: `Basic $(printf %s: ${KEY_PLACEHOLDER} | base64)` };
    case 'basic-raw': return { value: `Basic ${key}`, shown: `Basic ${KEY_PLACEHOLDER}` };
    case 'token-scheme': return { value: `Token ${key}`, shown: `Token ${KEY_PLACEHOLDER}` };
    case 'bare': return { value: key, shown: KEY_PLACEHOLDER };
    case 'lowercase-bearer': return { value: `bearer ${key}`, shown: `bearer ${KEY_PLACEHOLDER}` };
    case 'bearer-no-space': return { value: `Bearer${key}`, shown: `Bearer\${${KEY_VARIABLE}}` };
    case 'key-elsewhere': case 'key-in-query': case 'key-in-cookie': case 'key-in-headers': return {};
  }
}

/**
 * Where auth libraries read a key from besides the Authorization header: the query parameters of OpenAPI's
 * `apiKey in: query` (Swagger's own Petstore uses api_key), Google's `key`, RFC 6750's `access_token`; the
 * cookies express-jwt and session fallbacks read; the headers of API gateways (AWS API Gateway and Kong read
 * x-api-key or apikey, Azure api-key, OpenStack x-auth-token).
 */
export const KEY_PLACES = {
  query: ['api_key', 'apiKey', 'apikey', 'api-key', 'key', 'access_token', 'token'],
  cookie: ['api_key', 'apiKey', 'access_token', 'token'],
  headers: ['x-api-key', 'apikey', 'api-key', 'x-auth-token'],
} as const;

/** A part of a request that carries the key outside Authorization: its value on the wire and its printable form. */
interface Placed {
  value: string;
  shown: string;
}

/**
 * The key outside the Authorization header, for the modes of AUTH-10: the query string to append and the headers
 * to add, each with the form sent and the form recorded (the key as $PETSTORE_API_KEY, which curlFor expands).
 */
export function keyElsewhereFor(mode: AuthMode, key: string): { query?: Placed; headers: Record<string, Placed> } {
  const all = mode === 'key-elsewhere';
  const headers: Record<string, Placed> = {};
  if (all || mode === 'key-in-cookie') {
    const cookie = (value: string) => KEY_PLACES.cookie.map((name) => `${name}=${value}`).join('; ');
    headers.cookie = { value: cookie(encodeURIComponent(key)), shown: cookie(KEY_PLACEHOLDER) };
  }
  if (all || mode === 'key-in-headers') for (const name of KEY_PLACES.headers) headers[name] = { value: key, shown: KEY_PLACEHOLDER };
  if (!all && mode !== 'key-in-query') return { headers };
  const query = (value: string) => KEY_PLACES.query.map((name) => `${name}=${value}`).join('&');
  return { query: { value: query(encodeURIComponent(key)), shown: query(KEY_PLACEHOLDER) }, headers };
}

export interface RecordedRequest {
  method: string;
  url: string;
  /** Header names lower-cased; Authorization holds its printable, redacted form. */
  headers: Record<string, string>;
  body?: string;
  auth: AuthMode;
  /**
   * Spaces sent after the body's first character and left out of `body`, so that a body of a few MiB stays a
   * line in the reports: JSON whitespace changes nothing of what the body means, and curlFor sends it again.
   */
  padBytes?: number;
  /** The path went as written, dot segments and doubled slashes included (curl needs --path-as-is to do the same). */
  pathAsIs?: true;
  /**
   * The request sent just before it on the same kept-alive connection (REQ-09): what a server left unread of that
   * one meets this one, so the curl line sends both on one connection (curl --next).
   */
  after?: RecordedRequest;
  /** The request went over TLS with the client certificate of --cert: the curl line presents it too. */
  clientCertificate?: true;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as text (decoded when it came compressed); past 16 KiB only the start is kept, with a note of the rest. */
  rawBody: string;
  /** How many bytes the body held (decoded), when rawBody keeps only its start. */
  bodyBytes?: number;
  /** The body parsed losslessly, when it is JSON, as the record keeps it (a string past 4 KiB cut, response-body.ts). */
  json?: Json;
  /** Why the body is not JSON, when it is not. */
  jsonError?: string;
  truncated: boolean;
}

/** One request and what came back: immutable evidence. */
export interface Exchange {
  readonly seq: number;
  /**
   * How many exchanges had completed when this request was sent: those (seq <= sentAfter) were answered
   * before this one left, an order the rate-limit checks can trust where millisecond clocks cannot.
   */
  readonly sentAfter?: number;
  /** The rule whose check sent it, for per-area request counts. */
  readonly rule?: string;
  readonly request: RecordedRequest;
  readonly response?: RecordedResponse;
  /** Transport failure: refused, reset, timed out, too large. */
  readonly error?: string;
  /**
   * The request failed on a kept-alive connection the server had closed, before any byte of its answer (or
   * before it was written to one at all), and was sent again on a new connection: the next exchange is that
   * attempt, and this one judges nothing.
   */
  readonly retried?: true;
  readonly startedAt: string;
  readonly durationMs: number;
}

/**
 * A curl line that reproduces the request, with the key left as a shell variable. HEAD is `curl -I`: `-X HEAD` makes
 * curl wait for the body a Content-Length announces, which never comes, until the server closes (curl says so too).
 */
export function curlFor(request: RecordedRequest): string {
  const { after, ...alone } = request;
  // curl keeps the connection for the URL after --next: the earlier request's bytes go first on it, as they did in the run.
  if (after && !after.padBytes) return `${curlOf(after)} --next ${curlOf(alone).replace(/^curl /, '')}`;
  return curlOf(alone);
}

/**
 * What a curl line presents the client certificate with: the variables of --cert and --cert-key, which hold the
 * files' paths (as CI sets them), never the key itself.
 */
const CLIENT_CERTIFICATE_ARGUMENTS = ['--cert', '"$PETSTORE_CERT"', '--key', '"$PETSTORE_CERT_KEY"'];

function curlOf(request: RecordedRequest): string {
  const parts = request.method === 'HEAD' ? ['curl', '-I', ...(request.pathAsIs ? ['--path-as-is'] : []), shellText(request.url)] : ['curl', '-i', '-X', request.method, ...(request.pathAsIs ? ['--path-as-is'] : []), shellText(request.url)];
  if (request.clientCertificate) parts.push(...CLIENT_CERTIFICATE_ARGUMENTS);
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'authorization') parts.push('-H', `"Authorization: ${value.replace(/(["\\`])/g, '\\$1')}"`);
    else if (name !== 'content-length' && name !== 'host') parts.push('-H', shellText(`${name}: ${value}`));
  }
  // curl sends Accept: */* of its own; a request sent without Accept must go without it.
  if (request.headers.accept === undefined) parts.push('-H', shellQuote('Accept:'));
  // And a form's Content-Type with --data-binary: a body sent without one must go without it too.
  if (request.body !== undefined && request.headers['content-type'] === undefined) parts.push('-H', shellQuote('Content-Type:'));
  if (request.body === undefined) return parts.join(' ');
  if (!request.padBytes) {
    const shown = printableBody(request.body);
    if (shown !== undefined) return [...parts, '--data-binary', shellQuote(shown)].join(' ');
    // Bytes no terminal may be handed raw, in a body that is not JSON: printf writes them from their octal escapes.
    return `printf ${shellQuote(octalEscaped(request.body))} | ${[...parts, '--data-binary', '@-'].join(' ')}`;
  }
  // curl asks a body of a MiB or more to be awaited (Expect: 100-continue), which the run never did: the server must
  // meet the body as the run sent it.
  parts.push('-H', shellQuote('Expect:'));
  const [first, rest] = [request.body.slice(0, 1), request.body.slice(1)];
  const body = `{ printf %s ${shellQuote(first)}; head -c ${request.padBytes} /dev/zero | tr '\\0' ' '; printf %s ${shellQuote(rest)}; }`;
  return `${body} | ${[...parts, '--data-binary', '@-'].join(' ')}`;
}

/**
 * C0 controls (but tab and line breaks, which a caller keeps or marks itself), DEL, C1 controls (U+009B is a one-byte
 * CSI), the bidirectional overrides and isolates (which reorder what a reader sees), and the Unicode line and paragraph
 * separators: a terminal acts on them. No printed curl line carries them raw, and cli/reports/safe-text.ts shows
 * them as marks wherever a target's text is shown.
 */
export const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * The body as a line can carry it: as it is, or, when it is JSON, with each unprintable character written as its
 * \uXXXX escape (in JSON they stand only inside strings, where the escape means the same character). Undefined
 * when the body holds such characters and is not JSON.
 */
function printableBody(body: string): string | undefined {
  if (body.search(TERMINAL_CONTROLS) === -1) return body;
  try {
    parseJson(body);
  } catch {
    return undefined;
  }
  return body.replace(TERMINAL_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The text as a printf format: each byte of an unprintable character (and of a backslash or a percent sign) as an octal escape. */
function octalEscaped(text: string): string {
  return text.replace(new RegExp(`[\\\\%]|${TERMINAL_CONTROLS.source}`, 'g'), (char) => [...Buffer.from(char, 'utf8')].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join(''));
}

/**
 * The variables a recorded request names in place of a secret: the key's, and each --header's
 * (PETSTORE_HEADER_<NAME>, helpers/http/extra-headers.ts).
 */
const SECRET_VARIABLE = /\\\$(PETSTORE_API_KEY|PETSTORE_HEADER_[A-Z0-9_]+)/g;

/** Text quoted for the shell: as it is, or with $PETSTORE_API_KEY (or a header's variable) expanded where the secret was. */
function shellText(text: string): string {
  if (!/\$PETSTORE_(?:API_KEY|HEADER_)/.test(text)) return shellQuote(text);
  const escaped = text.replace(/(["\\`$])/g, '\\$1');
  return `"${escaped.replace(SECRET_VARIABLE, '${$1}')}"`;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A short one-line description for messages: "GET /v1/pets?limit=0 → 500". */
export function describeExchange(exchange: Exchange): string {
  const path = new URL(exchange.request.url).pathname + new URL(exchange.request.url).search;
  const outcome = exchange.response ? String(exchange.response.status) : `no response (${exchange.error ?? 'unknown'})`;
  return `${exchange.request.method} ${path} → ${outcome}`;
}

/** Whether the target answered with a 2xx: what "created" or "served" means before the body is judged. */
export function answeredSuccess(exchange: Exchange): boolean {
  const status = exchange.response?.status ?? 0;
  return status >= 200 && status <= 299;
}

/** The id a successful POST answered, as text: how the run recognises a pet it created wherever it is listed. */
export function createdIdOf(exchange: Exchange): string | undefined {
  if (exchange.request.method !== 'POST' || !answeredSuccess(exchange)) return undefined;
  const body = exchange.response?.json;
  const id = isJsonObject(body) ? body.id : undefined;
  return id === undefined || id === null ? undefined : String(id);
}
