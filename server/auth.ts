import type { Context } from './context.js';

interface Credentials {
  scheme: string;
  /** '' when the header holds a single word (a bare key, or a scheme whose token was trimmed away). */
  token: string;
}

/**
 * The API key a request carries the conforming way (`Bearer <key>`, scheme in any case), or
 * undefined. Decides the rate-limit bucket, so it ignores the auth defects on purpose.
 */
export function validBearerKey(header: string | undefined, keys: readonly string[]): string | undefined {
  const credentials = split(header);
  if (credentials?.scheme.toLowerCase() !== 'bearer') return undefined;
  return keys.includes(credentials.token) ? credentials.token : undefined;
}

/** Whether the server lets the request through, defects included. */
export function accepts(header: string | undefined, ctx: Context): boolean {
  const keys = ctx.settings.apiKeys;
  const credentials = split(header);
  if (!credentials) return ctx.has('auth-missing-key-accepted');
  const { scheme, token } = credentials;
  if (isBearer(scheme, ctx)) {
    if (token === '') return ctx.has('auth-empty-token-accepted');
    return keys.includes(token) || ctx.has('auth-any-key-accepted');
  }
  if (scheme.toLowerCase() === 'basic') return ctx.has('auth-basic-accepted') && basicCarriesKey(token, keys);
  return token === '' && ctx.has('auth-bare-key-accepted') && keys.includes(scheme);
}

function isBearer(scheme: string, ctx: Context): boolean {
  if (ctx.has('auth-scheme-case-sensitive')) return scheme === 'Bearer';
  return scheme.toLowerCase() === 'bearer'; // RFC 9110 §11.1: scheme names are case-insensitive
}

// HTTP clients trim trailing whitespace, so "Bearer " arrives as "Bearer": an empty token, not a bare key.
function split(header: string | undefined): Credentials | undefined {
  const trimmed = header?.trim() ?? '';
  if (trimmed === '') return undefined;
  const match = /^(\S+)(?:\s+(.*))?$/s.exec(trimmed);
  return { scheme: match?.[1] ?? trimmed, token: match?.[2]?.trim() ?? '' };
}

// The defect has to recognise the key however a client dresses it up as Basic credentials.
function basicCarriesKey(token: string, keys: readonly string[]): boolean {
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const candidates = [token, decoded, ...decoded.split(':')];
  return candidates.some((candidate) => keys.includes(candidate));
}
