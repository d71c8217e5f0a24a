import type { VariantSpec } from './spec.js';

/** Conforming variants of the fetching area. */
export const FETCHING_VARIANTS = [
  {
    id: 'petid-malformed-404',
    area: 'fetching',
    description: 'answers a petId that is not an int64 with 404 and an Error body (no route matches it): the spec names no status for it',
  },
] as const satisfies readonly VariantSpec[];
