/** A pet the server holds before its first request. */
export interface PreloadPet {
  name: string;
  categoryId: number | bigint;
  status?: string;
}

export interface RateLimitSettings {
  limit: number;
  windowMs: number;
}

/**
 * Everything but the overrides: plain values. Kept in a module that imports nothing of the server, so the
 * defect and variant catalogs can type their `options` without an import cycle through DefectId and VariantId.
 */
export interface ServerSettings {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default '/v1'. */
  basePath?: string;
  /** Accepted bearer tokens; the first is reported as the server's apiKey. Default ['reference-key']. */
  apiKeys?: readonly string[];
  /** Fixed window per credential. Default 1000 requests per 60 000 ms (the Business plan). */
  rateLimit?: RateLimitSettings;
  /** A number generates that many pets with statuses cycling available, pending, sold. */
  preload?: number | readonly PreloadPet[];
  /** Id of the first pet. Default 1n. */
  firstId?: bigint;
  /** How long a created pet stays invisible to reads (a replica lagging its primary). Default 0. */
  readLagMs?: number;
  /** How long every response is held before it is sent: a target 50–300 ms away, without leaving loopback. Default 0. */
  latencyMs?: number;
  /** The largest request body read; a larger one is answered by the `bodyTooLarge` seam. Default 1 MiB (fastify's). */
  bodyLimitBytes?: number;
}

/** ServerSettings with every default filled in: what a running server's handlers read. */
export interface ResolvedSettings {
  host: string;
  port: number;
  basePath: string;
  apiKeys: readonly string[];
  rateLimit: RateLimitSettings;
  preload: number | readonly PreloadPet[];
  firstId: bigint;
  readLagMs: number;
  latencyMs: number;
  bodyLimitBytes: number;
}
