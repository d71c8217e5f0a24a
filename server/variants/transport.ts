import type { VariantSpec } from './spec.js';

/** Conforming variants of the transport area. */
export const TRANSPORT_VARIANTS = [
] as const satisfies readonly VariantSpec[];
