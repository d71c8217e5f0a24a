import type { FastifyRequest } from 'fastify';
import { withHeaders } from './responses.js';
import type { Context, Seams } from './seams.js';

/** An Authorization header read as `<scheme> <token>`. */
export interface Credentials {
  scheme: string;
  /** '' when the header holds a single word (a bare key, or a scheme whose token was trimmed away). */
  token: string;
}

const UNAUTHORIZED = { code: 'unauthorized', message: 'send the API key as Authorization: Bearer <key>' } as const;
// RFC 6750 §3: a 401 names the scheme the client should use.
const CHALLENGE = 'Bearer realm="petstore"';

/**
 * The reference seams of authentication (spec, Authentication): every operation requires the key as
 * `Authorization: Bearer <key>`, and a missing or invalid key is answered 401 with an Error.
 */
export function authSeams(ctx: Context): Pick<Seams, 'acceptedKeys' | 'authorizes' | 'authenticate' | 'unauthorized'> {
  return {
    acceptedKeys: () => ctx.settings.apiKeys,
    authorizes: (authorization) => {
      const credentials = readCredentials(authorization);
      return credentials !== undefined && isBearerScheme(credentials.scheme) && ctx.seams.acceptedKeys().includes(credentials.token);
    },
    // "The scheme applies to every operation of the service", and to paths it does not name alike.
    authenticate: (request) => (ctx.seams.authorizes(request.headers.authorization) ? undefined : ctx.seams.unauthorized(request)),
    unauthorized: () => withHeaders(ctx.seams.error(401, UNAUTHORIZED.code, UNAUTHORIZED.message), { 'www-authenticate': CHALLENGE }),
  };
}

/**
 * The API key a request carries the conforming way (`Bearer <key>`, scheme in any case), or undefined.
 * Decides the rate-limit bucket, so it asks only which keys are accepted, never how a header is judged.
 */
export function validBearerKey(header: string | undefined, keys: readonly string[]): string | undefined {
  const credentials = readCredentials(header);
  if (credentials === undefined || !isBearerScheme(credentials.scheme)) return undefined;
  return keys.includes(credentials.token) ? credentials.token : undefined;
}

/** RFC 9110 §11.1: scheme names are case-insensitive. */
export function isBearerScheme(scheme: string): boolean {
  return scheme.toLowerCase() === 'bearer';
}

/**
 * The scheme and token of an Authorization header; undefined when there is none or it is blank. A field
 * value has no leading or trailing whitespace (RFC 9110 §5.5), so "Bearer " is read as "Bearer": an empty
 * token, not a bare key.
 */
export function readCredentials(header: string | undefined): Credentials | undefined {
  const trimmed = header?.trim() ?? '';
  if (trimmed === '') return undefined;
  const match = /^(\S+)(?:\s+(.*))?$/s.exec(trimmed);
  return { scheme: match?.[1] ?? trimmed, token: match?.[2]?.trim() ?? '' };
}

/** Whether the request carried any credentials at all (RFC 6750 §3.1 answers those two cases apart). */
export function presentedCredentials(request: FastifyRequest): boolean {
  return (request.headers.authorization ?? '').trim() !== '';
}
