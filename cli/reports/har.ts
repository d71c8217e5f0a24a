import type { Entry, Har, Header, QueryString, Response } from 'har-format';
import { STATUS_CODES } from 'node:http';
import type { Exchange } from '../../helpers/http/exchange.js';
import { stringifyJson } from '../../helpers/json.js';
import type { Report } from './report.js';

/**
 * Every exchange of the run as HAR 1.2, so an engineer can open the run in a browser's network
 * tools. The client records Authorization in its printable, redacted form; the writer still passes
 * the text through the run's redactor like every other report.
 */
export function toHar(report: Report, exchanges: readonly Exchange[]): Har {
  return {
    log: {
      version: '1.2',
      creator: { name: report.tool.name, version: report.tool.version },
      comment: `Run ${report.runId} against ${report.target.baseUrl}, Pet Store interface ${report.specVersion}`,
      entries: [...exchanges].sort((a, b) => a.seq - b.seq).map(entryOf),
      // A cancelled run sent no request past the signal: its replay (verify) takes a request the recording holds no
      // answer for as one the cancellation stopped, not as a target that did not answer.
      ...(report.cancelled ? { _cancelled: report.cancelled } : {}),
    } as Har['log'],
  };
}

// HAR lets a writer add fields whose names start with an underscore.
// _jsonError and _truncated keep what the client concluded of the body, so `verify` can replay it as it was read;
// _json the body as the client kept it parsed, where content.text keeps only the start of a large one.
type RunEntry = Entry & { _seq: number; _sentAfter?: number; request: Entry['request'] & { _padBytes?: number }; response: Response & { _error?: string; _retried?: true; _jsonError?: string; _truncated?: boolean; _json?: string; _bodyBytes?: number } };

/**
 * The same document as toHar's, written as stringifyJson(toHar(…), 2) writes it, one entry at a time: a run of a
 * thousand large answers never holds its whole recording as one string (nor the four copies redacting and writing
 * one made), only one entry's.
 */
export function* harChunks(report: Report, exchanges: readonly Exchange[]): Generator<string> {
  // The document without its entries, cut where they go; each entry indented as the whole document would indent it.
  const [before, after] = stringifyJson(toHar(report, []), 2).split('"entries": []');
  yield `${before}"entries": [`;
  const sorted = [...exchanges].sort((a, b) => a.seq - b.seq);
  for (const [index, exchange] of sorted.entries()) {
    yield `${index === 0 ? '' : ','}\n      ${stringifyJson(entryOf(exchange), 2).replace(/\n/g, '\n      ')}`;
  }
  yield `${sorted.length === 0 ? '' : '\n    '}]${after}`;
}

function entryOf(exchange: Exchange): RunEntry {
  const { request, response } = exchange;
  // The client measures one span, from send to the last body byte; HAR wants it split, so it is all "wait".
  const wait = Math.max(0, exchange.durationMs);
  const requestBodySize = request.body === undefined ? 0 : Buffer.byteLength(request.body) + (request.padBytes ?? 0);
  const entry: RunEntry = {
    startedDateTime: exchange.startedAt,
    time: wait,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headersOf(request.headers),
      queryString: queryOf(request.url),
      ...(request.body === undefined ? {} : { postData: { mimeType: request.headers['content-type'] ?? '', text: request.body } }),
      headersSize: -1,
      bodySize: requestBodySize,
      // The spaces sent after the body's first character, which postData leaves out (RecordedRequest.padBytes).
      ...(request.padBytes ? { _padBytes: request.padBytes } : {}),
    },
    response: response
      ? {
        status: response.status,
        statusText: STATUS_CODES[response.status] ?? '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: headersOf(response.headers),
        content: {
          size: Buffer.byteLength(response.rawBody),
          mimeType: response.headers['content-type'] ?? '',
          text: response.rawBody,
          ...(response.truncated ? { comment: 'body cut at --max-response-bytes' } : {}),
        },
        redirectURL: response.headers.location ?? '',
        headersSize: -1,
        bodySize: Buffer.byteLength(response.rawBody),
        ...(response.jsonError === undefined ? {} : { _jsonError: response.jsonError }),
        ...(response.truncated ? { _truncated: true } : {}),
        ...(response.bodyBytes === undefined ? {} : { _bodyBytes: response.bodyBytes }),
        ...(response.bodyBytes !== undefined && response.json !== undefined ? { _json: stringifyJson(response.json) } : {}),
      }
      // HAR has no place for "no response"; status 0 with _error is what browsers write for a failed request.
      : {
        status: 0,
        statusText: '',
        httpVersion: '',
        cookies: [],
        headers: [],
        content: { size: 0, mimeType: '' },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
        _error: exchange.error ?? 'no response',
        // Sent again on a new connection: the next entry with the same request is that attempt.
        ...(exchange.retried ? { _retried: true as const } : {}),
      },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait, receive: 0 },
    _seq: exchange.seq,
    // With requests in flight together, which answers a request was sent after is part of what a check judges (RATE-04).
    ...(exchange.sentAfter === undefined ? {} : { _sentAfter: exchange.sentAfter }),
  };
  if (exchange.rule) entry.comment = `sent by the check of ${exchange.rule}`;
  return entry;
}

function headersOf(headers: Record<string, string>): Header[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function queryOf(url: string): QueryString[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}
