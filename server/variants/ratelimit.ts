import type { VariantSpec } from './spec.js';

/** Conforming variants of the ratelimit area. */
export const RATELIMIT_VARIANTS = [
] as const satisfies readonly VariantSpec[];
