import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { readCaFile } from '../bounded-file.js';
import { authorizationFor, keyElsewhereFor, type AuthMode, type Exchange, type RecordedRequest, type RecordedResponse } from './exchange.js';
import { stringifyJson } from '../json.js';
import { RunCancelled, type CancellationWatch } from './cancellation.js';
import { liveClock, type RunClock } from './clock.js';
import { NoAnswer } from './no-answer.js';
import type { ClientEvents } from './client-events.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { ConnectionWatch } from './connection-watch.js';
import { Pacer, RateLimitWaitTooLong, type WaitTally } from './pacing.js';
import { dispatcherFor } from './dispatcher.js';
import { proxyAuthorizationOf, proxyPassword, proxyRefusal, proxyVariableFor, type ProxyRoute } from './proxy.js';
import { Redactor } from './redact.js';
import { headerPlaceholder, type ClientCertificate } from './extra-headers.js';
import { diagnoseEarlyAnswers, DIAGNOSED_WITHIN, EVERY_KEY_REFUSED, hintAfterLooking, isHtml, otherBaseUrl, type Diagnosis } from './diagnosis.js';
import { readBody } from './response-body.js';
import type { RecordedAnswer, ReplaySource } from './replay.js';

/** What a long phase counts, as one and as many ("request sent", "requests sent"): a line says "1 request sent". */
export type ProgressUnit = readonly [one: string, many: string];

export interface SendOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
  /** Relative to the base URL, e.g. `/pets/12`. */
  path: string;
  /** A raw query string (`limit=&status=sold`) when a check needs bytes no encoder would produce. */
  query?: string | Record<string, string>;
  /** A value serialized losslessly as the JSON body. */
  json?: unknown;
  /** Body text sent as it is (malformed JSON on purpose). */
  body?: string;
  /** Headers to send; null leaves one out, the client's own Accept included. */
  headers?: Record<string, string | null>;
  auth?: AuthMode;
  /** Spaces to send after the body's first character (JSON whitespace): a body of a few MiB that is recorded as a line. */
  padBytes?: number;
  /** The 429 probe wants to see the 429 itself: it may spend the reserve and pass Remaining 0; no retry, no backoff. */
  expect429?: boolean;
  /**
   * Send the path exactly as written, dot segments, doubled slashes and percent-encoding included: a URL parser (and
   * curl, without --path-as-is) would resolve `/v1/./pets` to `/v1/pets` before it left, and the spelling is the point.
   */
  pathAsIs?: boolean;
  /** Send the body in chunks (Transfer-Encoding: chunked), without a Content-Length, as a client streaming it does. */
  chunked?: boolean;
  /**
   * Send the request on this connection of its own (keptConnection), after whatever it carried before, rather than
   * on one of the run's: the one way a check chooses which requests share a connection.
   */
  connection?: KeptConnection;
}

/** One connection a check keeps for requests it sends one after another (REQ-09): kept alive between them while the server keeps it open. */
export class KeptConnection {
  /** The request last sent on it: a reader reproduces the next one only by sending this one first on one connection. */
  last: RecordedRequest | undefined;

  constructor(readonly dispatcher: Dispatcher) {}

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxResponseBytes: number;
  maxRequests: number | null;
  /** What set maxRequests, as the budget's message names it; --max-requests by default. */
  maxRequestsSource?: string;
  concurrency: number;
  rateLimitReserve: number;
  /**
   * The run's event stream (helpers/http/client-events.ts): every exchange, the diagnosis, the tally of waits,
   * notices and progress go there. Only a run has one; a client a test drives on its own sends what it is told,
   * diagnoses nothing, and says what it waits for on `onWait` (or stderr).
   */
  events?: ClientEvents;
  caFile?: string;
  /**
   * --header: sent on every request of the run, those without the key included (a gateway's header is no API
   * credential: the auth checks judge the API's key, behind whatever the gateway asks), recorded as its variable.
   */
  headers?: Readonly<Record<string, string>>;
  /** --cert and --cert-key, read: presented on every TLS connection to the target, through a proxy's tunnel too. */
  clientCertificate?: ClientCertificate;
  /** The run's cancellation: once cancelled, nothing more is sent and every wait ends. */
  cancellation?: CancellationWatch;
  /** The run's time and waits; by default the recording's on replay, the real one otherwise. */
  clock?: RunClock;
  /** Requests go through this proxy (undici's ProxyAgent), --ca-file still verifying the target. */
  proxy?: ProxyRoute;
  onWait?: (message: string) => void;
  /** Longest wait for a rate-limit window the run accepts. */
  maxWaitMs?: number;
  /** No request is sent, and no rate-limit wait begins that would end, after this time (epoch ms). */
  deadlineMs?: number;
  /** `verify`: the recorded exchanges answer every request, and nothing is sent. */
  replay?: ReplaySource;
  /** The run's redactor; by default one that knows this client's key and its proxy's password. */
  redactor?: Redactor;
  /** --read-only: only reads are sent (GET, HEAD, OPTIONS); any other request is refused before it leaves. */
  readOnly?: boolean;
}

/** The request budget (--max-requests) is spent: the rules left are reported as skipped. */
export class BudgetExhausted extends NoAnswer {
  override name = 'BudgetExhausted';
  readonly reason = 'budget';
}

/**
 * The target could not be talked to: refused, reset, timed out, unreadable. The check is errored, not failed.
 * No exchange when the request was never sent (the target had already stopped answering).
 */
export class TransportError extends NoAnswer {
  override name = 'TransportError';
  readonly reason = 'transport';
}

/** A recorded answer held for one replayed request; given back when the request is not sent after all. */
interface ReservedAnswer {
  answer: RecordedAnswer;
  used: boolean;
}

/** --read-only: a request that is not a read is never sent; the check that wanted it is skipped, with what it would have sent. */
export class NotARead extends NoAnswer {
  override name = 'NotARead';
  readonly reason = 'read-only';
}

/** The target kept answering 429 after every backoff: the rule could not be judged. */
export class StillRateLimited extends NoAnswer {
  override name = 'StillRateLimited';
  readonly reason = 'rate-limited';
}

/**
 * The first answers show a wrong base URL or a refused key (helpers/http/diagnosis.ts): nothing more is sent, and
 * the run reports the one cause instead of every rule failed.
 */
export class TargetNotJudgeable extends NoAnswer {
  override name = 'TargetNotJudgeable';
  readonly reason = 'not-judgeable';
  constructor(readonly diagnosis: Diagnosis, exchange?: Exchange) {
    super(`not judged: ${diagnosis.problem}`, exchange);
  }
}

// A long phase reports at most this often: the line is for a person, not a log of every request.
const PROGRESS_EVERY_MS = 250;

/** How long a replay waits for an answer the recording placed earlier before it lets a later one go on. */
const REPLAY_STALL_MS = 200;

/** What --read-only sends: the methods that only read (RFC 9110 §9.2.1's safe methods). */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Methods whose request may be sent twice to the same effect as once (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Transport failures in a row after which the target is taken to have stopped answering (README, Troubleshooting). */
const FAILURES_IN_A_ROW_BEFORE_GIVING_UP = 3;

/** The one HTTP client of a run: every request goes through it, is paced, recorded and redacted. */
export class PetstoreClient {
  readonly exchanges: Exchange[] = [];
  private readonly dispatcher: Dispatcher;
  /** Connections used once: for a POST, and for a request sent again after a kept-alive connection failed it. */
  private readonly freshDispatcher: Dispatcher;
  /** --ca-file, read once (and bounded) for every dispatcher the client makes. */
  private readonly ca: Buffer | undefined;
  private readonly connections: ConnectionWatch | undefined;
  private readonly pacer: Pacer;
  private sent = 0;
  private budgetAnnounced = false;
  private readonly breaker = new CircuitBreaker(FAILURES_IN_A_ROW_BEFORE_GIVING_UP);
  private active = 0;
  /** Requests waiting for a place, each with the rule whose check sent it. */
  private readonly queue: Array<{ rule: string | undefined; go: () => void }> = [];
  /** Requests in flight, by the rule whose check sent them. */
  private readonly inFlight = new Map<string | undefined, number>();
  private readonly cancellation: CancellationWatch | undefined;
  private readonly clock: RunClock;
  private diagnosis: Diagnosis | undefined;
  /** Done once the diagnosis is final (after its one look at another address) and sent to the CLI. */
  private diagnosisSettled: Promise<void> = Promise.resolve();
  /** Every text the client writes out (each exchange and the diagnosis it sends the CLI, a transport error) passes through it. */
  readonly redactor: Redactor;

  constructor(private readonly options: ClientOptions) {
    // A zero (or fractional) concurrency would leave every request waiting for a slot that never frees.
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency must be an integer of at least 1, not ${String(options.concurrency)}`);
    }
    this.redactor = options.redactor ?? new Redactor([options.apiKey, proxyPassword(options.proxy)]);
    this.cancellation = options.cancellation;
    this.clock = options.clock ?? options.replay ?? liveClock(options.cancellation);
    this.ca = options.caFile ? readCaFile(options.caFile) : undefined;
    const settings = { connections: options.concurrency, timeoutMs: options.timeoutMs, ca: this.ca, clientCertificate: options.clientCertificate };
    this.dispatcher = dispatcherFor(options.proxy, settings);
    this.freshDispatcher = dispatcherFor(options.proxy, { ...settings, singleUse: true });
    this.connections = options.replay ? undefined : new ConnectionWatch();
    this.pacer = new Pacer({
      reserve: options.rateLimitReserve,
      maxWaitMs: options.maxWaitMs ?? 120_000,
      deadlineMs: options.deadlineMs,
      maxRetries: 4,
      backoffBaseMs: 1_000,
      backoffCapMs: 60_000,
      onWait: this.notify,
      // The run hears the tally as an event: short waits print no line to count.
      ...(options.events ? { onWaited: (tally: WaitTally) => options.events!({ kind: 'waits', tally }) } : {}),
      sleep: (ms: number) => this.pause(ms),
      now: () => this.now(),
      // A replay sends each request when the live run did; a request waiting for its turn holds no answer back.
      ...(options.replay ? { neverAwaitsAnswers: true } : {}),
    });
  }

  /** A line for the person at the terminal (pacing waits, the budget): a notice of the run, or the caller's onWait. */
  private get notify(): (message: string) => void {
    const { events, onWait } = this.options;
    if (events) return (text) => events({ kind: 'notice', text });
    return onWait ?? ((message) => console.error(message));
  }

  /**
   * The client as the check of `rule` holds it: every request sent through it, and through whatever the check
   * hands it to (a fixture it starts, the probe), is put down to that rule, however many checks run at once. A
   * view, not a copy: the same connections, pacing and record. (An AsyncLocalStorage did this before, and on
   * Node 20 its hook on every promise cost some 16% of a full run's CPU.)
   */
  forRule(rule: string): PetstoreClient {
    return new Proxy(this, { get: (client, key, view) => (key === 'currentRule' ? rule : Reflect.get(client, key, view)) });
  }

  /** The rule whose check holds this client (forRule), so every exchange can be attributed; none for the run's own. */
  get currentRule(): string | undefined {
    return undefined;
  }

  get requestCount(): number {
    return this.sent;
  }

  get pacing(): Pacer {
    return this.pacer;
  }

  /**
   * The run's time (epoch ms), by which rate-limit windows, read lag and the budget are judged: the
   * recording's on replay, the real one otherwise. Checks read it here, never from Date.now().
   */
  now(): number {
    return this.clock.now();
  }

  /**
   * Every wait of the run, for a rate-limit window or between two reads of something the run wrote: over at
   * once when the run is cancelled, and none in a replay (the recorded Reset times are long past, and the
   * run's clock is the recording's).
   */
  pause(ms: number): Promise<void> {
    return this.clock.sleep(ms);
  }

  /**
   * One more step of a long phase (a generated body sent, a probe request): counted per rule, so the fuzzing
   * of one rule reads as one growing count across its mutations. Heard only in a run (one with events).
   */
  announceProgress(phase: string, unit: ProgressUnit, total?: number): void {
    if (this.options.events) this.progress(this.options.events, phase, unit, total);
  }

  /** Set once the run is cancelled: why the rules left are not judged. */
  get cancellationReason(): string | undefined {
    return this.cancellation?.cancelled ? this.cancellation.reason : undefined;
  }

  /** Sends one request; retries an unplanned 429 only after honouring Retry-After and backing off. */
  async send(request: SendOptions): Promise<Exchange> {
    const credential = credentialOf(request.auth ?? 'key');
    this.assertARead(request);
    for (let attempt = 1; ; attempt++) {
      if (this.diagnosis) throw await this.notJudgeable();
      const reserved = this.options.replay ? await this.replaySent(this.options.replay, request) : undefined;
      let exchange: Exchange;
      try {
        exchange = await this.limited(async () => {
          // Checked before waiting on the rate limit too: a spent budget must not first wait out a window.
          this.assertBudgetLeft();
          await this.pacer.acquire(credential, { overLimit: request.expect429 });
          let result: Exchange | undefined;
          try {
            result = await this.once(request, this.options.baseUrl, false, reserved);
            return result;
          } finally {
            this.pacer.release(credential, result?.response);
          }
        });
      } finally {
        // A request the run did not send after all (a spent budget, a cancelled run) leaves its recorded answer to another.
        if (reserved && !reserved.used) this.options.replay!.giveBack(reserved.answer);
      }
      if (exchange.error) {
        // An abandoned request is the cancellation's doing, not the target's.
        this.cancellation?.throwIfCancelled();
        // A proxy's refusal reads as a transport failure, but says the target was never judged.
        if (this.diagnosis) throw await this.notJudgeable(exchange);
        throw new TransportError(exchange.error, exchange);
      }
      if (this.diagnosis) throw await this.notJudgeable(exchange);
      if (exchange.response?.status !== 429 || request.expect429) return exchange;
      // The pacer has blocked the credential until Retry-After; this adds the backoff and says when to stop.
      if (this.pacer.backoffAfter429(credential, attempt) === undefined) {
        throw new StillRateLimited(`the target answered 429 to ${attempt} attempts in a row, backing off each time`, exchange);
      }
    }
  }

  /** A connection of its own for requests a check sends one after another on it (SendOptions.connection); the check closes it. */
  keptConnection(): KeptConnection {
    const { timeoutMs, proxy } = this.options;
    return new KeptConnection(dispatcherFor(proxy, { connections: 1, timeoutMs, ca: this.ca, clientCertificate: this.options.clientCertificate }));
  }

  async close(): Promise<void> {
    this.connections?.stop();
    await Promise.all([this.dispatcher.close(), this.freshDispatcher.close()]);
  }

  /**
   * Bounded concurrency: checks may fire requests in parallel, the target sees at most `concurrency`. A freed place goes
   * to the waiting request whose check has the fewest in flight (the earliest of those): a check that sends one request
   * after another, each needing the last answer, is never held behind a hundred bodies another check sent at once, so
   * the run is as long as its longest chain or its requests over the places, not the two added up. A replay has no
   * connections to bound, and sends each request when the live run did (replaySent): a slot held by a request waiting
   * for its turn could only keep out the one whose turn it is.
   */
  private async limited<T>(task: () => Promise<T>): Promise<T> {
    if (this.options.replay) return task();
    const rule = this.currentRule;
    // A finishing task hands its slot straight to the next in the queue, so no newcomer can slip in between.
    if (this.active >= this.options.concurrency) await new Promise<void>((go) => this.queue.push({ rule, go }));
    else this.active += 1;
    this.inFlight.set(rule, (this.inFlight.get(rule) ?? 0) + 1);
    try {
      return await task();
    } finally {
      this.inFlight.set(rule, this.inFlight.get(rule)! - 1);
      const next = this.nextWaiting();
      if (next) next.go();
      else this.active -= 1;
    }
  }

  /** Takes the waiting request whose check has the fewest requests in flight; the earliest on a tie. */
  private nextWaiting(): { go: () => void } | undefined {
    const before = (a: { rule: string | undefined }, b: { rule: string | undefined }) => (this.inFlight.get(a.rule) ?? 0) - (this.inFlight.get(b.rule) ?? 0);
    let best = -1;
    for (const [index, waiting] of this.queue.entries()) if (best === -1 || before(waiting, this.queue[best]!) < 0) best = index;
    return best === -1 ? undefined : this.queue.splice(best, 1)[0];
  }

  /** --read-only: a request that could change the target (any method but GET, HEAD and OPTIONS) is never sent. */
  private assertARead(request: SendOptions): void {
    if (!this.options.readOnly) return;
    const method = request.method ?? (request.json !== undefined || request.body !== undefined ? 'POST' : 'GET');
    if (READ_METHODS.has(method)) return;
    throw new NotARead(`--read-only sends only reads (GET, HEAD, OPTIONS), and this check sends ${method} ${request.path}; run without --read-only to judge it`);
  }

  /** Ends the check (reported skipped) once --max-duration or --max-requests is spent. */
  private assertBudgetLeft(): void {
    if (this.options.deadlineMs !== undefined && this.now() >= this.options.deadlineMs) {
      this.budgetSpent('time budget (--max-duration)', 'the run\'s time budget (--max-duration) is spent');
    }
    if (this.options.maxRequests !== null && this.sent >= this.options.maxRequests) {
      const source = this.options.maxRequestsSource ?? '--max-requests';
      this.budgetSpent(`request budget of ${this.options.maxRequests} (${source})`, `the request budget of ${this.options.maxRequests} (${source}) is spent`);
    }
  }

  /** The terminal hears of a spent budget once; every check that meets it after is skipped with the reason. */
  private budgetSpent(budget: string, reason: string): never {
    if (!this.budgetAnnounced) this.notify(`${budget} spent: the checks left are reported skipped`);
    this.budgetAnnounced = true;
    throw new BudgetExhausted(reason);
  }

  /**
   * The end of every check once the target is found unjudgeable. It waits for the diagnosis to be settled,
   * so that the run, which ends with its checks, finds the final diagnosis written.
   */
  private async notJudgeable(exchange?: Exchange): Promise<TargetNotJudgeable> {
    await this.diagnosisSettled;
    return new TargetNotJudgeable(this.diagnosis!, exchange);
  }

  /**
   * Sends the request once; once more, on a new connection, when a kept-alive connection failed it before
   * any byte of its answer came (RFC 9112 §9.3.1): the server had closed it between two requests, as servers
   * that close after every answer without saying so do; or when a connection failed before the request was
   * written to it. Both attempts are recorded; only the second judges.
   */
  private async once(request: SendOptions, baseUrl = this.options.baseUrl, onNewConnection = false, reserved?: ReservedAnswer): Promise<Exchange> {
    this.assertBudgetLeft();
    // Before the breaker: requests the cancellation abandoned are no sign of a dead target.
    this.cancellation?.throwIfCancelled();
    if (this.breaker.isOpen) throw new TransportError(this.breaker.reason);
    this.sent += 1;
    const sentAfter = this.exchanges.length;
    const { recorded, url, method, headers, sentBody } = this.prepared(request, baseUrl);
    if (reserved) reserved.used = true;
    if (request.connection && !onNewConnection) request.connection.last = withoutAfter(recorded);
    this.options.events?.({ kind: 'sent', ...(this.currentRule ? { rule: this.currentRule } : {}), method, url: recorded.url });
    const answer = reserved?.answer ?? (this.options.replay ? this.replayed(this.options.replay, recorded, onNewConnection) : await this.live(url, method, headers, sentBody, onNewConnection, request));
    if (answer.seq !== undefined) await this.replayTurn(answer.seq);
    this.options.replay?.arrived(answer);
    const { response, error, startedAt, durationMs } = answer;
    const exchange: Exchange = Object.freeze({
      // On replay, the live run's own place and order: which answers had come when each request left is what the
      // rate-limit checks and the store model judge, and the replay's checks send in an order of their own.
      seq: answer.seq ?? this.nextSeq(),
      sentAfter: answer.sentAfter ?? sentAfter,
      rule: this.currentRule,
      request: Object.freeze(recorded),
      response: response && Object.freeze(response),
      error,
      ...(answer.retry && !onNewConnection ? { retried: true } : {}),
      startedAt,
      durationMs,
    });
    this.record(exchange);
    if (answer.seq !== undefined) this.replayRecorded(answer.seq);
    // A connection the server had closed says nothing of the target: neither the breaker nor a diagnosis hears of it.
    if (exchange.retried) return this.once(request, baseUrl, true);
    if (!(exchange.error && this.cancellation?.cancelled)) this.noteOutcome(exchange.error);
    this.diagnose(exchange);
    return exchange;
  }

  /** The request as it goes out (URL, method, headers, body) and as it is recorded (the key as $PETSTORE_API_KEY). */
  private prepared(request: SendOptions, baseUrl: string): { recorded: RecordedRequest; url: string; method: string; headers: Record<string, string>; sentBody?: string } {
    const mode = request.auth ?? 'key';
    // The key outside Authorization (AUTH-10) is recorded as $PETSTORE_API_KEY: the record never holds it.
    const elsewhere = keyElsewhereFor(mode, this.options.apiKey);
    const url = this.urlFor(request, baseUrl, elsewhere.query?.value);
    const method = request.method ?? (request.json !== undefined || request.body !== undefined ? 'POST' : 'GET');
    const body = request.body ?? (request.json !== undefined ? stringifyJson(request.json) : undefined);
    const auth = authorizationFor(mode, this.options.apiKey);
    const given = lowerCaseKeys(request.headers ?? {});
    // The person's headers never share a name with the suite's own (helpers/http/extra-headers.ts refuses those).
    const extra = lowerCaseKeys(this.options.headers ?? {});
    const headers = withoutLeftOut({ accept: 'application/json', ...given });
    // A Content-Type left out on purpose (null) stays out: a body without one is a case of its own (CREATE-20).
    if (body !== undefined && given['content-type'] === undefined) headers['content-type'] = 'application/json';
    const padBytes = body !== undefined && request.padBytes ? request.padBytes : undefined;
    const recorded: RecordedRequest = {
      method, url: this.urlFor(request, baseUrl, elsewhere.query?.shown), body, auth: mode,
      // undici frames a streamed body itself, and refuses the header from a caller: it is recorded, never set.
      headers: {
        ...headers, ...(request.chunked ? { 'transfer-encoding': 'chunked' } : {}), ...shownForms(elsewhere.headers), ...(auth.shown !== undefined ? { authorization: auth.shown } : {}),
        ...Object.fromEntries(Object.keys(extra).map((name) => [name, headerPlaceholder(name)])),
      },
      ...(padBytes ? { padBytes } : {}),
      ...(this.options.clientCertificate && url.startsWith('https:') ? { clientCertificate: true as const } : {}),
      ...(request.pathAsIs ? { pathAsIs: true } : {}),
      ...(request.connection?.last ? { after: request.connection.last } : {}),
    };
    Object.assign(headers, sentForms(elsewhere.headers), extra);
    if (auth.value !== undefined) headers.authorization = auth.value;
    const sentBody = padBytes && body ? `${body.slice(0, 1)}${' '.repeat(padBytes)}${body.slice(1)}` : body;
    return { recorded, url, method, headers, ...(sentBody === undefined ? {} : { sentBody }) };
  }

  private async live(url: string, method: string, headers: Record<string, string>, body: string | undefined, onNewConnection: boolean, how: Pick<SendOptions, 'pathAsIs' | 'chunked' | 'connection'>): Promise<RecordedAnswer> {
    const started = performance.now();
    const startedAt = new Date().toISOString();
    let response: RecordedResponse | undefined;
    let error: string | undefined;
    let retry = false;
    try {
      // A request that may not be sent twice (a POST) never goes on a kept-alive connection, which the server
      // may have closed unseen: failing there, it could not be sent again.
      // A check that keeps a connection of its own chooses it; a new attempt after that connection failed does not.
      const fresh = onNewConnection || !IDEMPOTENT_METHODS.has(method);
      const dispatcher = how.connection && !onNewConnection ? how.connection.dispatcher : fresh ? this.freshDispatcher : this.dispatcher;
      response = await this.fetchResponse(url, method, headers, body, dispatcher, how);
    } catch (cause) {
      error = this.redactor.redact(describeTransportError(cause, this.options.timeoutMs, this.options.proxy?.shown));
      const closed = onNewConnection ? undefined : this.metClosedConnection(cause, method);
      retry = closed !== undefined;
      if (closed === 'before sent') error = `${error}, before the request was sent: sent on a new connection`;
      if (closed === 'while idle') error = `${error}, on a kept-alive connection, before any byte of the answer: sent again on a new connection`;
    }
    return { response, error, startedAt, durationMs: Math.round((performance.now() - started) * 10) / 10, ...(retry ? { retry } : {}) };
  }

  /**
   * Whether a failure met a connection the server had closed, and the request may go again: 'while idle' when it
   * failed as a closed or reset connection, on a reused one, before any byte of its answer (an idempotent request may
   * always go again, RFC 9110 §9.2.2; another, a POST, only when not a byte of it had left); 'before sent' when the
   * connection failed before the request was written to it at all.
   */
  private metClosedConnection(cause: unknown, method: string): 'while idle' | 'before sent' | undefined {
    const code = (cause as { code?: string }).code;
    if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET' && code !== 'EPIPE') return undefined;
    const failure = this.connections?.failureOf(cause);
    if (failure?.neverWritten) return 'before sent';
    return failure !== undefined && failure.reused && failure.unanswered && (IDEMPOTENT_METHODS.has(method) || failure.neverSent) ? 'while idle' : undefined;
  }

  private async fetchResponse(url: string, method: string, headers: Record<string, string>, body: string | undefined, dispatcher: Dispatcher, how: Pick<SendOptions, 'pathAsIs' | 'chunked'>): Promise<RecordedResponse> {
    const deadline = requestDeadline(this.options.timeoutMs, this.cancellation?.signal);
    try {
      // A body in chunks: a stream of two halves, which undici sends chunked, with no Content-Length.
      const sent = how.chunked && body !== undefined ? Readable.from([body.slice(0, Math.ceil(body.length / 2)), body.slice(Math.ceil(body.length / 2))]) : body;
      const options = { method: method as Dispatcher.HttpMethod, headers, body: sent, signal: deadline.signal };
      // undici's request() parses the URL, resolving dot segments; the dispatcher's own sends the path as it is.
      const response = how.pathAsIs ? await dispatcher.request({ origin: new URL(url).origin, path: pathOf(url), ...options }) : await request(url, { ...options, dispatcher });
      const flat = flattenHeaders(response.headers);
      return { status: response.statusCode, headers: flat, ...await readBody(response.body, flat['content-encoding'], this.options.maxResponseBytes) };
    } finally {
      deadline.settle();
    }
  }

  /** The request's URL; `extra` is query text appended as it is (the key's parameters, sent or shown). */
  private urlFor(request: SendOptions, baseUrl: string, extra?: string): string {
    const base = baseUrl.replace(/\/+$/, '');
    const given = typeof request.query === 'string' ? request.query : request.query ? new URLSearchParams(request.query).toString() : '';
    const query = [given, extra].filter((part) => part).join('&');
    return `${base}${request.path}${query ? `?${query}` : ''}`;
  }

  /** Replayed answers waiting for the ones the recording placed before them, by recorded seq. */
  private readonly replayWaiting = new Map<number, () => void>();
  /** Replayed requests waiting to be sent until as many answers have come as had come when the live run sent them. */
  private readonly replayHeld = new Set<{ after: number; go: () => void }>();
  /** The recorded seq whose answer goes next: every answer the recording placed before it has been recorded. */
  private replayNext = 1;
  private replayStall: ReturnType<typeof setTimeout> | undefined;
  /** Requests the recording holds no answer for, numbered past every recorded one. */
  private unrecorded = 0;
  /** How often the replay let a later answer go on because an earlier one was not asked for in time. */
  private stalls = 0;

  /** How often the replay had to let a later answer go first: none when it sent every request as the live run did. */
  get replayStalls(): number {
    return this.stalls;
  }

  /**
   * The run's next place for an exchange it records: one after the last in a live run; on replay, a request the
   * recording holds no answer for goes past every recorded place, so that none two share one.
   */
  private nextSeq(): number {
    return this.options.replay ? this.options.replay.lastSeq + ++this.unrecorded : this.exchanges.length + 1;
  }

  /**
   * A replayed request leaves when the live one did: once as many answers have been recorded as had come when the
   * live run sent it (its recorded sentAfter). The replay's checks answer at once and race ahead of the recording;
   * held back so, no more requests are in flight at any moment than were then, so none waits for a connection
   * slot or for the pacer while an answer the recording placed before its own is still to be asked for. The
   * recorded answer is reserved for it then (identical requests, such as the probe's, take theirs in recorded order).
   */
  private async replaySent(replay: ReplaySource, request: SendOptions): Promise<ReservedAnswer | undefined> {
    const { recorded } = this.prepared(request, this.options.baseUrl);
    const next = replay.peek(recorded);
    if (next?.sentAfter === undefined) return undefined;
    // Taken at once: an identical request asked meanwhile (the probe's GETs) takes the next recorded one.
    const reserved = { answer: replay.take(recorded, next), used: false };
    if (next.sentAfter >= this.replayNext) {
      await new Promise<void>((go) => {
        this.replayHeld.add({ after: next.sentAfter!, go });
        this.watchReplayStall();
      });
    }
    return reserved;
  }

  /**
   * A replayed answer is recorded where the recording placed it: checks run together judge the order answers
   * came in (RATE-04's steps), and a replay answers at once, in whatever order the requests go out. A recorded
   * exchange the replay never asks for must not hold the rest back: after a pause with nothing recorded, the
   * earliest place anything waits for is taken to have come.
   */
  private replayTurn(seq: number): Promise<void> {
    if (seq <= this.replayNext) return Promise.resolve();
    return new Promise((resolve) => {
      this.replayWaiting.set(seq, resolve);
      this.watchReplayStall();
    });
  }

  private replayRecorded(seq: number): void {
    this.replayNext = Math.max(this.replayNext, seq + 1);
    this.releaseReplayTurn();
    this.watchReplayStall();
  }

  private releaseReplayTurn(): void {
    for (const held of [...this.replayHeld]) {
      if (held.after >= this.replayNext) continue;
      this.replayHeld.delete(held);
      held.go();
    }
    const next = this.replayWaiting.get(this.replayNext);
    this.replayWaiting.delete(this.replayNext);
    next?.();
  }

  private watchReplayStall(): void {
    if (this.replayStall) clearTimeout(this.replayStall);
    this.replayStall = undefined;
    if (this.replayWaiting.size === 0 && this.replayHeld.size === 0) return;
    this.replayStall = setTimeout(() => {
      this.stalls += 1;
      const needed = [...this.replayWaiting.keys(), ...[...this.replayHeld].map((held) => held.after + 1)];
      this.replayNext = Math.max(this.replayNext, Math.min(...needed));
      this.releaseReplayTurn();
      this.watchReplayStall();
    }, REPLAY_STALL_MS);
  }

  private record(exchange: Exchange): void {
    // In seq order: on replay an answer the recording placed earlier may, after a stall, be recorded later.
    const at = this.exchanges.findLastIndex((earlier) => earlier.seq < exchange.seq) + 1;
    this.exchanges.splice(at, 0, exchange);
    this.options.events?.({ kind: 'exchange', exchange });
  }

  private readonly progressCounts = new Map<string, number>();
  private lastProgressAt = 0;

  private progress(events: ClientEvents, phase: string, [one, many]: ProgressUnit, total: number | undefined): void {
    const key = `${this.currentRule ?? ''} ${phase}`;
    const done = (this.progressCounts.get(key) ?? 0) + 1;
    this.progressCounts.set(key, done);
    // Wall time, even on replay: the throttle is for the person watching.
    const now = Date.now();
    if (now - this.lastProgressAt < PROGRESS_EVERY_MS) return;
    this.lastProgressAt = now;
    events({ kind: 'progress', ...(this.currentRule ? { rule: this.currentRule } : {}), phase, done, unit: done === 1 ? one : many, ...(total === undefined ? {} : { total }) });
  }

  /**
   * Reads the first answers of a run for a target that cannot be judged; the person hears the cause once.
   * Only a run (it has events) stops so: a client a test drives on its own sends what it is told.
   */
  private diagnose(exchange: Exchange): void {
    if (!this.options.events || this.diagnosis) return;
    const early = this.exchanges.length > DIAGNOSED_WITHIN ? undefined : diagnoseEarlyAnswers(this.exchanges, this.options.baseUrl);
    this.diagnosis = this.proxyRefused(exchange) ?? (early && this.proxyMayRefuse(early));
    if (!this.diagnosis) return;
    this.notify(`stopping: ${this.diagnosis.problem}; no further request is sent`);
    this.diagnosisSettled = this.settleDiagnosis(this.diagnosis, this.options.events);
  }

  private async settleDiagnosis(diagnosis: Diagnosis, events: ClientEvents): Promise<void> {
    if (diagnosis.cause === 'address') this.diagnosis = await this.withOtherAddressLooked(diagnosis);
    // The run hears it as an event, for the verdict and the reports.
    events({ kind: 'diagnosis', diagnosis: this.diagnosis! });
  }

  /**
   * A wrong address earns one request, with the key, at the other likely base URL (without /v1, or with it),
   * so that the hint proposes an address only where the API answers. Paced and counted like any other; none
   * in a replay, or once the run is cancelled or its budget spent (the hint then says what the address alone says).
   */
  private async withOtherAddressLooked(diagnosis: Diagnosis): Promise<Diagnosis> {
    if (this.options.replay) return diagnosis;
    const other = otherBaseUrl(this.options.baseUrl);
    try {
      const look = await this.limited(async () => {
        await this.pacer.acquire('key');
        let result: Exchange | undefined;
        try {
          result = await this.once({ path: '/pets', query: { limit: '1' } }, other);
          return result;
        } finally {
          this.pacer.release('key', result?.response);
        }
      });
      return { ...diagnosis, hint: hintAfterLooking(other, look) };
    } catch {
      return diagnosis;
    }
  }

  /** The recorded answer, or a transport error naming the request the recording does not hold. */
  private replayed(replay: ReplaySource, request: RecordedRequest, onNewConnection: boolean): RecordedAnswer {
    const answer = replay.answer(request, onNewConnection);
    if (answer) return answer;
    // A cancelled run never sent it: its check ends as the cancellation ended it, and no target is taken to have failed.
    if (replay.cancelled !== undefined) throw new RunCancelled(`the run was cancelled (${replay.cancelled}) before this rule was judged`);
    return { error: 'the recorded run holds no answer to this request (verify)', startedAt: new Date(this.now()).toISOString(), durationMs: 0 };
  }

  /**
   * Through a proxy, a 407 is the proxy's answer, never the target's: it wants credentials, or refused
   * those given. undici turns it into an error of its own; a proxy in front of another one may pass it on.
   * Whenever it comes, the target was not judged; the run stops and names the proxy.
   */
  private proxyRefused(exchange: Exchange): Diagnosis | undefined {
    const proxy = this.options.proxy;
    if (!proxy || (exchange.response?.status !== 407 && exchange.error !== proxyAuthenticationRequired(proxy.shown))) return undefined;
    const asked = `${exchange.request.method} ${exchange.request.url}`;
    const { problem, hint } = proxyRefusal(proxy, asked, 407, STATUS_CODES[407], new URL(this.options.baseUrl).protocol, proxyAuthorizationOf(proxy) !== undefined);
    return { problem, hint, seq: exchange.seq, cause: 'proxy' };
  }

  /**
   * Some proxies answer wrong credentials 401, with an HTML page, where 407 is due (tinyproxy does): every
   * request answered so through a proxy names the proxy beside the key, the more likely cause.
   */
  private proxyMayRefuse(diagnosis: Diagnosis): Diagnosis {
    const proxy = this.options.proxy;
    const answer = this.exchanges.find((exchange) => exchange.seq === diagnosis.seq)?.response;
    if (!proxy || !diagnosis.problem.startsWith(EVERY_KEY_REFUSED) || !answer || !isHtml(answer)) return diagnosis;
    const variable = proxyVariableFor(new URL(this.options.baseUrl).protocol);
    return {
      ...diagnosis,
      problem: `${diagnosis.problem}, with an HTML page, not the API's JSON: the proxy ${proxy.shown} may be refusing its credentials`,
      hint: `check the proxy's user and password in ${variable}; if they are right, ${diagnosis.hint}`,
    };
  }

  /** Feeds the circuit breaker; the person at the terminal hears it once, when it opens. */
  private noteOutcome(failure: string | undefined): void {
    const wasOpen = this.breaker.isOpen;
    this.breaker.record(failure);
    if (!wasOpen && this.breaker.isOpen) this.notify(`${this.breaker.reason}, and the checks left are reported errored`);
  }
}


/**
 * The signal of one request: aborted `timeoutMs` after it was sent (a TimeoutError, as AbortSignal.timeout gives),
 * or when the run is cancelled (the cancellation's reason). `settle` ends both watches once the answer is read.
 * A timer and a listener of our own rather than AbortSignal.any([AbortSignal.timeout(), cancellation]): on Node 20
 * those cost some 30 µs a request against 2 to 10, and each left the run's cancellation signal one more dependant.
 */
function requestDeadline(timeoutMs: number, cancellation: AbortSignal | undefined): { signal: AbortSignal; settle: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  // As AbortSignal.timeout's: a request in flight does not keep the process alive.
  timer.unref();
  const onCancel = () => controller.abort(cancellation!.reason);
  if (cancellation?.aborted) onCancel();
  else cancellation?.addEventListener('abort', onCancel, { once: true });
  return {
    signal: controller.signal,
    settle: () => {
      clearTimeout(timer);
      cancellation?.removeEventListener('abort', onCancel);
    },
  };
}

/** The path and query of a URL as written, before any parser resolves its dot segments. */
function pathOf(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
}

/** Requests without a valid key are often counted in a bucket of their own; pace them apart. */
export function credentialOf(auth: AuthMode): 'key' | 'anonymous' {
  return auth === 'key' || auth === 'lowercase-bearer' ? 'key' : 'anonymous';
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function lowerCaseKeys<T>(headers: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The headers to send: a null value leaves the header out. */
function withoutLeftOut(headers: Record<string, string | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== null));
}

function sentForms(placed: Record<string, { value: string }>): Record<string, string> {
  return Object.fromEntries(Object.entries(placed).map(([name, { value }]) => [name, value]));
}

function shownForms(placed: Record<string, { shown: string }>): Record<string, string> {
  return Object.fromEntries(Object.entries(placed).map(([name, { shown }]) => [name, shown]));
}

/** The transport error of a request the proxy answered 407. */
function proxyAuthenticationRequired(proxyShown: string): string {
  return `the proxy ${proxyShown} answered 407 Proxy Authentication Required`;
}

/** One line a person can act on, from whatever undici or the OS threw. */
export function describeTransportError(cause: unknown, timeoutMs: number, proxyShown?: string): string {
  const error = cause as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = error.code ?? error.cause?.code;
  // undici's words when a proxy refuses the tunnel to an https target mid-run (the preflight asked it once).
  const tunnelRefused = /^Proxy response \((\d+)\) !== 200/.exec(error.message ?? '');
  if (proxyShown && tunnelRefused) return `the proxy ${proxyShown} refused the tunnel to the target (CONNECT answered ${tunnelRefused[1]})`;
  if (proxyShown && code === 'ECONNREFUSED') return `connection refused by the proxy ${proxyShown}`;
  // undici's ProxyAgent turns a proxy's 407 into an error: the answer never reaches the caller.
  if (proxyShown && /Proxy Authentication Required \(407\)/.test(error.message ?? '')) return proxyAuthenticationRequired(proxyShown);
  if (error.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return `no complete response within ${timeoutMs} ms (--timeout)`;
  }
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset by the server';
  // A write to a connection the server had closed: it stopped reading the request (a body it would not take).
  if (code === 'EPIPE') return 'the server closed the connection while the request was being sent (EPIPE)';
  // undici reports a reset and a plain close mid-response alike ("other side closed").
  if (code === 'UND_ERR_SOCKET') return 'the server closed the connection before the response was complete';
  // The same, on a connection used once: undici then reads the close as the end of a body shorter than announced.
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'the server closed the connection before the response was complete (the body is shorter than its Content-Length)';
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return 'the response headers exceed 16 KiB';
  if (error.name === 'HTTPParserError') return `the answer is not HTTP/1.1 (${error.message}); is this an https:// or a non-HTTP port?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name does not resolve';
  // The server's alerts about the client's certificate (mTLS), which name CERT too but are not about the server's.
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED') return 'TLS failure: the server asks for a client certificate (--cert, --cert-key) and refused the connection without one';
  if (code === 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE' || code === 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN' || code === 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA') {
    return `TLS failure (${code}): the server refused the client certificate (--cert)`;
  }
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT') || code === 'DEPTH_ZERO_SELF_SIGNED_CERT') {
    return `TLS failure (${code}): the server certificate is not trusted (--ca-file trusts a given CA)`;
  }
  return `${code ? `${code}: ` : ''}${error.message ?? String(cause)}`;
}

export { RateLimitWaitTooLong };

/** The request as sent, without the one sent before it on its connection: a chain of one, not of every request before. */
function withoutAfter({ after: _after, ...request }: RecordedRequest): RecordedRequest {
  return request;
}
