import type { VariantSpec } from './spec.js';

/** Conforming variants of the creating area. */
export const CREATING_VARIANTS = [
] as const satisfies readonly VariantSpec[];
