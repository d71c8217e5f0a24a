import { CORE_VARIANTS } from './variants/core.js';
import type { VariantSpec } from './variants/spec.js';

export type { VariantSpec } from './variants/spec.js';

/**
 * Differences the spec allows: a conforming run must still pass with any of them switched on. One file
 * per group under server/variants/; the gallery certifies each.
 */
export const VARIANTS = [
  ...CORE_VARIANTS,
] as const satisfies readonly VariantSpec[];

export type VariantId = (typeof VARIANTS)[number]['id'];

const BY_ID = new Map<string, VariantSpec>(VARIANTS.map((variant) => [variant.id, variant]));

export function isVariantId(id: string): id is VariantId {
  return BY_ID.has(id);
}

export function variantById(id: VariantId): VariantSpec {
  return BY_ID.get(id)!;
}
