import type { FastifyReply, FastifyRequest } from 'fastify';
import { INT64, PAGE_SIZE, PET_STATUSES } from '../helpers/spec/facts.js';
import type { Context } from './context.js';
import { isPetStatus } from './new-pet.js';
import { sendError } from './responses.js';

interface Credentials {
  scheme: string;
  /** '' when the header holds a single word (a bare key, or a scheme whose token was trimmed away). */
  token: string;
}

// Keys a multi-tenant server issued to other clients: the several-keys variant accepts them too.
const OTHER_CLIENTS_KEYS = ['pk_live_5b8e0c2a91d74f3e', 'partner-7731-0f4c9ad2'] as const;
// RFC 6750 §2.1 read strictly (the strict-token68 variant): the scheme, one space (the RFC allows more, and
// no client sends them), then a b64token and its padding, nothing else.
const STRICT_BEARER = /^bearer [A-Za-z0-9\-._~+/]+=*$/i;

/** Every key the server honours: the configured ones, and under a variant those of other clients. */
export function acceptedKeys(ctx: Context): readonly string[] {
  return ctx.variant('auth-several-keys') ? [...ctx.settings.apiKeys, ...OTHER_CLIENTS_KEYS] : ctx.settings.apiKeys;
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
  const keys = acceptedKeys(ctx);
  // A substring test of the whole header: the scheme, its spelling and the key's ends all go unchecked.
  if (ctx.has('auth-header-includes-key')) return header !== undefined && keys.some((key) => header.includes(key));
  // Lower-casing the header to match "bearer" in any case lower-cases the key along with it.
  const credentials = split(ctx.has('auth-header-lowercased') ? header?.toLowerCase() : header);
  if (!credentials) return ctx.has('auth-missing-key-accepted');
  const { scheme, token } = credentials;
  // `/^Bearer\s*(\S+)$/i`: \s* where \s+ was meant, so "Bearer<key>" yields the key.
  if (ctx.has('auth-bearer-regex-no-space')) {
    const glued = /^bearer\s*(\S+)$/i.exec(header?.trim() ?? '')?.[1];
    if (glued !== undefined) return keys.includes(glued);
  }
  // `header.substring('Bearer'.length).trim()`: whatever six characters come first pass for the scheme.
  if (ctx.has('auth-scheme-cut-by-length')) return keys.includes((header ?? '').substring('Bearer'.length).trim());
  if (ctx.variant('auth-strict-token68') && !STRICT_BEARER.test(header?.trim() ?? '')) return false;
  // `header.split(' ')[1] === key`: whatever word precedes the key passes for a scheme.
  if (ctx.has('auth-scheme-ignored') && token !== '') return keys.some((key) => tokenMatches(token, key, ctx));
  if (isBearer(scheme, ctx)) {
    if (token === '') return ctx.has('auth-empty-token-accepted');
    return keys.some((key) => tokenMatches(token, key, ctx)) || ctx.has('auth-any-key-accepted');
  }
  if (scheme.toLowerCase() === 'basic') return ctx.has('auth-basic-accepted') && basicCarriesKey(token, keys);
  return token === '' && ctx.has('auth-bare-key-accepted') && keys.includes(scheme);
}

/** The comparison of a token with one key: equality, unless a comparison shortcut is switched on. */
function tokenMatches(token: string, key: string, ctx: Context): boolean {
  if (ctx.has('auth-key-prefix-accepted')) return token.startsWith(key);
  if (ctx.has('auth-truncated-key-accepted')) return key.startsWith(token);
  if (ctx.has('auth-key-case-insensitive')) return token.toLowerCase() === key.toLowerCase();
  return token === key;
}

function isBearer(scheme: string, ctx: Context): boolean {
  if (ctx.has('auth-scheme-case-sensitive')) return scheme === 'Bearer';
  return scheme.toLowerCase() === 'bearer'; // RFC 9110 §11.1: scheme names are case-insensitive
}

// A field value has no leading or trailing whitespace (RFC 9110 §5.5), so "Bearer " is read as "Bearer": an
// empty token, not a bare key.
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

/** Whether a route is served without any key (a public route under a defect). */
export function isPublicRoute(request: FastifyRequest, ctx: Context): boolean {
  const route = request.routeOptions.url;
  const base = ctx.settings.basePath;
  const isGet = request.method === 'GET' || request.method === 'HEAD';
  if (ctx.has('auth-reads-public') && isGet) return true;
  if (ctx.has('auth-list-public') && isGet && route === `${base}/pets`) return true;
  if (ctx.has('auth-get-pet-public') && isGet && route === `${base}/pets/:petId`) return true;
  return ctx.has('auth-create-public') && request.method === 'POST' && route === `${base}/pets`;
}

/**
 * Under the defects that validate or look up before authenticating, the answer a request gets before
 * its key is read; undefined when it reaches the key check.
 */
export function answerBeforeAuth(request: FastifyRequest, reply: FastifyReply, ctx: Context): FastifyReply | undefined {
  const route = request.routeOptions.url;
  const base = ctx.settings.basePath;
  if (request.method !== 'GET') return undefined;
  if (route === `${base}/pets` && ctx.has('auth-after-query-validation')) {
    const problem = listQueryProblem(request.query as Record<string, unknown>);
    return problem === undefined ? undefined : sendError(reply, ctx, 400, 'validation_error', problem);
  }
  if (route !== `${base}/pets/:petId`) return undefined;
  const raw = (request.params as { petId: string }).petId;
  // Express with the route written /pets/:petId(\\d+): a segment that is not digits matches no route, so the
  // router's auth middleware never runs and finalhandler answers its own 404 page.
  if (ctx.has('fetch-route-regex-default-404') && !/^[0-9]+$/.test(raw)) {
    const page = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot GET ${request.url.replace(/[<>&"]/g, '')}</pre>\n</body>\n</html>\n`;
    return reply.code(404).header('content-type', 'text/html; charset=utf-8').send(page);
  }
  const id = parseInt64(raw);
  if ((ctx.has('auth-after-petid-parse') || ctx.has('auth-lookup-before-key')) && id === undefined) {
    return sendError(reply, ctx, 400, 'invalid_parameter', 'petId must be an int64 integer');
  }
  if (ctx.has('auth-lookup-before-key') && id !== undefined && !ctx.store.get(id)) {
    return sendError(reply, ctx, 404, 'not_found', `no pet with id ${raw}`);
  }
  return undefined;
}

function parseInt64(raw: string): bigint | undefined {
  if (!/^-?[0-9]+$/.test(raw)) return undefined;
  const id = BigInt(raw);
  return id >= INT64.min && id <= INT64.max ? id : undefined;
}

// What a query validator mounted in front of the auth middleware rejects (celebrate, express-validator).
function listQueryProblem(query: Record<string, unknown>): string | undefined {
  const { limit, status } = query;
  if (limit !== undefined && !(typeof limit === 'string' && /^[0-9]+$/.test(limit) && Number(limit) >= PAGE_SIZE.min && Number(limit) <= PAGE_SIZE.max)) {
    return `"limit" must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`;
  }
  if (status !== undefined && !isPetStatus(status)) return `"status" must be one of [${PET_STATUSES.join(', ')}]`;
  return undefined;
}

/**
 * Whether a request without the key in Authorization is let through on a key found elsewhere: never on a
 * conforming server (the spec names the header only), under the defects where an auth layer also looks in
 * the query, a cookie or an API gateway's header.
 */
export function acceptsKeyElsewhere(request: FastifyRequest, ctx: Context): boolean {
  const keys = acceptedKeys(ctx);
  const query = request.query as Record<string, unknown> | undefined;
  if (ctx.has('auth-key-in-query-api-key') && keys.includes(String(query?.api_key ?? ''))) return true;
  if (ctx.has('auth-key-in-cookie') && keys.includes(cookie(request.headers.cookie, 'token') ?? '')) return true;
  return ctx.has('auth-key-in-x-api-key') && keys.includes(String(request.headers['x-api-key'] ?? ''));
}

/** One cookie of a Cookie header, decoded as cookie-parser does. */
function cookie(header: string | undefined, name: string): string | undefined {
  const pair = header?.split(';').map((part) => part.trim()).find((part) => part.startsWith(`${name}=`));
  if (pair === undefined) return undefined;
  try {
    return decodeURIComponent(pair.slice(name.length + 1));
  } catch {
    return pair.slice(name.length + 1);
  }
}
