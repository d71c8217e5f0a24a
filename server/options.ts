import { ratePlan } from '../helpers/spec/facts.js';
import { DEFAULT_BODY_LIMIT_BYTES } from './around.js';
import type { Overrides } from './seams.js';
import type { RateLimitSettings, ResolvedSettings, ServerSettings } from './settings.js';

export interface ReferenceServerOptions extends ServerSettings {
  /**
   * Changes to the reference behaviour, each a set of seam overrides (server/seams.ts), applied in order:
   * a later override wraps what the earlier ones made.
   */
  overrides?: readonly Overrides[];
}

/** ReferenceServerOptions with every default filled in. */
export interface ResolvedOptions extends ResolvedSettings {
  overrides: readonly Overrides[];
}

export const DEFAULT_API_KEY = 'reference-key';
/** The Business plan's per-minute limit, as the spec's plans give it. */
export const DEFAULT_RATE_LIMIT: RateLimitSettings = { limit: ratePlan('Business').perMinute!, windowMs: 60_000 };

/** Fills defaults; `{ port: undefined }` from a CLI parser means the default, as an absent option does. */
export function resolveOptions(options: ReferenceServerOptions): ResolvedOptions {
  const apiKeys = options.apiKeys ?? [DEFAULT_API_KEY];
  if (apiKeys.length === 0 || apiKeys.some((key) => key === '')) throw new Error('apiKeys must hold at least one non-empty key');
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  if (!(rateLimit.limit >= 1 && rateLimit.windowMs >= 1)) throw new Error('rateLimit needs limit >= 1 and windowMs >= 1');
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    basePath: normaliseBasePath(options.basePath ?? '/v1'),
    apiKeys,
    rateLimit,
    preload: options.preload ?? 0,
    firstId: options.firstId ?? 1n,
    readLagMs: options.readLagMs ?? 0,
    latencyMs: options.latencyMs ?? 0,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    router: options.router ?? {},
    overrides: options.overrides ?? [],
  };
}

function normaliseBasePath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
