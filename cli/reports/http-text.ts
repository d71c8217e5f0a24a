import { STATUS_CODES } from 'node:http';
import type { RecordedRequest, RecordedResponse } from '../../helpers/http/exchange.js';

// Headers whose value changes on every request and judges nothing: masked so two reports of the same
// behaviour read the same. Rate-limit headers stay: they are evidence of the ratelimit rules.
const VOLATILE_HEADERS = new Set([
  'date', 'age', 'expires', 'x-request-id', 'request-id', 'x-correlation-id', 'traceparent', 'tracestate',
  'x-amzn-trace-id', 'cf-ray', 'server-timing', 'x-runtime', 'x-response-time',
]);

export const MASKED = '‹masked: varies per request›';

// A body is shown up to this many characters; the whole of it is in report.json and exchanges.har.
const SHOWN_BODY_CHARS = 16_384;

/** The request as it went on the wire, in HTTP/1.1 message form. */
export function requestText(request: RecordedRequest): string {
  const url = new URL(request.url);
  const head = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, ...headerLines(request.headers)];
  return withBody(head, request.body);
}

/** The response in HTTP/1.1 message form, volatile headers masked. */
export function responseText(response: RecordedResponse): string {
  const head = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd(), ...headerLines(response.headers)];
  return withBody(head, response.rawBody, response.truncated);
}

function headerLines(headers: Record<string, string>): string[] {
  return Object.entries(headers).map(([name, value]) => `${name}: ${VOLATILE_HEADERS.has(name.toLowerCase()) ? MASKED : value}`);
}

function withBody(head: string[], body: string | undefined, truncated = false): string {
  if (body === undefined || body === '') return head.join('\n');
  const shown = readable(body);
  const cut = shown.length > SHOWN_BODY_CHARS ? `${shown.slice(0, SHOWN_BODY_CHARS)}\n… ${shown.length - SHOWN_BODY_CHARS} more characters in exchanges.har` : shown;
  return `${head.join('\n')}\n\n${cut}${truncated ? '\n… body cut at --max-response-bytes' : ''}`;
}

/**
 * One-line JSON is indented for reading. Only whitespace between tokens changes: every number,
 * escape and key is shown exactly as the server sent it, since those bytes may be the evidence.
 */
export function readable(body: string): string {
  if (body.includes('\n') || body.length > 4 * SHOWN_BODY_CHARS || !isJson(body)) return body;
  let out = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (const char of body) {
    if (inString) {
      out += char;
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '{' || char === '[') {
      depth += 1;
      out += char + newline();
    } else if (char === '}' || char === ']') {
      depth -= 1;
      out += newline() + char;
    } else if (char === ',') {
      out += `,${newline()}`;
    } else if (char === ':') {
      out += ': ';
    } else if (!/\s/.test(char)) {
      out += char;
    }
  }
  // Valid JSON has no raw newline inside a string, so this only touches empty {} and [].
  return out.replace(/([{[])\n\s*([}\]])/g, '$1$2');
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
