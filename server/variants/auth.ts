import type { VariantSpec } from './spec.js';

/** Conforming variants of the auth area. */
export const AUTH_VARIANTS = [
] as const satisfies readonly VariantSpec[];
