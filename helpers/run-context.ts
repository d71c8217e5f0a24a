// Everything one run holds, made once per run from its RunConfig and reached by every check as `ctx.run`: the
// options, the redactor, the one client with its clock and cancellation, the run's event stream, the
// reads that had to wait for the run's own writes, and the values the suites share between their checks.
// Nothing of a run lives in a module of helpers/ or suites/ (tests/unit/module-state.test.ts), so a second run
// in the process starts clean.
import { PetstoreClient } from './http/client.js';
import { CancellationWatch } from './http/cancellation.js';
import type { ClientEvents } from './http/client-events.js';
import { liveClock, type RunClock } from './http/clock.js';
import { addGatewaySecrets } from './http/extra-headers.js';
import { readClientCertificate } from './bounded-file.js';
import { proxyPassword } from './http/proxy.js';
import { Redactor } from './http/redact.js';
import { ReplaySource } from './http/replay.js';
import type { RunConfig } from './run-config.js';

/** How long one read of the run's own write had to wait before it showed the write. */
export interface ReadLag {
  what: string;
  waitedMs: number;
  attempts: number;
  /** False when the bound passed first: the read was judged as it stood. */
  shown: boolean;
}

/**
 * The name and type of a value the checks of a run share (a sample sent once, a page read once): declared once,
 * beside the code that makes it, so every reader gets the type it was made with. The value is the run's.
 */
export interface RunKey<T> {
  readonly name: string;
  /** Only carries the type. */
  readonly type?: T;
}

export function runKey<T>(name: string): RunKey<T> {
  return Object.freeze({ name });
}

export class RunContext {
  readonly redactor: Redactor;
  readonly cancellation: CancellationWatch;
  readonly clock: RunClock;
  /** The run's one client: every request of every check goes through it, paced, recorded and redacted. */
  readonly client: PetstoreClient;
  /** Every read of this run that had to be repeated before it showed the run's own write (CREATE-15 reports them). */
  readonly readLags: ReadLag[] = [];
  readonly #shared = new Map<RunKey<unknown>, unknown>();

  /**
   * `events`: the run's stream, which hears every exchange, wait, notice and diagnosis of the client;
   * `signal`: the caller's cancellation, followed until the run is closed.
   */
  constructor(readonly config: RunConfig, events: ClientEvents, signal?: AbortSignal) {
    // The run's secrets, as the caller's side of the run redacts them: its key, its proxy's password, its headers and private key.
    this.redactor = new Redactor([config.apiKey, proxyPassword(config.proxy)]);
    // Read once for the run (the options' check read them before): a replay presents no certificate, it sends nothing.
    const clientCertificate = config.cert && config.certKey && !config.replayHarPath ? readClientCertificate(config.cert, config.certKey) : undefined;
    addGatewaySecrets(this.redactor, config.headers, clientCertificate);
    this.cancellation = new CancellationWatch(signal);
    const replay = config.replayHarPath
      ? new ReplaySource(config.replayHarPath, config.startedAtMs, this.redactor, (request) => events({ kind: 'unmatched', request }))
      : undefined;
    this.clock = replay ?? liveClock(this.cancellation);
    this.client = new PetstoreClient({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      maxResponseBytes: config.maxResponseBytes,
      maxRequests: config.maxRequests,
      ...(config.maxRequestsSource ? { maxRequestsSource: config.maxRequestsSource } : {}),
      deadlineMs: config.maxDurationMs === null ? undefined : config.startedAtMs + config.maxDurationMs,
      concurrency: config.concurrency,
      rateLimitReserve: config.rateLimitReserve,
      events,
      caFile: config.caFile,
      ...(config.headers ? { headers: config.headers } : {}),
      ...(clientCertificate ? { clientCertificate } : {}),
      proxy: config.proxy,
      cancellation: this.cancellation,
      clock: this.clock,
      redactor: this.redactor,
      readOnly: config.readOnly,
      ...(replay ? { replay } : {}),
    });
  }

  /** The run's value for `key`, made by `make` on first use: checks in flight together share the one promise it returns. */
  shared<T>(key: RunKey<T>, make: () => T): T {
    if (!this.#shared.has(key)) this.#shared.set(key, make());
    return this.#shared.get(key) as T;
  }

  async close(): Promise<void> {
    this.cancellation.detach();
    await this.client.close();
  }
}
