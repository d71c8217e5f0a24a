import type { VariantSpec } from './spec.js';

/** Conforming variants of the fetching area. */
export const FETCHING_VARIANTS = [
] as const satisfies readonly VariantSpec[];
