import type { ProxyRoute } from './http/proxy.js';

/** What a person chooses that the checks themselves read: shared by the CLI's options and the suites' config. */
export interface CheckSettings {
  readOnly: boolean;
  only: string[];
  skip: string[];
  timeoutMs: number;
  maxResponseBytes: number;
  /** Run-wide cap on requests; null means no cap. */
  maxRequests: number | null;
  /** Run-wide cap on wall time; null means no cap. Rate-limit waits are what it bounds in practice. */
  maxDurationMs: number | null;
  concurrency: number;
  /** Requests kept back in every rate-limit window so that the suite never trips the limit by accident. */
  rateLimitReserve: number;
  /** Most requests the 429 probe may send to exceed the window. */
  rateLimitBudget: number;
  verifyRecovery: boolean;
  seed: number;
  fuzzRuns: number;
  fuzzValidRuns: number;
  /** Generated command sequences of the stateful exploration (FUZZ-03), beside its fixed ones. */
  exploreRuns: number;
  /** Longest a read may lag the run's own writes before a missing pet is judged missing. */
  readLagMs: number;
  caFile?: string;
  /** --header: sent on every request of the run, by name and value; the values are secrets of the run. */
  headers?: Readonly<Record<string, string>>;
  /** --cert and --cert-key: the PEM files of the client certificate presented to an https target, and of its private key. */
  cert?: string;
  certKey?: string;
}

/** Everything a run is told, read once by the CLI (or the vitest adapter) and made into the run's context (helpers/run-context.ts). */
export interface RunConfig extends CheckSettings {
  baseUrl: string;
  /** The target is the bundled reference server the CLI started: its URL dies with the run. */
  embedded: boolean;
  apiKey: string;
  runId: string;
  /** When the run started (epoch ms): --max-duration counts from here, CLI start-up included. */
  startedAtMs: number;
  /** ISO date the date-aware checks treat as today; the real date unless a test pins it. */
  today: string;
  /** The proxy the environment routes the target through (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), if any. */
  proxy?: ProxyRoute;
  /** `verify`: the report folder's exchanges.har answers every request in place of the target. */
  replayHarPath?: string;
  /** What set maxRequests, as a spent budget names it: --max-requests unless said otherwise (the --read-only plan). */
  maxRequestsSource?: string;
}
