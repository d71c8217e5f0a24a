import { presentedCredentials } from '../../server/auth.js';
import { withHeaders } from '../../server/responses.js';
import type { VariantSpec } from './spec.js';

// Keys a multi-tenant server issued to other clients: the several-keys variant accepts them too.
const OTHER_CLIENTS_KEYS = ['pk_live_5b8e0c2a91d74f3e', 'partner-7731-0f4c9ad2'] as const;
// RFC 6750 §2.1 read strictly (the strict-token68 variant): the scheme, one space (the RFC allows more, and
// no client sends them), then a b64token and its padding, nothing else.
const STRICT_BEARER = /^bearer [A-Za-z0-9\-._~+/]+=*$/i;

/** Conforming variants of the auth area. */
export const AUTH_VARIANTS = [
  {
    id: 'auth-challenge-error-params',
    area: 'auth',
    description: 'adds RFC 6750 error parameters to the challenge of a 401 for a presented token (error="invalid_token", error_description)',
    overrides: {
      // RFC 6750 §3.1: error="invalid_token" once a token was presented, none when the request carried no credentials.
      unauthorized: (request, reference) => (presentedCredentials(request)
        ? withHeaders(reference(request), { 'www-authenticate': 'Bearer realm="petstore", error="invalid_token", error_description="The access token is invalid"' })
        : reference(request)),
    },
  },
  {
    id: 'auth-several-keys',
    area: 'auth',
    description: 'accepts the keys it issued to other clients besides the run\'s key (a multi-tenant key store)',
    overrides: {
      acceptedKeys: (reference) => [...reference(), ...OTHER_CLIENTS_KEYS],
    },
  },
  {
    id: 'auth-error-extra-members',
    area: 'auth',
    description: 'adds members the Error schema does not name to its 401 body (details, traceId)',
    overrides: {
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        return status === 401 ? { ...error, json: { ...error.json, details: [{ location: 'header', field: 'Authorization' }], traceId: '4bf92f3577b34da6a3ce929d0e0e4736' } } : error;
      },
    },
  },
  {
    id: 'auth-strict-token68',
    area: 'auth',
    description: 'reads RFC 6750 to the letter: "Bearer", exactly one space, then a b64token; anything else is 401',
    overrides: {
      authorizes: (authorization, reference) => STRICT_BEARER.test(authorization?.trim() ?? '') && reference(authorization),
    },
  },
] as const satisfies readonly VariantSpec[];
