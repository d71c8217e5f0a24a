import { PAGE_SIZE, PET_STATUSES } from '../../helpers/spec/facts.js';
import { firstOf, integerParameter, LIMIT_REFUSED, pageSize, withStatus } from '../../server/listing.js';
import { json } from '../../server/responses.js';
import { onAnswer, onPetBody, without, type Refusal } from '../../server/seams.js';
import type { PreloadPet } from '../../server/settings.js';
import type { DefectSpec } from './spec.js';

// Pets enough that a page past 100 can be served.
const MANY = { preload: 150 } as const;
// Ten pets of each status, so filters and their interplay with limit have something to cut.
const MIXED = { preload: 30 } as const;
// Documents written before the status enum was narrowed, never migrated: the oldest pets of a lived-in store.
const LEGACY_STORE: readonly PreloadPet[] = [
  ...['Biscuit', 'Pepper', 'Rusty'].map((name, i) => ({ name, categoryId: BigInt(i + 1), status: 'adopted' })),
  ...Array.from({ length: 27 }, (_, i) => ({ name: `Pet ${i + 1}`, categoryId: BigInt((i % 7) + 1), status: PET_STATUSES[i % PET_STATUSES.length]! })),
];
// An exception nothing maps to a 4xx.
const CRASH: Refusal = { status: 500, message: 'internal error' };

/** Defects of the listing area. */
export const LISTING_DEFECTS = [
  {
    id: 'list-default-limit-10',
    area: 'listing',
    description: 'answers GET /pets without limit with 10 pets',
    rules: ['LIST-02', 'LIST-14', 'FUZZ-03', 'CONS-07'],
    overrides: {
      selectPage: (pets, query, reference) => reference(pets, query.limit === undefined ? { ...query, limit: 10 } : query),
    },
  },
  {
    id: 'list-limit-ignored',
    area: 'listing',
    description: 'ignores limit and always answers a page of 20',
    rules: ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-11', 'FUZZ-03', 'CONS-04', 'CONS-06'],
    byChance: ['CONS-07'],
    options: MANY,
    overrides: {
      // Every page is the default page.
      selectPage: (pets, query, reference) => reference(pets, { ...query, limit: undefined }),
    },
  },
  {
    id: 'list-limit-off-by-one',
    area: 'listing',
    description: 'answers limit=N with N+1 pets',
    rules: ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-11', 'FUZZ-03', 'CONS-04'],
    options: MANY,
    overrides: {
      selectPage: (pets, query, reference) => reference(pets, query.limit === undefined ? query : { ...query, limit: query.limit + 1 }),
    },
  },
  {
    id: 'list-limit-unbounded',
    area: 'listing',
    description: 'honours a limit above 100 (limit=1000 returns every pet)',
    rules: ['LIST-06'],
    options: MANY,
    overrides: {
      parseLimit: (raw, reference) => {
        const limit = integerParameter(raw);
        return limit !== undefined && limit > PAGE_SIZE.max ? { value: limit } : reference(raw);
      },
    },
  },
  {
    id: 'list-limit-nonpositive-500',
    area: 'listing',
    description: 'answers limit=0 or a negative limit with 500',
    rules: ['LIST-06', 'ERR-04'],
    overrides: {
      parseLimit: (raw, reference) => {
        const limit = integerParameter(raw);
        return limit !== undefined && limit < PAGE_SIZE.min ? CRASH : reference(raw);
      },
    },
  },
  {
    id: 'list-limit-noninteger-500',
    area: 'listing',
    description: 'answers a non-integer or empty limit with 500',
    rules: ['LIST-07', 'ERR-04'],
    overrides: {
      parseLimit: (raw, reference) => (raw !== undefined && integerParameter(raw) === undefined ? CRASH : reference(raw)),
    },
  },
  {
    id: 'list-status-ignored',
    area: 'listing',
    description: 'ignores the status filter',
    rules: ['LIST-09', 'LIST-11', 'FUZZ-03', 'CONS-05'],
    options: MIXED,
    overrides: {
      selectPage: (pets, query, reference) => reference(pets, { ...query, status: undefined }),
    },
  },
  {
    id: 'list-status-empty',
    area: 'listing',
    description: 'answers any status filter with an empty list',
    // LIST-14 too: the store holds ten of each status, and the fixtures make one of them 21.
    rules: ['LIST-10', 'LIST-11', 'LIST-14', 'FUZZ-03', 'CONS-06', 'CONS-07'],
    options: MIXED,
    overrides: {
      selectPage: (pets, query, reference) => (query.status === undefined ? reference(pets, query) : []),
    },
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
    overrides: {
      selectPage: (pets, query, reference) => reference(pets, query.status === undefined ? query : { ...query, limit: undefined }),
    },
  },
  {
    id: 'list-categoryid-string',
    area: 'listing',
    description: 'writes categoryId as a JSON string in list items',
    rules: ['LIST-01', 'FUZZ-03', 'CONS-10'],
    options: MIXED,
    overrides: {
      petBody: onPetBody('listPets', (body, pet) => ({ ...body, categoryId: String(pet.categoryId) })),
    },
  },
  {
    id: 'list-wrapped-object',
    area: 'listing',
    description: 'answers GET /pets with {"items": [...]} instead of an array',
    rules: ['LIST-01', 'LIST-02', 'LIST-03', 'LIST-04', 'LIST-05', 'LIST-09', 'LIST-10', 'LIST-11', 'FUZZ-03'],
    options: MIXED,
    overrides: {
      respond: onAnswer('listPets', (answer) => (answer.status === 200 ? { ...answer, json: { items: answer.json } } : answer)),
    },
  },
  // ── where the page is cut, and when ──
  {
    id: 'list-filter-after-limit',
    area: 'listing',
    description: 'cuts the page before filtering it (SQL LIMIT in a subquery, WHERE status outside it; or an in-memory slice, then filter), so status=S&limit=L comes back short',
    // Ten of each status interleaved: every default page of a status still holds some, and LIST-11's chosen case shows
    // it comes back short; so does LIST-14's, since the fixtures make one status 21 and its default page is cut first.
    rules: ['LIST-11', 'LIST-14', 'CONS-07'],
    byChance: ['FUZZ-03', 'CONS-06'],
    options: MIXED,
    overrides: {
      // SELECT … FROM (SELECT … LIMIT n) WHERE status = ?: the page is cut before it is filtered.
      selectPage: (pets, query, reference) => reference(firstOf(pets, pageSize(query)), query),
    },
  },
  {
    id: 'list-filter-no-default-page',
    area: 'listing',
    description: 'applies the default page of 20 only in the unfiltered branch of the query, so status=S without limit answers every pet of S',
    rules: ['LIST-14', 'CONS-04'],
    overrides: {
      selectPage: (pets, query, reference) => reference(pets, query.limit === undefined && query.status !== undefined ? { ...query, limit: Number.POSITIVE_INFINITY } : query),
    },
  },
  {
    id: 'list-no-default-page',
    area: 'listing',
    description: 'has no default page at all (Rails Pet.all, limit applied only when given), so GET /pets answers every pet',
    rules: ['LIST-02', 'LIST-14', 'FUZZ-03', 'CONS-04'],
    overrides: {
      selectPage: (pets, query, reference) => reference(pets, query.limit === undefined ? { ...query, limit: Number.POSITIVE_INFINITY } : query),
    },
  },
  // ── the bounds of limit ──
  {
    id: 'list-limit-100-refused',
    area: 'listing',
    description: 'refuses limit=100 with 400: the schema says exclusiveMaximum: 100, or the check is written limit < 100',
    rules: ['LIST-04', 'FUZZ-03'],
    overrides: {
      parseLimit: (raw, reference) => {
        const limit = integerParameter(raw);
        return limit !== undefined && limit >= PAGE_SIZE.max ? LIMIT_REFUSED : reference(raw);
      },
    },
  },
  {
    id: 'list-limit-1-refused',
    area: 'listing',
    description: 'refuses limit=1 with 400: the lower bound is written limit > 1 (or exclusiveMinimum: 1)',
    // AUTH-09 sends its lowercase "bearer" request as GET /pets?limit=1 and wants a 200, so the refusal shows there too.
    rules: ['LIST-03', 'AUTH-09', 'FUZZ-03'],
    overrides: {
      parseLimit: (raw, reference) => {
        const limit = integerParameter(raw);
        return limit !== undefined && limit <= PAGE_SIZE.min ? LIMIT_REFUSED : reference(raw);
      },
    },
  },
  {
    id: 'list-limit-string-compare',
    area: 'listing',
    description: 'compares the limit with MAX_PAGE_SIZE read from the environment, both strings, so "7" > "100" and limit=7 is refused',
    // LIST-11 asks for a limit of 2 here ("2" > "100" as well).
    rules: ['LIST-05', 'LIST-11'],
    byChance: ['FUZZ-03'],
    options: MIXED,
    overrides: {
      // "7" > "100": the comparison is lexicographic.
      parseLimit: (raw, reference) => (integerParameter(raw) !== undefined && String(raw) > String(PAGE_SIZE.max) ? LIMIT_REFUSED : reference(raw)),
    },
  },
  {
    id: 'list-limit-0-unlimited',
    area: 'listing',
    description: 'reads limit=0 as "no limit" (Python `if limit:` is false for 0, so the query is never cut) and answers every pet',
    rules: ['LIST-06'],
    options: MANY,
    overrides: {
      parseLimit: (raw, reference) => (integerParameter(raw) === 0 ? { value: Number.POSITIVE_INFINITY } : reference(raw)),
    },
  },
  {
    id: 'list-limit-negative-slice',
    area: 'listing',
    description: 'hands a negative limit unchecked to a Python slice, pets[:-1], which answers all pets but the last',
    rules: ['LIST-06'],
    options: MANY,
    overrides: {
      // Handed unchecked to pets[:limit], where -1 means "all but the last".
      parseLimit: (raw, reference) => {
        const limit = integerParameter(raw);
        return limit !== undefined && limit < 0 ? { value: limit } : reference(raw);
      },
    },
  },
  // ── how the page and its refusals are written ──
  {
    id: 'list-default-status-omitted',
    area: 'listing',
    description: 'leaves status out of list items whose status is available: Jackson @JsonInclude(NON_DEFAULT) on a DTO whose status defaults to AVAILABLE',
    rules: ['LIST-09', 'LIST-10', 'FUZZ-03', 'CONS-01', 'CONS-05'],
    overrides: {
      petBody: onPetBody('listPets', (body) => (body.status === 'available' ? without(body, 'status') : body)),
    },
  },
  {
    id: 'list-limit-422-detail',
    area: 'listing',
    description: 'refuses a bad limit the FastAPI way: 422 with {"detail": [{"loc": ["query", "limit"], ...}]} instead of an Error body',
    rules: ['LIST-06', 'LIST-07', 'ERR-02'],
    overrides: {
      // FastAPI's own validation answer: 422 and {"detail": [...]}, not the spec's Error.
      invalidParameter: (parameter, refusal, reference) => (parameter === 'limit' && refusal.status === 400
        ? json(422, { detail: [{ loc: ['query', 'limit'], msg: refusal.message, type: 'value_error' }] })
        : reference(parameter, refusal)),
    },
  },
  // ── habits of the blind gallery of round 1 ──
  {
    id: 'list-legacy-status-unmigrated',
    area: 'listing',
    description: 'lists documents a MongoDB collection held before the status enum was narrowed ("adopted"), never migrated: the schema validates writes only, so the oldest pets are served with a status no Pet can have',
    rules: ['LIST-01', 'FUZZ-03', 'CONS-10'],
    options: { preload: LEGACY_STORE },
  },
  {
    id: 'list-snake-case-members',
    area: 'listing',
    description: 'writes list items with category_id: the index renders the ActiveRecord models as they are (render json: @pets, snake_case attributes), while create and show go through a serializer that camelises keys',
    rules: ['LIST-01', 'FUZZ-03', 'CONS-10'],
    options: MIXED,
    overrides: {
      petBody: onPetBody('listPets', ({ categoryId, ...body }) => ({ ...body, category_id: categoryId })),
    },
  },
  // ── how the query is built ──
  {
    id: 'list-status-switch-no-sold',
    area: 'listing',
    description: 'filters with a switch over the status whose cases are available and pending only: sold falls through to the default branch, which lists every pet',
    rules: ['LIST-09', 'CONS-05'],
    // A generated or fixed sequence lists sold pets when the seed or the store's counts lead it there.
    byChance: ['FUZZ-03'],
    options: MIXED,
    overrides: {
      selectPage: (pets, query, reference) => reference(pets, query.status === 'sold' ? { ...query, status: undefined } : query),
    },
  },
  {
    id: 'list-status-elif-limit',
    area: 'listing',
    description: 'builds the query with an if/elif chain (if limit: q = q[:limit] elif status: q = q.filter(status=status)), so a status sent with a limit is never applied',
    rules: ['LIST-11', 'FUZZ-03', 'CONS-05'],
    options: MIXED,
    overrides: {
      selectPage: (pets, query, reference) => reference(pets, query.limit === undefined ? query : { ...query, status: undefined }),
    },
  },
  {
    id: 'list-offset-page-from-one',
    area: 'listing',
    description: 'pages with OFFSET page * limit while page counts from 1 and defaults to 1 ((page - 1) * limit was meant): without a page, every answer skips the first page\'s worth of pets',
    rules: ['LIST-04', 'LIST-10', 'LIST-14', 'FUZZ-03', 'CONS-06', 'CONS-07'],
    options: MIXED,
    overrides: {
      selectPage: (pets, query) => {
        const size = pageSize(query);
        return firstOf(withStatus(pets, query.status).slice(size), size);
      },
    },
  },
] as const satisfies readonly DefectSpec[];
