import type { VariantSpec } from './spec.js';

/** Conforming variants of the listing area. */
export const LISTING_VARIANTS = [
] as const satisfies readonly VariantSpec[];
