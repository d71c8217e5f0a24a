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
  /** Which other spellings of a path the router takes for it. Default none: the paths as the spec writes them. */
  router?: RouterSettings;
}

/**
 * How lenient the router is about the spelling of a path, as routers and the proxies in front of them are: each
 * spelling it takes reaches the operation of the path it stands for (the spec names none of them).
 */
export interface RouterSettings {
  /** `/pets/` for `/pets` (Express's default non-strict routing, Django's APPEND_SLASH behind a rewrite). */
  trailingSlash?: boolean;
  /** `//pets` for `/pets` (a proxy merging slashes, nginx's merge_slashes). */
  duplicateSlashes?: boolean;
  /** `/PETS` for `/pets` (ASP.NET Core's and Spring's case-insensitive matching, Windows hosting). */
  caseInsensitive?: boolean;
  /** `/./pets` and `/x/../pets` for `/pets` (a proxy resolving dot segments before the app routes). */
  dotSegments?: boolean;
  /** `/pets.json` for `/pets` (Rails' format suffix, Spring's suffix pattern matching). */
  formatSuffix?: boolean;
  /** `/pets;v=1` for `/pets` (matrix variables or a jsessionid that Spring and servlet containers strip). */
  pathParameters?: boolean;
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
  router: RouterSettings;
}
