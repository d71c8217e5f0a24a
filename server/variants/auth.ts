import type { VariantSpec } from './spec.js';

/** Conforming variants of the auth area. */
export const AUTH_VARIANTS = [
  {
    id: 'auth-challenge-error-params',
    area: 'auth',
    description: 'adds RFC 6750 error parameters to the challenge of a 401 for a presented token (error="invalid_token", error_description)',
  },
  {
    id: 'auth-several-keys',
    area: 'auth',
    description: 'accepts the keys it issued to other clients besides the run\'s key (a multi-tenant key store)',
  },
  {
    id: 'auth-error-extra-members',
    area: 'auth',
    description: 'adds members the Error schema does not name to its 401 body (details, traceId)',
  },
  {
    id: 'auth-strict-token68',
    area: 'auth',
    description: 'reads RFC 6750 to the letter: "Bearer", exactly one space, then a b64token; anything else is 401',
  },
] as const satisfies readonly VariantSpec[];
