import type { DefectId } from './defects.js';
import type { VariantId } from './variants.js';
import type { PreloadPet, RateLimitSettings, ServerSettings } from './settings.js';
import { ratePlan } from '../helpers/spec/facts.js';

export interface ReferenceServerOptions extends ServerSettings {
  defects?: readonly DefectId[];
  variants?: readonly VariantId[];
}

/** ReferenceServerOptions with every default filled in. */
export interface ResolvedOptions {
  host: string;
  port: number;
  basePath: string;
  apiKeys: readonly string[];
  rateLimit: RateLimitSettings;
  preload: number | readonly PreloadPet[];
  firstId: bigint;
  readLagMs: number;
  latencyMs: number;
  defects: ReadonlySet<DefectId>;
  variants: ReadonlySet<VariantId>;
}

export const DEFAULT_API_KEY = 'reference-key';
/** The Business plan's per-minute limit, as the spec's plans give it. */
export const DEFAULT_RATE_LIMIT: RateLimitSettings = { limit: ratePlan('Business').perMinute!, windowMs: 60_000 };

/**
 * Fills defaults. Settings a switch needs (its catalog `options`) come before the defaults but
 * after nothing the caller said: an explicit option always wins, so a test can still shrink a window.
 */
export function resolveOptions(options: ReferenceServerOptions, switchSettings: readonly Partial<ServerSettings>[]): ResolvedOptions {
  const merged: ServerSettings = Object.assign({}, ...switchSettings, withoutUndefined(options));
  const apiKeys = merged.apiKeys ?? [DEFAULT_API_KEY];
  if (apiKeys.length === 0 || apiKeys.some((key) => key === '')) throw new Error('apiKeys must hold at least one non-empty key');
  const rateLimit = merged.rateLimit ?? DEFAULT_RATE_LIMIT;
  if (!(rateLimit.limit >= 1 && rateLimit.windowMs >= 1)) throw new Error('rateLimit needs limit >= 1 and windowMs >= 1');
  return {
    host: merged.host ?? '127.0.0.1',
    port: merged.port ?? 0,
    basePath: normaliseBasePath(merged.basePath ?? '/v1'),
    apiKeys,
    rateLimit,
    preload: merged.preload ?? 0,
    firstId: merged.firstId ?? 1n,
    readLagMs: merged.readLagMs ?? 0,
    latencyMs: merged.latencyMs ?? 0,
    defects: new Set(options.defects ?? []),
    variants: new Set(options.variants ?? []),
  };
}

// `{ port: undefined }` from a CLI parser must not erase a switch's setting.
function withoutUndefined(options: ReferenceServerOptions): ServerSettings {
  const { defects: _defects, variants: _variants, ...settings } = options;
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

function normaliseBasePath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
