import type { DefectSpec } from './spec.js';

const ERROR_BODY_RULES = ['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04', 'AUTH-05'] as const;

/** Defects of the auth area. */
export const AUTH_DEFECTS = [
  { id: 'auth-missing-key-accepted', area: 'auth', description: 'serves requests without Authorization', rules: ['AUTH-01', 'AUTH-07'] },
  { id: 'auth-empty-token-accepted', area: 'auth', description: 'serves "Bearer" with an empty token', rules: ['AUTH-02'] },
  { id: 'auth-any-key-accepted', area: 'auth', description: 'serves any non-empty bearer token', rules: ['AUTH-03', 'AUTH-07'] },
  { id: 'auth-basic-accepted', area: 'auth', description: 'serves the key under the Basic scheme', rules: ['AUTH-04'] },
  { id: 'auth-bare-key-accepted', area: 'auth', description: 'serves the bare key without a scheme', rules: ['AUTH-05'] },
  {
    id: 'auth-401-empty-body',
    area: 'auth',
    description: 'answers 401 with an empty text/plain body',
    rules: [...ERROR_BODY_RULES, 'ERR-01', 'ERR-02'],
  },
  { id: 'auth-403', area: 'auth', description: 'answers a missing or invalid key with 403 instead of 401', rules: [...ERROR_BODY_RULES, 'AUTH-07'] },
  { id: 'auth-store-orders-open', area: 'auth', description: 'serves GET /store/orders without a valid key', rules: [...ERROR_BODY_RULES] },
  { id: 'auth-store-orders-rejects-key', area: 'auth', description: 'answers GET /store/orders with 401 even with a valid key', rules: ['AUTH-06'] },
  {
    id: 'auth-after-validation',
    area: 'auth',
    description: 'validates the POST /pets body before the key (invalid body without key gets 400)',
    rules: ['AUTH-07'],
  },
  { id: 'auth-no-challenge', area: 'auth', description: 'sends 401 without WWW-Authenticate', rules: ['AUTH-08'] },
  { id: 'auth-scheme-case-sensitive', area: 'auth', description: 'rejects the scheme written "bearer"', rules: ['AUTH-09'] },
] as const satisfies readonly DefectSpec[];
