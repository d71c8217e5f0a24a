import type { DefectSpec } from './spec.js';

// Pets enough that a page past 100 can be served.
const MANY = { preload: 150 } as const;
// Ten pets of each status, so filters and their interplay with limit have something to cut.
const MIXED = { preload: 30 } as const;

/** Defects of the listing area. */
export const LISTING_DEFECTS = [
  { id: 'list-default-limit-10', area: 'listing', description: 'answers GET /pets without limit with 10 pets', rules: ['LIST-02', 'LIST-14', 'FUZZ-03', 'CONS-07'] },
  {
    id: 'list-limit-ignored',
    area: 'listing',
    description: 'ignores limit and always answers a page of 20',
    rules: ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-11', 'FUZZ-03', 'CONS-04', 'CONS-06'],
    byChance: ['CONS-07'],
    options: MANY,
  },
  {
    id: 'list-limit-off-by-one',
    area: 'listing',
    description: 'answers limit=N with N+1 pets',
    rules: ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-11', 'FUZZ-03', 'CONS-04'],
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
    rules: ['LIST-09', 'LIST-11', 'FUZZ-03', 'CONS-05'],
    options: MIXED,
  },
  {
    id: 'list-status-empty',
    area: 'listing',
    description: 'answers any status filter with an empty list',
    rules: ['LIST-10', 'LIST-11', 'FUZZ-03', 'CONS-06', 'CONS-07'],
    options: MIXED,
  },
  {
    id: 'list-status-drops-limit',
    area: 'listing',
    description: 'ignores limit when status is given (answers up to 20 pets of that status)',
    rules: ['LIST-11', 'CONS-04'],
    // A generated sequence may list a status with a limit below what it holds, and more than 20 of a status may
    // exist by the last pages, depending on the seed.
    byChance: ['FUZZ-03', 'CONS-06', 'CONS-07'],
    options: MIXED,
  },
  {
    id: 'list-categoryid-string',
    area: 'listing',
    description: 'writes categoryId as a JSON string in list items',
    rules: ['LIST-01', 'FUZZ-03'],
    options: MIXED,
  },
  {
    id: 'list-wrapped-object',
    area: 'listing',
    description: 'answers GET /pets with {"items": [...]} instead of an array',
    rules: ['LIST-01', 'LIST-02', 'LIST-03', 'LIST-04', 'LIST-05', 'LIST-09', 'LIST-10', 'LIST-11', 'FUZZ-03'],
    options: MIXED,
  },
  // ── where the page is cut, and when ──
  {
    id: 'list-filter-after-limit',
    area: 'listing',
    description: 'cuts the page before filtering it (SQL LIMIT in a subquery, WHERE status outside it; or an in-memory slice, then filter), so status=S&limit=L comes back short',
    // Ten of each status interleaved: every default page of a status still holds some, only LIST-11's chosen case shows it.
    rules: ['LIST-11', 'CONS-07'],
    byChance: ['FUZZ-03', 'CONS-06'],
    options: MIXED,
  },
  {
    id: 'list-filter-no-default-page',
    area: 'listing',
    description: 'applies the default page of 20 only in the unfiltered branch of the query, so status=S without limit answers every pet of S',
    rules: ['LIST-14', 'CONS-04'],
  },
  {
    id: 'list-no-default-page',
    area: 'listing',
    description: 'has no default page at all (Rails Pet.all, limit applied only when given), so GET /pets answers every pet',
    rules: ['LIST-02', 'LIST-14', 'FUZZ-03', 'CONS-04'],
  },
  // ── the bounds of limit ──
  {
    id: 'list-limit-100-refused',
    area: 'listing',
    description: 'refuses limit=100 with 400: the schema says exclusiveMaximum: 100, or the check is written limit < 100',
    rules: ['LIST-04', 'FUZZ-03'],
  },
  {
    id: 'list-limit-1-refused',
    area: 'listing',
    description: 'refuses limit=1 with 400: the lower bound is written limit > 1 (or exclusiveMinimum: 1)',
    // AUTH-09 sends its lowercase "bearer" request as GET /pets?limit=1 and wants a 200, so the refusal shows there too.
    rules: ['LIST-03', 'AUTH-09', 'FUZZ-03'],
  },
  {
    id: 'list-limit-string-compare',
    area: 'listing',
    description: 'compares the limit with MAX_PAGE_SIZE read from the environment, both strings, so "7" > "100" and limit=7 is refused',
    // LIST-11 asks for a limit of 2 here ("2" > "100" as well).
    rules: ['LIST-05', 'LIST-11'],
    byChance: ['FUZZ-03'],
    options: MIXED,
  },
  {
    id: 'list-limit-0-unlimited',
    area: 'listing',
    description: 'reads limit=0 as "no limit" (Python `if limit:` is false for 0, so the query is never cut) and answers every pet',
    rules: ['LIST-06'],
    options: MANY,
  },
  {
    id: 'list-limit-negative-slice',
    area: 'listing',
    description: 'hands a negative limit unchecked to a Python slice, pets[:-1], which answers all pets but the last',
    rules: ['LIST-06'],
    options: MANY,
  },
  // ── how the page and its refusals are written ──
  {
    id: 'list-default-status-omitted',
    area: 'listing',
    description: 'leaves status out of list items whose status is available: Jackson @JsonInclude(NON_DEFAULT) on a DTO whose status defaults to AVAILABLE',
    rules: ['LIST-09', 'LIST-10', 'FUZZ-03', 'CONS-01', 'CONS-05'],
  },
  {
    id: 'list-limit-422-detail',
    area: 'listing',
    description: 'refuses a bad limit the FastAPI way: 422 with {"detail": [{"loc": ["query", "limit"], ...}]} instead of an Error body',
    rules: ['LIST-06', 'LIST-07', 'ERR-02'],
  },
] as const satisfies readonly DefectSpec[];
