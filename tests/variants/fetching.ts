import type { VariantSpec } from './spec.js';

/** Conforming variants of the fetching area. */
export const FETCHING_VARIANTS = [
  {
    id: 'petid-malformed-404',
    area: 'fetching',
    description: 'answers a petId that is not an int64 with 404 and an Error body (no route matches it): the spec names no status for it',
    overrides: {
      invalidParameter: (parameter, refusal, reference, server) => (parameter === 'petId' && refusal.status === 400
        ? server.seams.error(404, 'not_found', refusal.message)
        : reference(parameter, refusal)),
    },
  },
] as const satisfies readonly VariantSpec[];
