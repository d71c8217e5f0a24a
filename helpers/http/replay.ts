import { readFileSync } from 'node:fs';
import type { Entry, Har } from 'har-format';
import type { RecordedRequest, RecordedResponse } from './exchange.js';
import { parseJson, parseOwnJson } from '../json.js';
import type { Redactor } from './redact.js';
import type { RunClock } from './clock.js';
import { keptBody } from './response-body.js';

/** One recorded answer, as the client hands it back in place of the target's. */
export interface RecordedAnswer {
  response?: RecordedResponse;
  error?: string;
  startedAt: string;
  durationMs: number;
  /** Where the recording placed the exchange, and how many answers had come when it was sent. */
  seq?: number;
  sentAfter?: number;
  /** The request is to be sent again on a new connection: this attempt met a connection the server had closed or reset. */
  retry?: boolean;
}

/**
 * The recorded exchanges of a report folder (exchanges.har) standing in for the target: each request is
 * answered by the first unused recorded exchange with the same method, URL, body and headers (Authorization in
 * its printable form, which names the credential mode); identical requests, such as the 429 probe's GETs, are used up
 * in recorded order. Nothing is ever sent. Both sides are compared redacted, as the recording was written.
 * It keeps the run's clock too: the client, the pacer and the checks read the time from it.
 */
export class ReplaySource implements RunClock {
  private readonly waiting = new Map<string, Array<{ answer: RecordedAnswer }>>();
  /** Each recorded answer's key, so that one reserved and not used goes back to its place. */
  private readonly keys = new Map<RecordedAnswer, string>();
  private clockMs: number;
  /**
   * The recorded run was cancelled (by this signal): a request it holds no answer for is one the cancellation
   * stopped before it was sent, and ends its check as the cancellation ended it then (helpers/http/client.ts).
   */
  readonly cancelled: string | undefined;
  /** The last place the recording holds: a request it holds no answer for is placed after it. */
  readonly lastSeq: number;

  /** `onUnmatched` hears each request the recording holds no answer for, as "METHOD URL", redacted. */
  constructor(harPath: string, startedAtMs: number, private readonly redactor: Redactor, private readonly onUnmatched: (request: string) => void = () => {}) {
    const har = parseOwnJson(readFileSync(harPath, 'utf8')) as unknown as Har;
    const cancelled = (har.log as Har['log'] & { _cancelled?: unknown })._cancelled;
    this.cancelled = typeof cancelled === 'string' ? cancelled : undefined;
    const entries = [...har.log.entries].sort((a, b) => seqOf(a) - seqOf(b));
    for (const entry of entries) {
      const { _padBytes: padBytes } = entry.request as Entry['request'] & { _padBytes?: number };
      const headers = Object.fromEntries(entry.request.headers.map((header) => [header.name.toLowerCase(), header.value]));
      const key = this.keyOf({ method: entry.request.method, url: entry.request.url, body: entry.request.postData?.text, headers, padBytes });
      const queue = this.waiting.get(key) ?? [];
      const answer = answerOf(entry);
      queue.push({ answer });
      this.keys.set(answer, key);
      this.waiting.set(key, queue);
    }
    this.lastSeq = Math.max(0, ...entries.map(seqOf));
    this.clockMs = startedAtMs;
  }

  /**
   * The recorded answer to this request, or undefined (told to the verifier) when the recording holds none.
   * A second attempt on a new connection takes the first recorded answer that was not itself a failed first
   * attempt: identical requests in flight together (the 429 probe's GETs) may each have met a closed
   * connection, and the replay need not pair them as the run did.
   */
  answer(request: RecordedRequest, onNewConnection = false): RecordedAnswer | undefined {
    const next = this.peek(request, onNewConnection);
    if (!next) {
      if (this.cancelled === undefined) this.onUnmatched(this.redactor.redact(`${request.method} ${request.url}`));
      return undefined;
    }
    return this.take(request, next);
  }

  /** The recorded answer `answer` would give, left in place. */
  peek(request: RecordedRequest, onNewConnection = false): RecordedAnswer | undefined {
    const queue = this.waiting.get(this.keyOf(request)) ?? [];
    return (onNewConnection ? queue.find((recorded) => !recorded.answer.retry) : queue[0])?.answer;
  }

  /** Takes a recorded answer `peek` gave for this request: no other request is answered with it. */
  take(request: RecordedRequest, answer: RecordedAnswer): RecordedAnswer {
    const queue = this.waiting.get(this.keyOf(request)) ?? [];
    queue.splice(queue.findIndex((recorded) => recorded.answer === answer), 1);
    return answer;
  }

  /** Puts back a recorded answer taken for a request that was not sent after all, in its recorded place. */
  giveBack(answer: RecordedAnswer): void {
    const queue = this.waiting.get(this.keys.get(answer)!) ?? [];
    const at = queue.findIndex((recorded) => (recorded.answer.seq ?? 0) > (answer.seq ?? 0));
    const item = { answer };
    if (at < 0) queue.push(item);
    else queue.splice(at, 0, item);
  }

  /** The run's clock moves as the recorded one did: the answer arrives when it arrived then. */
  arrived(answer: RecordedAnswer): void {
    this.clockMs = Math.max(this.clockMs, Date.parse(answer.startedAt) + answer.durationMs);
  }

  /**
   * A wait (rate-limit pacing, a read that lags a write) passes at once: only the run's clock moves on, by `ms`, so a
   * caller that waits until a time finds it reached. Waits the live run sat through side by side add up here: what
   * must be judged alike live and on replay (when to read a lagging write again) is reckoned from the recorded
   * answers' own times, not from this clock (helpers/fixtures/read-after-write.ts).
   */
  sleep(ms: number): Promise<void> {
    this.clockMs += Math.max(0, ms);
    return Promise.resolve();
  }

  /**
   * The run's time on replay: the checks judge rate-limit windows and read lag by it, and must see the
   * recorded run's time, or a Reset long past would change what they send. The process's clock is left alone.
   */
  now(): number {
    return this.clockMs;
  }

  /**
   * What tells one request from another: method, URL, body (and the padding sent with it) and every header, so
   * that two requests differing only in where they carry the key, or in Accept, are never answered for each other.
   */
  private keyOf(request: { method: string; url: string; body?: string; headers: Record<string, string>; padBytes?: number }): string {
    const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${this.redactor.redact(value)}`).sort();
    return JSON.stringify([request.method, this.redactor.redact(request.url), this.redactor.redact(request.body ?? ''), request.padBytes ?? 0, headers]);
  }
}

function seqOf(entry: Entry): number {
  return (entry as Entry & { _seq?: number })._seq ?? 0;
}

function placeOf(entry: Entry): Pick<RecordedAnswer, 'seq' | 'sentAfter'> {
  const { _seq: seq, _sentAfter: sentAfter } = entry as Entry & { _seq?: number; _sentAfter?: number };
  return { ...(seq === undefined ? {} : { seq }), ...(sentAfter === undefined ? {} : { sentAfter }) };
}

/** The response as the client recorded it; the body is parsed again from the text kept, as the client did. */
function answerOf(entry: Entry): RecordedAnswer {
  const response = entry.response as Entry['response'] & { _error?: string; _retried?: boolean; _truncated?: boolean; _jsonError?: string; _json?: string; _bodyBytes?: number };
  const timing = { startedAt: entry.startedDateTime, durationMs: entry.time, ...placeOf(entry) };
  if (response._error !== undefined) return { error: response._error, ...(response._retried ? { retry: true } : {}), ...timing };
  const headers = Object.fromEntries(response.headers.map((header) => [header.name, header.value]));
  const rawBody = response.content.text ?? '';
  const truncated = response._truncated ?? false;
  // A large body's text is kept only in part: the body as the client kept it parsed was recorded beside it (_json).
  const body: Pick<RecordedResponse, 'json' | 'jsonError'> = response._jsonError !== undefined || rawBody === ''
    ? (response._jsonError !== undefined ? { jsonError: response._jsonError } : {})
    : response._json !== undefined ? parsedBody(response._json) : keptBody(rawBody);
  const read = typeof response._bodyBytes === 'number' ? { bodyBytes: response._bodyBytes } : {};
  return { response: { status: response.status, headers, rawBody, ...read, truncated, ...body }, ...timing };
}

function parsedBody(text: string): Pick<RecordedResponse, 'json' | 'jsonError'> {
  try {
    return { json: parseJson(text) };
  } catch (error) {
    return { jsonError: (error as Error).message };
  }
}
