import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { PAGE_SIZE, PET_STATUSES } from '../../helpers/spec/facts.js';
import { isBearerScheme, presentedCredentials, readCredentials } from '../../server/auth.js';
import { bodyText } from '../../server/creating.js';
import { int64Parameter, PET_ID_REFUSED, petIdOf } from '../../server/fetching.js';
import { isPetStatus } from '../../server/new-pet.js';
import { json, text, withoutHeader } from '../../server/responses.js';
import { insteadOf, type OperationId, type SeamOverride } from '../../server/seams.js';
import { expressErrorPage } from './pages.js';
import type { DefectSpec } from './spec.js';
import type { RouterSettings } from '../../server/settings.js';

const ERROR_BODY_RULES = ['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04', 'AUTH-05'] as const;
/** Every 401 the run provokes: each credential check judges its Error, AUTH-10 and AUTH-11 as much as AUTH-01..05. */
const EVERY_401_RULES = [...ERROR_BODY_RULES, 'AUTH-10', 'AUTH-11'] as const;
/** A route served without a key: every broken credential succeeds on it, and so does a request that is invalid besides. */
const PUBLIC_ROUTE_RULES = [...ERROR_BODY_RULES, 'AUTH-07'] as const;

/**
 * An auth guard written for the spec's paths exactly as the spec spells them, matched against the path the client sent
 * (an Express `app.use(['/v1/pets', …], guard)` before a lenient router, a gateway rule on the raw URI): every other
 * spelling the router or a proxy then takes for the path reaches the operation without the key.
 */
function guardOnExactPaths(): SeamOverride<'authenticate'> {
  return (request, operation, reference, server) => {
    const asked = (request.originalUrl ?? request.url).split('?')[0]!;
    const base = server.settings.basePath;
    const guarded = asked === `${base}/pets` || asked === `${base}/store/orders` || new RegExp(`^${base}/pets/[^/]+$`).test(asked);
    return guarded ? reference(request, operation) : undefined;
  };
}

/**
 * A guard registered for GET and POST alone (`r.With(auth).Get(...)` beside chi's `middleware.GetHead`, a gateway's
 * rule per method): HEAD reaches the GET handler, as RFC 9110 lets a router do, without the key.
 */
function guardOnGetAndPost(): SeamOverride<'authenticate'> {
  return (request, operation, reference) => (request.method === 'HEAD' ? undefined : reference(request, operation));
}

/** A spelling-lenient router behind a guard on the exact paths: AUTH-12 alone sees it. */
function openSpelling<const Id extends string>(id: Id, description: string, router: RouterSettings): DefectSpec & { id: Id } {
  return { id, area: 'auth', description, rules: ['AUTH-12'], options: { router }, overrides: { authenticate: guardOnExactPaths() } };
}

/** The token of a `Bearer <token>` header (the scheme in any case), or undefined when there is none. */
function bearerToken(authorization: string | undefined): string | undefined {
  const credentials = readCredentials(authorization);
  return credentials !== undefined && isBearerScheme(credentials.scheme) && credentials.token !== '' ? credentials.token : undefined;
}

/** An `authorizes` override for a stack that compares a bearer token with each key its own way. */
function comparingKeys(matches: (token: string, key: string) => boolean): SeamOverride<'authorizes'> {
  return (authorization, reference, server) => {
    const token = bearerToken(authorization);
    return token === undefined ? reference(authorization) : server.seams.acceptedKeys().some((key) => matches(token, key));
  };
}

/** An `authenticate` override that lets every request for the operation through without a key. */
function servedWithoutKey(operation: OperationId): SeamOverride<'authenticate'> {
  return (request, answered, reference) => (answered === operation ? undefined : reference(request, answered));
}

// The defect has to recognise the key however a client dresses it up as Basic credentials.
function basicCarriesKey(token: string, keys: readonly string[]): boolean {
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const candidates = [token, decoded, ...decoded.split(':')];
  return candidates.some((candidate) => keys.includes(candidate));
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
 * An `authenticate` override for an auth layer that also takes the key from somewhere else than Authorization:
 * a request whose `found` holds an accepted key is let through, whatever its Authorization says.
 */
function keyTakenFrom(found: (request: FastifyRequest) => string | undefined): SeamOverride<'authenticate'> {
  return (request, operation, reference, server) => (server.seams.acceptedKeys().includes(found(request) ?? '') ? undefined : reference(request, operation));
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

/** Defects of the auth area. */
export const AUTH_DEFECTS = [
  {
    id: 'auth-missing-key-accepted',
    area: 'auth',
    description: 'serves requests without Authorization',
    // The key elsewhere comes without Authorization too, so AUTH-10 is served as well.
    rules: ['AUTH-01', 'AUTH-07', 'AUTH-10', 'AUTH-12'],
    overrides: {
      authorizes: (authorization, reference) => readCredentials(authorization) === undefined || reference(authorization),
    },
  },
  {
    id: 'auth-empty-token-accepted',
    area: 'auth',
    description: 'serves "Bearer" with an empty token',
    rules: ['AUTH-02'],
    overrides: {
      authorizes: (authorization, reference) => {
        const credentials = readCredentials(authorization);
        return (credentials !== undefined && isBearerScheme(credentials.scheme) && credentials.token === '') || reference(authorization);
      },
    },
  },
  {
    id: 'auth-any-key-accepted',
    area: 'auth',
    description: 'serves any non-empty bearer token',
    rules: ['AUTH-03', 'AUTH-07'],
    overrides: {
      authorizes: (authorization, reference) => bearerToken(authorization) !== undefined || reference(authorization),
    },
  },
  {
    id: 'auth-basic-accepted',
    area: 'auth',
    description: 'serves the key under the Basic scheme',
    rules: ['AUTH-04'],
    overrides: {
      authorizes: (authorization, reference, server) => {
        const credentials = readCredentials(authorization);
        if (credentials?.scheme.toLowerCase() !== 'basic') return reference(authorization);
        return basicCarriesKey(credentials.token, server.seams.acceptedKeys());
      },
    },
  },
  {
    id: 'auth-bare-key-accepted',
    area: 'auth',
    description: 'serves the bare key without a scheme',
    rules: ['AUTH-05'],
    overrides: {
      authorizes: (authorization, reference, server) => {
        const credentials = readCredentials(authorization);
        return (credentials !== undefined && credentials.token === '' && server.seams.acceptedKeys().includes(credentials.scheme)) || reference(authorization);
      },
    },
  },
  {
    id: 'auth-401-empty-body',
    area: 'auth',
    description: 'answers 401 with an empty text/plain body',
    rules: [...EVERY_401_RULES, 'ERR-01', 'ERR-02'],
    overrides: {
      unauthorized: (request, reference) => ({ ...text(401, 'text/plain; charset=utf-8', ''), headers: reference(request).headers }),
    },
  },
  {
    id: 'auth-403',
    area: 'auth',
    description: 'answers a missing or invalid key with 403 instead of 401',
    rules: [...EVERY_401_RULES, 'AUTH-07'],
    overrides: {
      unauthorized: (request, reference, server) => ({ ...server.seams.error(403, 'forbidden', 'a valid API key is required'), headers: reference(request).headers }),
    },
  },
  {
    id: 'auth-store-orders-open',
    area: 'auth',
    description: 'serves GET /store/orders without a valid key',
    rules: [...ERROR_BODY_RULES],
    overrides: {
      authenticate: (request, operation, reference) => (operation === 'getStoreOrders' ? undefined : reference(request, operation)),
    },
  },
  {
    id: 'auth-store-orders-rejects-key',
    area: 'auth',
    description: 'answers GET /store/orders with 401 even with a valid key',
    rules: ['AUTH-06'],
    overrides: {
      respond: insteadOf('getStoreOrders', (request, server) => server.seams.unauthorized(request)),
    },
  },
  {
    id: 'auth-after-validation',
    area: 'auth',
    description: 'validates the POST /pets body before the key (invalid body without key gets 400)',
    rules: ['AUTH-07'],
    overrides: {
      // The gate lets createPet through unauthenticated; the handler checks the key only once the body is valid.
      authenticate: (request, operation, reference) => (operation === 'createPet' ? undefined : reference(request, operation)),
      respond: async (operation, request, reference, server) => {
        if (operation !== 'createPet' || !server.seams.readNewPet(bodyText(request)).ok) return reference(operation, request);
        return server.seams.authorizes(request.headers.authorization) ? reference(operation, request) : server.seams.unauthorized(request);
      },
    },
  },
  {
    id: 'auth-no-challenge',
    area: 'auth',
    description: 'sends 401 without WWW-Authenticate',
    rules: ['AUTH-08'],
    overrides: {
      unauthorized: (request, reference) => withoutHeader(reference(request), 'www-authenticate'),
    },
  },
  {
    id: 'auth-scheme-case-sensitive',
    area: 'auth',
    description: 'rejects the scheme written "bearer"',
    rules: ['AUTH-09'],
    overrides: {
      authorizes: (authorization, reference) => {
        const scheme = readCredentials(authorization)?.scheme;
        return scheme !== undefined && isBearerScheme(scheme) && scheme !== 'Bearer' ? false : reference(authorization);
      },
    },
  },
  {
    id: 'auth-key-prefix-accepted',
    area: 'auth',
    description: 'compares the token with token.startsWith(key), so the key followed by anything passes',
    rules: ['AUTH-03'],
    overrides: {
      authorizes: comparingKeys((token, key) => token.startsWith(key)),
    },
  },
  {
    id: 'auth-truncated-key-accepted',
    area: 'auth',
    description: 'compares only as many characters as the token has (key.startsWith(token), strncmp with the token length), so a truncated key passes',
    rules: ['AUTH-03'],
    overrides: {
      authorizes: comparingKeys((token, key) => key.startsWith(token)),
    },
  },
  {
    id: 'auth-key-case-insensitive',
    area: 'auth',
    description: 'compares the token case-insensitively (equalsIgnoreCase, strings.EqualFold), as if the key were a header name',
    rules: ['AUTH-03'],
    overrides: {
      authorizes: comparingKeys((token, key) => token.toLowerCase() === key.toLowerCase()),
    },
  },
  {
    id: 'auth-header-lowercased',
    area: 'auth',
    description: 'lower-cases the whole Authorization header to match "bearer" in any case, lower-casing the token with it',
    rules: ['AUTH-03'],
    overrides: {
      authorizes: (authorization, reference) => reference(authorization?.toLowerCase()),
    },
  },
  {
    id: 'auth-scheme-ignored',
    area: 'auth',
    description: 'takes header.split(" ")[1] as the key and never looks at the scheme, so "Token <key>" and "Basic <key>" pass',
    rules: ['AUTH-04'],
    overrides: {
      authorizes: (authorization, reference, server) => {
        const credentials = readCredentials(authorization);
        return credentials !== undefined && credentials.token !== '' ? server.seams.acceptedKeys().includes(credentials.token) : reference(authorization);
      },
    },
  },
  {
    id: 'auth-header-includes-key',
    area: 'auth',
    description: 'accepts any Authorization header that contains the key (header.includes(key)): any scheme, no scheme, extra characters',
    rules: ['AUTH-03', 'AUTH-04', 'AUTH-05', 'AUTH-11'],
    overrides: {
      authorizes: (authorization, _reference, server) => authorization !== undefined && server.seams.acceptedKeys().some((key) => authorization.includes(key)),
    },
  },
  {
    id: 'auth-list-public',
    area: 'auth',
    description: 'serves GET /pets without a key: the auth wrapper sits on the /pets/ subtree (Go ServeMux pattern), which does not cover /pets',
    // AUTH-10 and AUTH-11 send GET /pets.
    rules: [...PUBLIC_ROUTE_RULES, 'AUTH-10', 'AUTH-11', 'AUTH-12'],
    overrides: {
      authenticate: servedWithoutKey('listPets'),
    },
  },
  {
    id: 'auth-get-pet-public',
    area: 'auth',
    description: 'serves GET /pets/{petId} without a key: the auth decorator or middleware was forgotten on that one route',
    rules: [...PUBLIC_ROUTE_RULES],
    overrides: {
      authenticate: servedWithoutKey('getPet'),
    },
  },
  {
    id: 'auth-reads-public',
    area: 'auth',
    description: 'protects only mutating methods ("public reads", before_action :authenticate, only: [:create]): every GET is served without a key',
    rules: [...PUBLIC_ROUTE_RULES, 'AUTH-10', 'AUTH-11', 'AUTH-12'],
    overrides: {
      authenticate: (request, operation, reference) => (request.method === 'GET' || request.method === 'HEAD' ? undefined : reference(request, operation)),
    },
  },
  {
    id: 'auth-create-public',
    area: 'auth',
    description: 'serves POST /pets without a key: the route was registered before app.use(auth), which Express applies only to later routes',
    rules: [...PUBLIC_ROUTE_RULES],
    overrides: {
      authenticate: servedWithoutKey('createPet'),
    },
  },
  {
    id: 'auth-lookup-before-key',
    area: 'auth',
    description: 'getPet finds the pet before authorizing (authorization in the service after findById): an unknown pet without a key gets 404, petId=abc 400',
    rules: ['AUTH-07'],
    alsoMetIn: ['creating'],
    overrides: {
      authenticate: (request, operation, reference, server) => {
        if (operation !== 'getPet') return reference(request, operation);
        const id = int64Parameter(petIdOf(request));
        if (id === undefined) return server.seams.error(400, 'invalid_parameter', PET_ID_REFUSED.message);
        if (server.store.get(id) === undefined) return server.seams.error(404, 'not_found', `no pet with id ${petIdOf(request)}`);
        return reference(request, operation);
      },
    },
  },
  {
    id: 'auth-after-query-validation',
    area: 'auth',
    description: 'validates the GET /pets query before the key (a validator middleware such as celebrate mounted ahead of auth): limit=0 without a key gets 400',
    rules: ['AUTH-07'],
    overrides: {
      authenticate: (request, operation, reference, server) => {
        const problem = operation === 'listPets' ? listQueryProblem(request.query as Record<string, unknown>) : undefined;
        return problem === undefined ? reference(request, operation) : server.seams.error(400, 'validation_error', problem);
      },
    },
  },
  {
    id: 'auth-after-petid-parse',
    area: 'auth',
    description: 'parses petId before calling the auth helper in the handler (strconv.ParseInt first, as in Go net/http): /pets/abc without a key gets 400',
    rules: ['AUTH-07'],
    overrides: {
      authenticate: (request, operation, reference, server) => (operation === 'getPet' && int64Parameter(petIdOf(request)) === undefined
        ? server.seams.error(400, 'invalid_parameter', PET_ID_REFUSED.message)
        : reference(request, operation)),
    },
  },
  {
    id: 'auth-express-jwt-json',
    area: 'auth',
    description: 'answers 401 with express-jwt\'s error as {"message": "No authorization token was found"} (no code, no status) and no WWW-Authenticate',
    rules: [...EVERY_401_RULES, 'AUTH-08', 'ERR-02'],
    overrides: {
      // express-jwt's UnauthorizedError passed to a handler that answers res.status(err.status).json({ message }).
      unauthorized: (request) => text(401, 'application/json; charset=utf-8', JSON.stringify({ message: presentedCredentials(request) ? 'invalid token' : 'No authorization token was found' })),
    },
  },
  {
    id: 'auth-express-html',
    area: 'auth',
    description: 'answers 401 with Express\'s default HTML error page (finalhandler, text/html) and no WWW-Authenticate',
    rules: [...EVERY_401_RULES, 'AUTH-08', 'ERR-01', 'ERR-02'],
    overrides: {
      // Express's finalhandler page for an error with status 401 that no error middleware caught.
      unauthorized: (request) => ({
        status: 401,
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" },
        text: expressErrorPage(`UnauthorizedError: ${presentedCredentials(request) ? 'invalid token' : 'No authorization token was found'}`),
      }),
    },
  },
  {
    id: 'auth-key-in-query-api-key',
    area: 'auth',
    description: 'also takes the key from ?api_key=: an OpenAPI security scheme apiKey in: query (the name Swagger\'s own Petstore uses) declared beside the bearer one, either of which passes',
    rules: ['AUTH-10'],
    overrides: {
      authenticate: keyTakenFrom((request) => {
        const value = (request.query as Record<string, unknown> | undefined)?.api_key;
        return typeof value === 'string' ? value : undefined;
      }),
    },
  },
  {
    id: 'auth-key-in-cookie',
    area: 'auth',
    description: 'also takes the key from a cookie named token: express-jwt\'s getToken written to fall back to req.cookies.token when the header is missing',
    rules: ['AUTH-10'],
    overrides: {
      authenticate: keyTakenFrom((request) => cookie(request.headers.cookie, 'token')),
    },
  },
  {
    id: 'auth-key-in-x-api-key',
    area: 'auth',
    description: 'also takes the key from an X-API-Key header: an API gateway\'s key check (AWS API Gateway, Kong key-auth) in front of the service, which trusts whatever the gateway let through',
    rules: ['AUTH-10'],
    overrides: {
      authenticate: keyTakenFrom((request) => {
        const value = request.headers['x-api-key'];
        return typeof value === 'string' ? value : undefined;
      }),
    },
  },
  {
    id: 'auth-bearer-regex-no-space',
    area: 'auth',
    description: 'reads the token with /^Bearer\\s*(\\S+)$/i, \\s* where \\s+ was meant, so Bearer<key> with no space passes',
    rules: ['AUTH-11'],
    overrides: {
      authorizes: (authorization, reference, server) => {
        const glued = /^bearer\s*(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
        return glued === undefined ? reference(authorization) : server.seams.acceptedKeys().includes(glued);
      },
    },
  },
  {
    id: 'auth-scheme-cut-by-length',
    area: 'auth',
    description: 'takes the token as header.substring("Bearer".length).trim(), never looking at the scheme: Bearer<key>, and any six-letter scheme such as "Token <key>" or "Basic <key>", pass',
    rules: ['AUTH-04', 'AUTH-11'],
    overrides: {
      authorizes: (authorization, _reference, server) => server.seams.acceptedKeys().includes((authorization ?? '').substring('Bearer'.length).trim()),
    },
  },
  {
    id: 'auth-key-in-query-access-token',
    area: 'auth',
    description: 'also takes the key from ?access_token=: passport-http-bearer reads RFC 6750\'s query parameter when the header is missing',
    rules: ['AUTH-10'],
    overrides: {
      authenticate: keyTakenFrom((request) => {
        const value = (request.query as Record<string, unknown> | undefined)?.access_token;
        return typeof value === 'string' ? value : undefined;
      }),
    },
  },
  {
    id: 'auth-key-in-header-apikey',
    area: 'auth',
    description: 'also takes the key from an apikey header: a Kong key-auth plugin in front, left with its default key_names, beside the application\'s bearer check',
    rules: ['AUTH-10'],
    overrides: {
      authenticate: keyTakenFrom((request) => {
        const value = request.headers.apikey;
        return typeof value === 'string' ? value : undefined;
      }),
    },
  },
  {
    id: 'auth-head-skips-guard',
    area: 'auth',
    description: 'guards GET and POST routes alone (chi\'s r.With(auth).Get beside middleware.GetHead, a gateway rule per method), while the router answers HEAD from the GET route: HEAD /pets and HEAD /pets/{petId} are 200 without a key, their headers showing what GET would',
    rules: ['AUTH-12'],
    overrides: { authenticate: guardOnGetAndPost() },
  },
  openSpelling('auth-guard-exact-trailing-slash', 'guards /v1/pets by its exact path while the router also takes /v1/pets/ for it (Express\'s default non-strict routing): GET and POST /pets/ work without a key', { trailingSlash: true }),
  openSpelling('auth-guard-exact-double-slash', 'guards the exact paths while a proxy in front merges doubled slashes (nginx merge_slashes) after the gateway\'s check: //pets works without a key', { duplicateSlashes: true }),
  openSpelling('auth-guard-exact-letter-case', 'guards the exact paths case-sensitively while the router matches without case (ASP.NET Core, Spring with caseSensitive off): /PETS works without a key', { caseInsensitive: true }),
  openSpelling('auth-guard-exact-dot-segments', 'guards the raw path while a proxy resolves dot segments before routing: /./pets works without a key', { dotSegments: true }),
  openSpelling('auth-guard-exact-format-suffix', 'guards the exact paths while the router takes a format suffix (Rails, Spring\'s suffix pattern match): /pets.json works without a key', { formatSuffix: true }),
  openSpelling('auth-guard-exact-path-parameters', 'guards the raw path while the servlet container strips path parameters (;jsessionid=, Spring matrix variables) before routing: /pets;v=1 works without a key', { pathParameters: true }),
  openSpelling('auth-guard-raw-router-decodes', 'guards the path as sent, percent-encoded, while the router decodes it before matching: /%70ets is /pets to the router and no guarded path to the guard', {}),
  // ── habits of the blind gallery of round 1 ──
  {
    id: 'auth-invalid-key-403',
    area: 'auth',
    description: 'answers a key it does not know with 403: an AWS API Gateway Lambda authorizer\'s Deny policy is a 403, while a request with no Authorization header gets the gateway\'s 401 (its gateway responses mapped to the Error shape)',
    // Every broken credential but a missing one is presented, and denied; an unknown key with an invalid body too.
    rules: ['AUTH-02', 'AUTH-03', 'AUTH-04', 'AUTH-05', 'AUTH-07', 'AUTH-11'],
    overrides: {
      unauthorized: (request, reference, server) => (presentedCredentials(request)
        ? server.seams.error(403, 'forbidden', 'User is not authorized to access this resource with an explicit deny')
        : reference(request)),
    },
  },
  // ── how stacks compare keys, and what they serve to no key at all ──
  {
    id: 'auth-timing-safe-equal-throws',
    area: 'auth',
    description: 'compares the token with crypto.timingSafeEqual(Buffer.from(token), Buffer.from(key)), which throws a RangeError when the two differ in length, and nothing catches it: an unknown key of another length is answered 500',
    rules: ['AUTH-03', 'AUTH-07', 'ERR-04'],
    alsoMetIn: ['errors'],
    overrides: {
      authorizes: (authorization, reference, server) => {
        const token = bearerToken(authorization);
        if (token === undefined) return reference(authorization);
        return server.seams.acceptedKeys().some((key) => {
          if (Buffer.byteLength(token) !== Buffer.byteLength(key)) throw new RangeError('Input buffers must have the same byte length');
          return timingSafeEqual(Buffer.from(token), Buffer.from(key));
        });
      },
    },
  },
  {
    id: 'auth-anonymous-role-empty',
    area: 'auth',
    description: 'serves a request without Authorization as the anonymous role, as PostgREST and Supabase do, whose row-level security hides every pet: GET /pets and GET /store/orders answer 200 [], GET /pets/{petId} 404, instead of 401 (a POST is refused by the insert policy)',
    rules: ['AUTH-01', 'AUTH-07', 'AUTH-10', 'AUTH-12'],
    overrides: {
      authenticate: (request, operation, reference, server) => {
        if (presentedCredentials(request) || operation === undefined || operation === 'createPet') return reference(request, operation);
        // The anonymous role reads through policies that match no row.
        return operation === 'getPet' ? server.seams.petNotFound(request) : json(200, []);
      },
    },
  },
] as const satisfies readonly DefectSpec[];
