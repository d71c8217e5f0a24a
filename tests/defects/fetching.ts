import { INT32, INT64 } from '../../helpers/spec/facts.js';
import { integerSegment, PET_ID_REFUSED } from '../../server/fetching.js';
import { json, text } from '../../server/responses.js';
import { onAnswer, onPetBody, without } from '../../server/seams.js';
import type { DefectSpec } from './spec.js';

// Ten pets of each status, so a petId prefix names a pet that exists.
const MIXED = { preload: 30 } as const;

/** Defects of the fetching area. */
export const FETCHING_DEFECTS = [
  {
    id: 'fetch-unknown-200-empty',
    area: 'fetching',
    description: 'answers an unknown pet with 200 {}',
    rules: ['FETCH-02', 'FUZZ-03', 'CONS-10'],
    overrides: {
      petNotFound: () => json(200, {}),
    },
  },
  {
    id: 'fetch-unknown-404-text',
    area: 'fetching',
    description: 'answers an unknown pet with 404 and an empty text/plain body',
    rules: ['FETCH-02', 'FUZZ-03', 'ERR-01', 'ERR-02'],
    overrides: {
      petNotFound: () => text(404, 'text/plain; charset=utf-8', ''),
    },
  },
  {
    id: 'fetch-parseint-petid',
    area: 'fetching',
    description: 'reads petId with parseInt, so /pets/12abc is pet 12',
    rules: ['FETCH-03'],
    // parseInt only shows when the prefix names a pet that exists.
    options: MIXED,
    overrides: {
      parsePetId: (raw) => {
        const id = Number.parseInt(raw, 10);
        return Number.isFinite(id) ? { value: BigInt(id) } : PET_ID_REFUSED;
      },
    },
  },
  {
    id: 'fetch-id-lossy-double',
    area: 'fetching',
    description: 'looks petId up through a double, so ids above 2^53 miss or hit a neighbour',
    rules: ['FETCH-01', 'CREATE-05', 'FUZZ-03', 'CONS-02', 'CONS-09'],
    // The unknown id one past the highest seen rounds onto the highest pet or past it, by how many pets the run
    // has created (the tie breaks to the even double): FETCH-02 then fails or not, whatever the seed.
    byChance: ['FETCH-02'],
    options: { firstId: 2n ** 53n + 1n },
    overrides: {
      findPet: (id, reference) => reference(BigInt(Number(id))),
    },
  },
  {
    id: 'fetch-removed',
    area: 'fetching',
    description: 'has no GET /pets/{petId} (404 for every pet)',
    rules: ['FETCH-01', 'CREATE-05', 'VER-02', 'FUZZ-03', 'CONS-09'],
    // Every read of a created pet is read again until --read-lag has passed: a whole run sends some 530 requests,
    // past the harness's windows (240, 400), and sat out a minute's window (64 s).
    options: { rateLimit: { limit: 700, windowMs: 60_000 } },
    overrides: {
      serves: (operation, reference) => operation !== 'getPet' && reference(operation),
    },
  },
  // ── a pet that does not exist ──
  {
    id: 'fetch-unknown-500',
    area: 'fetching',
    description: 'crashes on an unknown pet with 500: Optional.get() on an empty Optional (Java), None.name (Python), the miss never checked',
    rules: ['FETCH-02', 'FUZZ-03', 'ERR-04'],
    overrides: {
      petNotFound: () => {
        throw new Error('NoSuchElementException: No value present');
      },
    },
  },
  {
    id: 'fetch-unknown-200-null',
    area: 'fetching',
    description: 'answers an unknown pet with 200 null: a FastAPI handler returns the None its lookup found',
    rules: ['FETCH-02', 'FUZZ-03', 'CONS-10'],
    overrides: {
      petNotFound: () => json(200, null),
    },
  },
  {
    id: 'fetch-unknown-204',
    area: 'fetching',
    description: 'answers an unknown pet with 204 and no body: a Go handler whose middleware sets Content-Type: application/json writes WriteHeader(204) for a nil pet',
    rules: ['FETCH-02', 'FUZZ-03'],
    overrides: {
      // The JSON content type is set for every response up front (a middleware), the body then left out.
      petNotFound: (_request, _reference, server) => ({ status: 204, contentType: server.seams.jsonType() }),
    },
  },
  {
    id: 'fetch-spring-default-404',
    area: 'fetching',
    description: "answers an unknown pet with Spring Boot's default 404 body {timestamp, status, error, path} (ResponseStatusException, no @ControllerAdvice), not the Error",
    rules: ['FETCH-02', 'FUZZ-03', 'ERR-02'],
    overrides: {
      petNotFound: (request) => json(404, { timestamp: new Date().toISOString(), status: 404, error: 'Not Found', path: request.url }),
    },
  },
  {
    id: 'fetch-index-bound-off-by-one',
    area: 'fetching',
    description: 'keeps pets in an array and guards the lookup with index > pets.length where >= was meant: the id after the last pet reads past the end and crashes with 500',
    rules: ['FETCH-02', 'ERR-04'],
    overrides: {
      findPet: (id, _reference, server) => {
        const pets = server.store.all();
        const index = Number(id - server.store.firstId);
        // `index > pets.length` where `>=` was meant: the slot after the last pet passes, and reading it throws.
        if (index < 0 || index > pets.length) return undefined;
        const pet = pets[index];
        if (!pet) throw new TypeError(`Cannot read properties of undefined (reading 'id')`);
        return pet;
      },
    },
  },
  {
    id: 'fetch-array-index-zero-based',
    area: 'fetching',
    description: 'looks a pet up as pets[id] in a 0-based array of 1-based ids, so GET /pets/1 serves pet 2',
    rules: ['FETCH-01', 'CREATE-05', 'FUZZ-03', 'CONS-02', 'CONS-09'],
    overrides: {
      // pets[id] on a 0-based array of 1-based ids: every lookup lands on the next pet.
      findPet: (id, _reference, server) => {
        const index = Number(id - server.store.firstId) + 1;
        return index >= 0 ? server.store.all()[index] : undefined;
      },
    },
  },
  {
    id: 'fetch-lookup-with-at',
    area: 'fetching',
    description: 'looks a pet up as pets.at(id - 1): Array.prototype.at counts a negative index from the end, so GET /pets/-1 serves a pet',
    rules: ['FETCH-02', 'FUZZ-03', 'CONS-02'],
    alsoMetIn: ['creating'],
    overrides: {
      // Array.prototype.at counts a negative index from the end: /pets/-1 serves the last pet but one.
      findPet: (id, _reference, server) => {
        const pets = server.store.all();
        const index = Number(id - server.store.firstId);
        return index < pets.length ? pets.at(index) : undefined;
      },
    },
  },
  // ── reading petId ──
  {
    id: 'fetch-petid-valueerror-500',
    area: 'fetching',
    description: 'answers a petId that is not an integer with 500: Python int("abc") raises ValueError and nothing maps it to a 4xx',
    rules: ['FETCH-03', 'ERR-04'],
    overrides: {
      parsePetId: (raw, reference) => (integerSegment(raw) === undefined ? { status: 500, message: `invalid literal for int() with base 10: '${raw}'` } : reference(raw)),
    },
  },
  {
    id: 'fetch-petid-overflow-500',
    area: 'fetching',
    description: 'answers a petId beyond int64 with 500: Long.parseLong throws NumberFormatException and no handler maps it to a 4xx',
    rules: ['FETCH-03', 'ERR-04'],
    overrides: {
      parsePetId: (raw, reference) => {
        const id = integerSegment(raw);
        return id !== undefined && (id < INT64.min || id > INT64.max) ? { status: 500, message: `NumberFormatException: For input string: "${raw}"` } : reference(raw);
      },
    },
  },
  {
    id: 'fetch-int64-bound-off-by-one',
    area: 'fetching',
    description: 'checks the int64 bound as id <= 2^63, so 9223372036854775808 reaches the bigint column and its cast fails with 500',
    rules: ['FETCH-03', 'ERR-04'],
    overrides: {
      // 2^63 itself gets through to the bigint column, whose cast fails.
      parsePetId: (raw, reference) => (integerSegment(raw) === INT64.max + 1n ? { status: 500, message: 'ERROR: bigint out of range' } : reference(raw)),
    },
  },
  {
    id: 'fetch-petid-int32',
    area: 'fetching',
    description: 'reads petId with Integer.parseInt (int32) where the spec says int64, so an unknown id past 2^31 - 1 gets 400 instead of 404',
    rules: ['FETCH-02', 'FUZZ-03'],
    overrides: {
      parsePetId: (raw, reference) => {
        const id = integerSegment(raw);
        return id !== undefined && (id < INT32.min || id > INT32.max) ? PET_ID_REFUSED : reference(raw);
      },
    },
  },
  {
    id: 'fetch-petid-unsigned',
    area: 'fetching',
    description: 'reads petId with strconv.ParseUint (Go) or as u64 where the spec says int64, so the unknown id -1 gets 400 instead of 404',
    rules: ['FETCH-02', 'FUZZ-03'],
    overrides: {
      parsePetId: (raw, reference) => {
        const id = integerSegment(raw);
        return id !== undefined && id < 0n ? PET_ID_REFUSED : reference(raw);
      },
    },
  },
  {
    id: 'fetch-status-omitted',
    area: 'fetching',
    description: 'leaves status out of the getPet body: its DTO was written before status existed and nobody added the field',
    rules: ['FETCH-01', 'CREATE-05', 'FUZZ-03', 'CONS-01'],
    overrides: {
      petBody: onPetBody('getPet', (body) => without(body, 'status')),
    },
  },
  {
    id: 'fetch-pg-int8-strings',
    area: 'fetching',
    description: 'serves GET /pets/{petId} from a raw query through node-postgres, which returns int8 columns as strings: id and categoryId come back as "7" and "3"',
    rules: ['FETCH-01', 'CREATE-05', 'FUZZ-03', 'CONS-10'],
    overrides: {
      petBody: onPetBody('getPet', (body) => ({ ...body, id: String(body.id), categoryId: String(body.categoryId) })),
    },
  },
  // ── habits of the blind gallery of round 1 ──
  {
    id: 'fetch-unknown-200-no-body',
    area: 'fetching',
    description: 'answers an unknown pet with 200 and no body: a NestJS controller returns the undefined its repository found, which Express sends as an empty 200',
    rules: ['FETCH-02', 'FUZZ-03'],
    overrides: {
      petNotFound: () => ({ status: 200 }),
    },
  },
  {
    id: 'fetch-unknown-403-hidden',
    area: 'fetching',
    description: 'answers an unknown pet with 403, so as not to tell which ids exist, as S3 answers AccessDenied for a missing key to a caller without s3:ListBucket',
    rules: ['FETCH-02', 'FUZZ-03'],
    overrides: {
      petNotFound: (_request, _reference, server) => server.seams.error(403, 'access_denied', 'Access Denied'),
    },
  },
  {
    id: 'fetch-rows-array',
    area: 'fetching',
    description: 'answers GET /pets/{petId} with the rows of its query, [pet], where rows[0] was meant: mysql2\'s const [rows] = await db.query(...) sent as res.json(rows)',
    rules: ['FETCH-01', 'CREATE-05', 'FUZZ-03', 'CONS-10'],
    overrides: {
      respond: onAnswer('getPet', (answer) => (answer.status === 200 ? { ...answer, json: [answer.json] } : answer)),
    },
  },
] as const satisfies readonly DefectSpec[];
