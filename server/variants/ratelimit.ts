import type { VariantSpec } from './spec.js';

/** Conforming variants of the ratelimit area. */
export const RATELIMIT_VARIANTS = [
  {
    id: 'errors-not-counted',
    area: 'ratelimit',
    description: 'counts only successful requests (express-rate-limit\'s skipFailedRequests): the spec leaves open which requests the limits apply to',
  },
] as const satisfies readonly VariantSpec[];
