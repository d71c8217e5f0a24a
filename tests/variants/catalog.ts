import { CORE_VARIANTS } from './core.js';
import { LISTING_VARIANTS } from './listing.js';
import { CREATING_VARIANTS } from './creating.js';
import { FETCHING_VARIANTS } from './fetching.js';
import { AUTH_VARIANTS } from './auth.js';
import { TRANSPORT_VARIANTS } from './transport.js';
import { ERRORS_VARIANTS } from './errors.js';
import { RATELIMIT_VARIANTS } from './ratelimit.js';
import { REQUESTS_VARIANTS } from './requests.js';
import type { VariantSpec } from './spec.js';

export type { VariantSpec } from './spec.js';

/**
 * Differences the spec allows: a conforming run must still pass with any of them switched on. One file
 * per group under tests/variants/; the gallery certifies each. Test fixtures of the suite's own: they ship
 * only with the source repository, never in the package.
 */
export const VARIANTS = [
  ...CORE_VARIANTS,
  ...LISTING_VARIANTS,
  ...CREATING_VARIANTS,
  ...FETCHING_VARIANTS,
  ...AUTH_VARIANTS,
  ...TRANSPORT_VARIANTS,
  ...ERRORS_VARIANTS,
  ...RATELIMIT_VARIANTS,
  ...REQUESTS_VARIANTS,
] as const satisfies readonly VariantSpec[];

export type VariantId = (typeof VARIANTS)[number]['id'];

const BY_ID = new Map<string, VariantSpec>(VARIANTS.map((variant) => [variant.id, variant]));

export function isVariantId(id: string): id is VariantId {
  return BY_ID.has(id);
}

export function variantById(id: VariantId): VariantSpec {
  return BY_ID.get(id)!;
}
