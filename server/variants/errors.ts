import type { VariantSpec } from './spec.js';

/** Conforming variants of the errors area. */
export const ERRORS_VARIANTS = [
] as const satisfies readonly VariantSpec[];
