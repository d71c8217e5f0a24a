import type { ServerSettings } from './options.js';

/** The suites of spec/rules.yaml. */
export type Area = 'listing' | 'creating' | 'fetching' | 'auth' | 'store' | 'versioning' | 'errors' | 'ratelimit';

export interface DefectSpec {
  id: string;
  area: Area;
  description: string;
  /** Rule IDs of spec/rules.yaml a conformance run must report as failed under this defect. */
  rules: readonly string[];
  /** Settings without which the defect would not show (they never override what the caller sets). */
  options?: Partial<ServerSettings>;
  /** CLI options without which no check can see the defect (a rule that runs only on request). */
  cliArgs?: readonly string[];
}

// Pets enough that a page past 100 can be served.
const MANY = { preload: 150 } as const;
// Ten pets of each status, so filters and their interplay with limit have something to cut.
const MIXED = { preload: 30 } as const;
const ERROR_BODY_RULES = ['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04', 'AUTH-05'] as const;
const CREATE_400_RULES = ['CREATE-08', 'CREATE-09', 'CREATE-10', 'CREATE-11', 'CREATE-12', 'CREATE-13'] as const;

/** Named ways to break the reference server, each a single `if` at the point of the defect. */
export const DEFECTS = [
  // ── listing ──
  { id: 'list-default-limit-10', area: 'listing', description: 'answers GET /pets without limit with 10 pets', rules: ['LIST-02'] },
  {
    id: 'list-limit-ignored',
    area: 'listing',
    description: 'ignores limit and always answers a page of 20',
    rules: ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-11'],
    options: MANY,
  },
  {
    id: 'list-limit-off-by-one',
    area: 'listing',
    description: 'answers limit=N with N+1 pets',
    rules: ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-11'],
    options: MANY,
  },
  {
    id: 'list-limit-unbounded',
    area: 'listing',
    description: 'honours a limit above 100 (limit=1000 returns every pet)',
    rules: ['LIST-06'],
    options: MANY,
  },
  { id: 'list-limit-nonpositive-500', area: 'listing', description: 'answers limit=0 or a negative limit with 500', rules: ['LIST-06', 'ERR-04'] },
  { id: 'list-limit-noninteger-500', area: 'listing', description: 'answers a non-integer or empty limit with 500', rules: ['LIST-07', 'ERR-04'] },
  {
    id: 'list-status-ignored',
    area: 'listing',
    description: 'ignores the status filter',
    rules: ['LIST-09', 'LIST-11'],
    options: MIXED,
  },
  {
    id: 'list-status-empty',
    area: 'listing',
    description: 'answers any status filter with an empty list',
    rules: ['LIST-10', 'LIST-11'],
    options: MIXED,
  },
  {
    id: 'list-status-drops-limit',
    area: 'listing',
    description: 'ignores limit when status is given (answers up to 20 pets of that status)',
    rules: ['LIST-11'],
    options: MIXED,
  },
  {
    id: 'list-categoryid-string',
    area: 'listing',
    description: 'writes categoryId as a JSON string in list items',
    rules: ['LIST-01'],
    options: MIXED,
  },
  {
    id: 'list-wrapped-object',
    area: 'listing',
    description: 'answers GET /pets with {"items": [...]} instead of an array',
    rules: ['LIST-01', 'LIST-02', 'LIST-03', 'LIST-04', 'LIST-05', 'LIST-09', 'LIST-10', 'LIST-11'],
    options: MIXED,
  },
  // ── creating ──
  { id: 'create-200', area: 'creating', description: 'answers a created pet with 200 instead of 201', rules: ['CREATE-01', 'FUZZ-02'] },
  {
    id: 'create-no-id',
    area: 'creating',
    description: 'leaves id out of the 201 body (the pet is stored with one)',
    rules: ['CREATE-02', 'CREATE-04', 'CREATE-05', 'FUZZ-02'],
  },
  {
    id: 'create-status-not-echoed',
    area: 'creating',
    description: 'leaves status out of the 201 body (it is stored)',
    rules: ['CREATE-03', 'FUZZ-02'],
  },
  {
    id: 'create-categoryid-double',
    area: 'creating',
    description: 'stores categoryId as a double, so values above 2^53 come back changed',
    rules: ['CREATE-03', 'CREATE-05', 'FUZZ-02'],
  },
  {
    id: 'create-same-id',
    area: 'creating',
    description: 'gives every created pet the first id',
    // GET of that id serves the last pet stored under it, so every other pet cannot be fetched back.
    rules: ['CREATE-04', 'CREATE-05', 'FETCH-01'],
  },
  {
    id: 'create-not-stored',
    area: 'creating',
    description: 'answers 201 but forgets the pet (GET gives 404, lists leave it out)',
    // The list checks count the pets the server said it created: every page comes back short.
    rules: ['CREATE-05', 'LIST-02', 'LIST-03', 'LIST-04', 'LIST-05', 'LIST-10', 'LIST-11', 'FETCH-01'],
  },
  {
    id: 'create-missing-status-unknown',
    area: 'creating',
    description: 'gives a pet created without status the status "unknown"',
    rules: ['CREATE-06', 'FUZZ-02'],
  },
  { id: 'create-name-optional', area: 'creating', description: 'accepts a body without name', rules: ['CREATE-08', 'FUZZ-01'] },
  {
    id: 'create-categoryid-string-coerced',
    area: 'creating',
    description: 'accepts categoryId "7" as 7',
    rules: ['CREATE-09', 'FUZZ-01'],
  },
  { id: 'create-null-accepted', area: 'creating', description: 'accepts null for name, categoryId and status', rules: ['CREATE-09', 'FUZZ-01'] },
  {
    id: 'create-fraction-truncated',
    area: 'creating',
    description: 'accepts a fractional or exponent categoryId and truncates it',
    rules: ['CREATE-10', 'FUZZ-01'],
  },
  {
    id: 'create-status-unchecked',
    area: 'creating',
    description: 'accepts any status string (Available, unknown, …)',
    rules: ['CREATE-11', 'FUZZ-01'],
  },
  { id: 'create-array-body', area: 'creating', description: 'accepts an array body and creates its first element', rules: ['CREATE-12', 'FUZZ-01'] },
  { id: 'create-malformed-500', area: 'creating', description: 'answers malformed JSON or an empty body with 500', rules: ['CREATE-13', 'ERR-04', 'FUZZ-01'] },
  {
    id: 'create-422',
    area: 'creating',
    description: 'answers every invalid body with 422 instead of 400',
    rules: [...CREATE_400_RULES, 'FUZZ-01'],
  },
  {
    id: 'create-int32-categoryid',
    area: 'creating',
    description: 'rejects a categoryId outside int32 with 400',
    rules: ['CREATE-03', 'FUZZ-02'],
  },
  // ── fetching ──
  { id: 'fetch-unknown-200-empty', area: 'fetching', description: 'answers an unknown pet with 200 {}', rules: ['FETCH-02'] },
  {
    id: 'fetch-unknown-404-text',
    area: 'fetching',
    description: 'answers an unknown pet with 404 and an empty text/plain body',
    rules: ['FETCH-02', 'ERR-01', 'ERR-02'],
  },
  {
    id: 'fetch-parseint-petid',
    area: 'fetching',
    description: 'reads petId with parseInt, so /pets/12abc is pet 12',
    rules: ['FETCH-03'],
    // parseInt only shows when the prefix names a pet that exists.
    options: MIXED,
  },
  {
    id: 'fetch-id-lossy-double',
    area: 'fetching',
    description: 'looks petId up through a double, so ids above 2^53 miss or hit a neighbour',
    rules: ['FETCH-01', 'CREATE-05'],
    options: { firstId: 2n ** 53n + 1n },
  },
  {
    id: 'fetch-removed',
    area: 'fetching',
    description: 'has no GET /pets/{petId} (404 for every pet)',
    rules: ['FETCH-01', 'CREATE-05', 'VER-02'],
  },
  // ── auth ──
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
  // ── store ──
  { id: 'store-orders-missing', area: 'store', description: 'has no GET /store/orders (404)', rules: ['STORE-01'] },
  // ── versioning ──
  { id: 'base-path-api', area: 'versioning', description: 'serves under /api instead of /v1', rules: ['VER-01'] },
  // ── errors ──
  { id: 'errors-text-plain', area: 'errors', description: 'sends every error as text/plain (the body is still the JSON Error)', rules: ['ERR-01'] },
  { id: 'errors-status-always-400', area: 'errors', description: 'writes status 400 in every Error body', rules: ['ERR-03', 'RATE-09'] },
  {
    id: 'errors-without-code',
    area: 'errors',
    description: 'leaves code out of every Error body',
    rules: ['ERR-02', ...ERROR_BODY_RULES, ...CREATE_400_RULES, 'LIST-06', 'LIST-07', 'FETCH-02', 'FUZZ-01', 'RATE-09'],
  },
  { id: 'list-text-plain', area: 'errors', description: 'sends the GET /pets list as text/plain', rules: ['ERR-05'] },
  { id: 'errors-unknown-status-500', area: 'errors', description: 'answers an unknown status filter with 500', rules: ['ERR-04'] },
  // ── rate limits ──
  {
    id: 'rate-headers-missing-on-errors',
    area: 'ratelimit',
    // The probe's 429 is an error response too, and RATE-10 judges its headers.
    description: 'leaves the X-RateLimit headers off error responses (the 429 included)',
    rules: ['RATE-01', 'RATE-10'],
  },
  { id: 'rate-remaining-frozen', area: 'ratelimit', description: 'always reports X-RateLimit-Remaining equal to the limit', rules: ['RATE-04', 'RATE-10'] },
  { id: 'rate-reset-delta-seconds', area: 'ratelimit', description: 'sends X-RateLimit-Reset as seconds until the reset', rules: ['RATE-05'] },
  {
    id: 'rate-remaining-above-limit',
    area: 'ratelimit',
    description: 'reports X-RateLimit-Remaining above X-RateLimit-Limit (until it reaches 0)',
    rules: ['RATE-03'],
  },
  { id: 'rate-limit-header-decimal', area: 'ratelimit', description: 'sends X-RateLimit-Limit as "1000.0"', rules: ['RATE-02'] },
  { id: 'rate-429-no-retry-after', area: 'ratelimit', description: 'sends 429 without Retry-After', rules: ['RATE-08'] },
  { id: 'rate-429-text-body', area: 'ratelimit', description: 'sends 429 with a text/plain "Too Many Requests" body', rules: ['RATE-09'] },
  { id: 'rate-never-429', area: 'ratelimit', description: 'never enforces the limit (headers still count down)', rules: ['RATE-07'] },
  { id: 'rate-429-remaining-nonzero', area: 'ratelimit', description: 'reports X-RateLimit-Remaining 1 on a 429', rules: ['RATE-10'] },
  {
    id: 'rate-window-never-resets',
    area: 'ratelimit',
    description: 'keeps answering 429 after Retry-After has passed (a limited credential never gets a fresh window)',
    rules: ['RATE-11'],
    // Recovery is checked only on request; a short window keeps the wait for Retry-After to seconds.
    options: { rateLimit: { limit: 1000, windowMs: 5_000 } },
    cliArgs: ['--verify-recovery'],
  },
] as const satisfies readonly DefectSpec[];

export type DefectId = (typeof DEFECTS)[number]['id'];

const BY_ID = new Map<string, DefectSpec>(DEFECTS.map((defect) => [defect.id, defect]));

export function isDefectId(id: string): id is DefectId {
  return BY_ID.has(id);
}

export function defectById(id: DefectId): DefectSpec {
  return BY_ID.get(id)!;
}
