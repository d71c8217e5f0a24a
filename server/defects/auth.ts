import type { DefectSpec } from './spec.js';

const ERROR_BODY_RULES = ['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04', 'AUTH-05'] as const;
/** Every 401 the run provokes: each credential check judges its Error, AUTH-10 and AUTH-11 as much as AUTH-01..05. */
const EVERY_401_RULES = [...ERROR_BODY_RULES, 'AUTH-10', 'AUTH-11'] as const;
/** A route served without a key: every broken credential succeeds on it, and so does a request that is invalid besides. */
const PUBLIC_ROUTE_RULES = [...ERROR_BODY_RULES, 'AUTH-07'] as const;

/** Defects of the auth area. */
export const AUTH_DEFECTS = [
  // The key elsewhere comes without Authorization too, so AUTH-10 is served as well.
  { id: 'auth-missing-key-accepted', area: 'auth', description: 'serves requests without Authorization', rules: ['AUTH-01', 'AUTH-07', 'AUTH-10'] },
  { id: 'auth-empty-token-accepted', area: 'auth', description: 'serves "Bearer" with an empty token', rules: ['AUTH-02'] },
  { id: 'auth-any-key-accepted', area: 'auth', description: 'serves any non-empty bearer token', rules: ['AUTH-03', 'AUTH-07'] },
  { id: 'auth-basic-accepted', area: 'auth', description: 'serves the key under the Basic scheme', rules: ['AUTH-04'] },
  { id: 'auth-bare-key-accepted', area: 'auth', description: 'serves the bare key without a scheme', rules: ['AUTH-05'] },
  {
    id: 'auth-401-empty-body',
    area: 'auth',
    description: 'answers 401 with an empty text/plain body',
    rules: [...EVERY_401_RULES, 'ERR-01', 'ERR-02'],
  },
  { id: 'auth-403', area: 'auth', description: 'answers a missing or invalid key with 403 instead of 401', rules: [...EVERY_401_RULES, 'AUTH-07'] },
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
  {
    id: 'auth-key-prefix-accepted',
    area: 'auth',
    description: 'compares the token with token.startsWith(key), so the key followed by anything passes',
    rules: ['AUTH-03'],
  },
  {
    id: 'auth-truncated-key-accepted',
    area: 'auth',
    description: 'compares only as many characters as the token has (key.startsWith(token), strncmp with the token length), so a truncated key passes',
    rules: ['AUTH-03'],
  },
  {
    id: 'auth-key-case-insensitive',
    area: 'auth',
    description: 'compares the token case-insensitively (equalsIgnoreCase, strings.EqualFold), as if the key were a header name',
    rules: ['AUTH-03'],
  },
  {
    id: 'auth-header-lowercased',
    area: 'auth',
    description: 'lower-cases the whole Authorization header to match "bearer" in any case, lower-casing the token with it',
    rules: ['AUTH-03'],
  },
  {
    id: 'auth-scheme-ignored',
    area: 'auth',
    description: 'takes header.split(" ")[1] as the key and never looks at the scheme, so "Token <key>" and "Basic <key>" pass',
    rules: ['AUTH-04'],
  },
  {
    id: 'auth-header-includes-key',
    area: 'auth',
    description: 'accepts any Authorization header that contains the key (header.includes(key)): any scheme, no scheme, extra characters',
    rules: ['AUTH-03', 'AUTH-04', 'AUTH-05', 'AUTH-11'],
  },
  {
    id: 'auth-list-public',
    area: 'auth',
    description: 'serves GET /pets without a key: the auth wrapper sits on the /pets/ subtree (Go ServeMux pattern), which does not cover /pets',
    // AUTH-10 and AUTH-11 send GET /pets.
    rules: [...PUBLIC_ROUTE_RULES, 'AUTH-10', 'AUTH-11'],
  },
  {
    id: 'auth-get-pet-public',
    area: 'auth',
    description: 'serves GET /pets/{petId} without a key: the auth decorator or middleware was forgotten on that one route',
    rules: [...PUBLIC_ROUTE_RULES],
  },
  {
    id: 'auth-reads-public',
    area: 'auth',
    description: 'protects only mutating methods ("public reads", before_action :authenticate, only: [:create]): every GET is served without a key',
    rules: [...PUBLIC_ROUTE_RULES, 'AUTH-10', 'AUTH-11'],
  },
  {
    id: 'auth-create-public',
    area: 'auth',
    description: 'serves POST /pets without a key: the route was registered before app.use(auth), which Express applies only to later routes',
    rules: [...PUBLIC_ROUTE_RULES],
  },
  {
    id: 'auth-lookup-before-key',
    area: 'auth',
    description: 'getPet finds the pet before authorizing (authorization in the service after findById): an unknown pet without a key gets 404, petId=abc 400',
    rules: ['AUTH-07'],
  },
  {
    id: 'auth-after-query-validation',
    area: 'auth',
    description: 'validates the GET /pets query before the key (a validator middleware such as celebrate mounted ahead of auth): limit=0 without a key gets 400',
    rules: ['AUTH-07'],
  },
  {
    id: 'auth-after-petid-parse',
    area: 'auth',
    description: 'parses petId before calling the auth helper in the handler (strconv.ParseInt first, as in Go net/http): /pets/abc without a key gets 400',
    rules: ['AUTH-07'],
  },
  {
    id: 'auth-express-jwt-json',
    area: 'auth',
    description: 'answers 401 with express-jwt\'s error as {"message": "No authorization token was found"} (no code, no status) and no WWW-Authenticate',
    rules: [...EVERY_401_RULES, 'AUTH-08', 'ERR-02'],
  },
  {
    id: 'auth-express-html',
    area: 'auth',
    description: 'answers 401 with Express\'s default HTML error page (finalhandler, text/html) and no WWW-Authenticate',
    rules: [...EVERY_401_RULES, 'AUTH-08', 'ERR-01', 'ERR-02'],
  },
  {
    id: 'auth-key-in-query-api-key',
    area: 'auth',
    description: 'also takes the key from ?api_key=: an OpenAPI security scheme apiKey in: query (the name Swagger\'s own Petstore uses) declared beside the bearer one, either of which passes',
    rules: ['AUTH-10'],
  },
  {
    id: 'auth-key-in-cookie',
    area: 'auth',
    description: 'also takes the key from a cookie named token: express-jwt\'s getToken written to fall back to req.cookies.token when the header is missing',
    rules: ['AUTH-10'],
  },
  {
    id: 'auth-key-in-x-api-key',
    area: 'auth',
    description: 'also takes the key from an X-API-Key header: an API gateway\'s key check (AWS API Gateway, Kong key-auth) in front of the service, which trusts whatever the gateway let through',
    rules: ['AUTH-10'],
  },
  {
    id: 'auth-bearer-regex-no-space',
    area: 'auth',
    description: 'reads the token with /^Bearer\\s*(\\S+)$/i, \\s* where \\s+ was meant, so Bearer<key> with no space passes',
    rules: ['AUTH-11'],
  },
  {
    id: 'auth-scheme-cut-by-length',
    area: 'auth',
    description: 'takes the token as header.substring("Bearer".length).trim(), never looking at the scheme: Bearer<key>, and any six-letter scheme such as "Token <key>" or "Basic <key>", pass',
    rules: ['AUTH-04', 'AUTH-11'],
  },
] as const satisfies readonly DefectSpec[];
