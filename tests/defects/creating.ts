import type { FastifyRequest } from 'fastify';
import { isLosslessNumber, LosslessNumber, parse } from 'lossless-json';
import { INT32, PET_STATUSES } from '../../helpers/spec/facts.js';
import { bodyText } from '../../server/creating.js';
import { INTEGER_LITERAL, isPetStatus, own, readInt64Literal } from '../../server/new-pet.js';
import { json, text } from '../../server/responses.js';
import { onAnswer, onPetBody, without, type Context, type PetBody, type SeamOverride } from '../../server/seams.js';
import type { DefectSpec } from './spec.js';

const CREATE_400_RULES = ['CREATE-08', 'CREATE-09', 'CREATE-10', 'CREATE-11', 'CREATE-12', 'CREATE-13'] as const;
// The largest value of a Go uint64.
const UINT64_MAX = 2n ** 64n - 1n;
// A VARCHAR(255) column.
const VARCHAR_LENGTH = 255;
// The lookups that let a near miss through: `status in STATUS_MAP` finds Object.prototype's members.
const STATUS_MAP: Record<string, true> = { available: true, pending: true, sold: true };
// Express's default error handler (finalhandler) for body-parser's SyntaxError.
const EXPRESS_BAD_REQUEST = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Bad Request</pre>\n</body>\n</html>\n';

/** Whether the NewPet of a request is named as a pet the server holds already. */
function nameTaken(request: FastifyRequest, server: Context): boolean {
  const read = server.seams.readNewPet(bodyText(request));
  return read.ok && typeof read.pet.name === 'string' && server.store.all().some((pet) => pet.name === read.pet.name);
}

/** A readName override for a stack that changes every name it reads (trims, normalises, escapes, cuts) before storing it. */
/** A store that throws (the server answers 500) on a name its column cannot hold, and stores every other pet. */
function storageRefusingNames(cannotHold: (name: string) => boolean, error: string): SeamOverride<'storePet'> {
  return (pet, reference) => {
    if (typeof pet.name === 'string' && cannotHold(pet.name)) throw new Error(error);
    reference(pet);
  };
}

function nameAs(change: (name: string) => string): SeamOverride<'readName'> {
  return (raw, reference) => {
    const name = reference(raw);
    return 'value' in name && typeof name.value === 'string' ? { value: change(name.value) } : name;
  };
}

// validator.js escape(), as express-validator's .escape() applies it.
function escapeHtml(name: string): string {
  return name.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/\//g, '&#x2F;').replace(/\\/g, '&#x5C;').replace(/`/g, '&#96;');
}

/**
 * What ajv's type coercion (fastify's coerceTypes) makes of a value before validation: with `arrays`, a
 * one-element array unwrapped (coerceTypes: 'array'), then scalars converted to the type the schema names.
 */
function coerced(value: unknown, type: 'string' | 'integer', { arrays }: { arrays: boolean }): unknown {
  if (arrays && Array.isArray(value) && value.length === 1) value = value[0];
  if (type === 'string') {
    if (value === null) return '';
    if (typeof value === 'boolean' || isLosslessNumber(value)) return String(value);
    return value;
  }
  if (value === null || value === false) return new LosslessNumber('0');
  if (value === true) return new LosslessNumber('1');
  if (typeof value === 'string' && /^-?[0-9]+$/.test(value)) return new LosslessNumber(value);
  return value;
}

/** Go's json.Decoder.Decode: the first JSON value of the text, whatever follows it. */
function firstValue(text: string): unknown {
  let lastError: unknown;
  for (let end = text.length; end > 0; end--) {
    try {
      return parse(text.slice(0, end));
    } catch (error) {
      lastError ??= error;
    }
  }
  throw lastError ?? new SyntaxError('unexpected end of JSON input');
}

/** Defects of the creating area. */
export const CREATING_DEFECTS = [
  {
    id: 'create-200',
    area: 'creating',
    description: 'answers a created pet with 200 instead of 201',
    rules: ['CREATE-01', 'FUZZ-02', 'FUZZ-03'],
    mishandlesEvery: { shape: 'anything' },
    overrides: {
      respond: onAnswer('createPet', (answer) => (answer.status === 201 ? { ...answer, status: 200 } : answer)),
    },
  },
  {
    id: 'create-no-id',
    area: 'creating',
    description: 'leaves id out of the 201 body (the pet is stored with one)',
    rules: ['CREATE-02', 'CREATE-04', 'CREATE-05', 'FUZZ-02', 'FUZZ-03'],
    mishandlesEvery: { shape: 'anything' },
    overrides: {
      petBody: onPetBody('createPet', (body) => without(body, 'id')),
    },
  },
  {
    id: 'create-status-not-echoed',
    area: 'creating',
    description: 'leaves status out of the 201 body (it is stored)',
    rules: ['CREATE-03', 'FUZZ-02', 'FUZZ-03'],
    mishandlesEvery: { shape: 'int64-beyond-double' },
    overrides: {
      petBody: onPetBody('createPet', (body) => without(body, 'status')),
    },
  },
  {
    id: 'create-categoryid-double',
    area: 'creating',
    description: 'stores categoryId as a double, so values above 2^53 come back changed',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'FUZZ-02', 'FUZZ-03', 'CONS-01', 'CONS-10'],
    mishandlesEvery: { shape: 'int64-beyond-double' },
    overrides: {
      readNewPet: (text, reference) => {
        const read = reference(text);
        return read.ok && read.pet.categoryId !== null ? { ...read, pet: { ...read.pet, categoryId: Number(read.pet.categoryId) } } : read;
      },
    },
  },
  {
    id: 'create-same-id',
    area: 'creating',
    description: 'gives every created pet the first id',
    // GET of that id serves the last pet stored under it, so every other pet cannot be fetched back.
    rules: ['CREATE-04', 'CREATE-05', 'FETCH-01', 'FUZZ-03', 'CONS-08'],
    overrides: {
      allocateId: async (_fields, _reference, server) => server.store.firstId,
    },
  },
  {
    id: 'create-not-stored',
    area: 'creating',
    description: 'answers 201 but forgets the pet (GET gives 404, lists leave it out)',
    // The list checks count the pets the server said it created: every page comes back short.
    rules: ['CREATE-05', 'LIST-02', 'LIST-03', 'LIST-04', 'LIST-05', 'LIST-10', 'LIST-11', 'LIST-14', 'FETCH-01', 'FUZZ-03', 'CONS-06', 'CONS-07', 'CONS-09'],
    overrides: {
      storePet: () => {},
    },
  },
  {
    id: 'create-missing-status-unknown',
    area: 'creating',
    description: 'gives a pet created without status the status "unknown"',
    rules: ['CREATE-06', 'FUZZ-02', 'FUZZ-03', 'CONS-10'],
    mishandlesEvery: { shape: 'status-absent' },
    overrides: {
      readNewPet: (text, reference) => {
        const read = reference(text);
        return read.ok && read.pet.status === undefined ? { ...read, pet: { ...read.pet, status: 'unknown' } } : read;
      },
    },
  },
  {
    id: 'create-name-optional',
    area: 'creating',
    description: 'accepts a body without name',
    rules: ['CREATE-08', 'FUZZ-01', 'FUZZ-03', 'CONS-10'],
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      readName: (raw, reference) => (raw === undefined ? { value: undefined } : reference(raw)),
    },
  },
  {
    id: 'create-categoryid-string-coerced',
    area: 'creating',
    description: 'accepts categoryId "7" as 7',
    rules: ['CREATE-09', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'categoryId-as-string' },
    overrides: {
      readCategoryId: (raw, reference) => (typeof raw === 'string' ? readInt64Literal(raw) : reference(raw)),
    },
  },
  {
    id: 'create-null-accepted',
    area: 'creating',
    description: 'accepts null for name, categoryId and status',
    rules: ['CREATE-09', 'FUZZ-01', 'FUZZ-03', 'CONS-10'],
    mishandlesEvery: { mutation: 'null-field' },
    overrides: {
      readName: (raw, reference) => (raw === null ? { value: null } : reference(raw)),
      readCategoryId: (raw, reference) => (raw === null ? { value: null } : reference(raw)),
      readStatus: (raw, reference) => (raw === null ? { value: null } : reference(raw)),
    },
  },
  {
    id: 'create-fraction-truncated',
    area: 'creating',
    description: 'accepts a fractional or exponent categoryId and truncates it',
    rules: ['CREATE-10', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'categoryId-fraction' },
    overrides: {
      readCategoryId: (raw, reference) => (isLosslessNumber(raw) && !INTEGER_LITERAL.test(raw.value) && Number.isFinite(Number(raw.value))
        ? readInt64Literal(String(Math.trunc(Number(raw.value))))
        : reference(raw)),
    },
  },
  {
    id: 'create-status-unchecked',
    area: 'creating',
    description: 'accepts any status string (Available, unknown, …)',
    rules: ['CREATE-11', 'FUZZ-01', 'FUZZ-03', 'CONS-10'],
    mishandlesEvery: { mutation: 'status-outside-enum' },
    overrides: {
      readStatus: (raw, reference) => (typeof raw === 'string' ? { value: raw } : reference(raw)),
    },
  },
  {
    id: 'create-array-body',
    area: 'creating',
    description: 'accepts an array body and creates its first element',
    rules: ['CREATE-12', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'body-in-array' },
    overrides: {
      parseBody: (text, reference) => {
        const body = reference(text);
        return Array.isArray(body) ? body[0] : body;
      },
    },
  },
  {
    id: 'create-malformed-500',
    area: 'creating',
    description: 'answers malformed JSON or an empty body with 500',
    rules: ['CREATE-13', 'CREATE-20', 'ERR-04', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'malformed-json' },
    overrides: {
      readNewPet: (text, reference, server) => {
        try {
          server.seams.parseBody(text);
        } catch (error) {
          return { ok: false, status: 500, code: 'internal_error', message: String(error) };
        }
        return reference(text);
      },
    },
  },
  {
    id: 'create-422',
    area: 'creating',
    description: 'answers every invalid body with 422 instead of 400',
    rules: [...CREATE_400_RULES, 'CREATE-19', 'CREATE-20', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      invalidNewPet: (failure, request, reference, server) => (failure.status === 400 ? server.seams.error(422, failure.code, failure.message) : reference(failure, request)),
    },
  },
  {
    id: 'create-int32-categoryid',
    area: 'creating',
    description: 'rejects a categoryId outside int32 with 400',
    // No body FUZZ-02 sends makes its catch certain: the check excuses a refused body the server may refuse for a
    // limit of its own (a long name, control characters, a name sent twice), so it meets the defaults' random volume.
    rules: ['CREATE-03', 'FUZZ-02'],
    overrides: {
      readCategoryId: (raw, reference) => {
        if (!isLosslessNumber(raw) || !INTEGER_LITERAL.test(raw.value)) return reference(raw);
        const id = BigInt(raw.value);
        return id < INT32.min || id > INT32.max ? { problem: `categoryId must be within ${INT32.min}..${INT32.max}, got ${raw.value}` } : reference(raw);
      },
    },
  },

  // ── names: string handling of the stack ──
  {
    id: 'create-name-stripped',
    area: 'creating',
    description: 'strips leading and trailing whitespace from the name (Python str.strip(), Pydantic str_strip_whitespace, Rails squish)',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'FUZZ-03', 'CONS-01'],
    byChance: ['FUZZ-02'],
    overrides: {
      readName: nameAs((name) => name.trim()),
    },
  },
  {
    id: 'create-name-nfc',
    area: 'creating',
    description: 'normalises the name to Unicode NFC before storing it (unicodedata.normalize, String.prototype.normalize)',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'FUZZ-03', 'CONS-01'],
    byChance: ['FUZZ-02'],
    overrides: {
      readName: nameAs((name) => name.normalize('NFC')),
    },
  },
  {
    id: 'create-name-html-escaped',
    area: 'creating',
    description: 'HTML-escapes the name on the way in (express-validator .escape(): <&>"\'/\\ become entities)',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'FUZZ-03', 'CONS-01'],
    byChance: ['FUZZ-02'],
    overrides: {
      readName: nameAs(escapeHtml),
    },
  },
  {
    id: 'create-name-varchar-255',
    area: 'creating',
    description: 'cuts the name to 255 characters without a word (a VARCHAR(255) column, MySQL outside strict mode)',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'FUZZ-03', 'CONS-01'],
    byChance: ['FUZZ-02'],
    overrides: {
      readName: nameAs((name) => [...name].slice(0, VARCHAR_LENGTH).join('')),
    },
  },
  {
    id: 'create-name-utf8mb3',
    area: 'creating',
    description: 'stores a 4-byte character of the name as ? (a MySQL utf8mb3 column), while the 201 echoes the request entity (JPA save without refresh)',
    rules: ['CREATE-05', 'CREATE-14', 'FUZZ-03', 'CONS-01'],
    overrides: {
      // Outside strict mode each 4-byte character is stored as '?'.
      storePet: (pet, reference) => reference(typeof pet.name === 'string' ? { ...pet, name: pet.name.replace(/[\u{10000}-\u{10FFFF}]/gu, '?') } : pet),
    },
  },

  // ── categoryId: falsy values and coercion ──
  {
    id: 'create-categoryid-zero-refused',
    area: 'creating',
    description: 'refuses categoryId 0 as missing (a falsy check: if (!body.categoryId))',
    rules: ['CREATE-03'],
    byChance: ['FUZZ-02'],
    overrides: {
      readCategoryId: (raw, reference) => {
        const categoryId = reference(raw);
        return 'value' in categoryId && categoryId.value === 0n ? { problem: 'categoryId is required' } : categoryId;
      },
    },
  },
  {
    id: 'create-categoryid-bool-as-int',
    area: 'creating',
    description: 'accepts categoryId true as 1 (Python bool is an int; Pydantic lax mode)',
    rules: ['CREATE-09'],
    byChance: ['FUZZ-01'],
    overrides: {
      readCategoryId: (raw, reference) => (typeof raw === 'boolean' ? { value: raw ? 1n : 0n } : reference(raw)),
    },
  },
  {
    id: 'create-ajv-coerce-types',
    area: 'creating',
    description: 'coerces types before validating (fastify/ajv coerceTypes: true): name 42 becomes "42", categoryId "7" 7 and true 1, null becomes "" or 0',
    rules: ['CREATE-09'],
    byChance: ['FUZZ-01'],
    overrides: {
      member: (body, key, reference) => coerced(reference(body, key), key === 'categoryId' ? 'integer' : 'string', { arrays: false }),
    },
  },
  {
    id: 'create-ajv-coerce-array',
    area: 'creating',
    description: 'coerces with fastify/ajv coerceTypes: \'array\': a one-element array such as ["available"] or [1] is unwrapped into the scalar, then scalars are coerced',
    rules: ['CREATE-09'],
    byChance: ['FUZZ-01'],
    overrides: {
      member: (body, key, reference) => coerced(reference(body, key), key === 'categoryId' ? 'integer' : 'string', { arrays: true }),
    },
  },
  {
    id: 'create-jackson-null-primitive',
    area: 'creating',
    description: 'binds categoryId to a primitive long: Jackson leaves it 0 when the member is null or missing (FAIL_ON_NULL_FOR_PRIMITIVES is off by default)',
    rules: ['CREATE-08', 'CREATE-09'],
    byChance: ['FUZZ-01'],
    overrides: {
      readCategoryId: (raw, reference) => (raw === null || raw === undefined ? { value: 0n } : reference(raw)),
    },
  },
  {
    id: 'create-go-zero-values',
    area: 'creating',
    description: 'decodes into a Go struct without pointer fields: a missing or null name is "", categoryId 0, and nothing tells them from values sent',
    rules: ['CREATE-08', 'CREATE-09'],
    byChance: ['FUZZ-01'],
    overrides: {
      readName: (raw, reference) => (raw === null || raw === undefined ? { value: '' } : reference(raw)),
      readCategoryId: (raw, reference) => (raw === null || raw === undefined ? { value: 0n } : reference(raw)),
      readStatus: (raw, reference) => (raw === null ? { value: undefined } : reference(raw)),
    },
  },

  // ── status: enum lookups ──
  {
    id: 'create-jackson-enum-ordinal',
    area: 'creating',
    description: 'reads a number into the status enum as its ordinal (Jackson, FAIL_ON_NUMBERS_FOR_ENUMS off by default): status 1 is pending',
    rules: ['CREATE-09'],
    byChance: ['FUZZ-01'],
    overrides: {
      readStatus: (raw, reference) => {
        const ordinal = isLosslessNumber(raw) ? PET_STATUSES[Number(raw.value)] : undefined;
        return ordinal === undefined ? reference(raw) : { value: ordinal };
      },
    },
  },
  {
    id: 'create-status-in-lookup',
    area: 'creating',
    description: 'checks status with `status in STATUS_MAP` on an object literal, which also finds Object.prototype members such as "constructor"',
    rules: ['CREATE-11', 'FUZZ-03', 'CONS-10'],
    // fast-check's random strings favour Object.prototype's names (__proto__, toString, valueOf: some 0.8% of
    // them), so FUZZ-01's random statuses meet this defect in a few runs out of a hundred.
    byChance: ['FUZZ-01'],
    overrides: {
      readStatus: (raw, reference) => (typeof raw === 'string' && raw in STATUS_MAP ? { value: raw } : reference(raw)),
    },
  },
  {
    id: 'create-status-regex-unanchored',
    area: 'creating',
    description: 'checks status against the unanchored /available|pending|sold/, so "available " or "sold-out" pass',
    rules: ['CREATE-11', 'FUZZ-03', 'CONS-10'],
    byChance: ['FUZZ-01'],
    overrides: {
      readStatus: (raw, reference) => (typeof raw === 'string' && /available|pending|sold/.test(raw) ? { value: raw } : reference(raw)),
    },
  },
  {
    id: 'create-status-lowercased',
    area: 'creating',
    description: 'lower-cases status before validating it ("Available" is accepted and stored as available)',
    rules: ['CREATE-11'],
    byChance: ['FUZZ-01'],
    overrides: {
      readStatus: (raw, reference) => (typeof raw === 'string' && isPetStatus(raw.toLowerCase()) ? { value: raw.toLowerCase() } : reference(raw)),
    },
  },
  {
    id: 'create-status-empty-as-absent',
    area: 'creating',
    description: 'takes status "" for no status (a falsy check: if (body.status))',
    rules: ['CREATE-11'],
    byChance: ['FUZZ-01'],
    overrides: {
      readStatus: (raw, reference) => (raw === '' ? { value: undefined } : reference(raw)),
    },
  },
  {
    id: 'create-rails-enum-500',
    area: 'creating',
    description: 'assigns status to a Rails ActiveRecord enum, whose ArgumentError for an unmapped value goes unrescued: 500 (a blank value becomes nil)',
    rules: ['CREATE-11', 'ERR-04', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'status-outside-enum' },
    overrides: {
      // A blank value becomes nil.
      readStatus: (raw, reference) => (raw === '' ? { value: undefined } : reference(raw)),
      // Any other string the enum does not map raises, unrescued.
      readNewPet: (text, reference, server) => {
        const read = reference(text);
        if (read.ok || read.member !== 'status') return read;
        const status = server.seams.member(server.seams.parseBody(text) as Record<string, unknown>, 'status');
        if (typeof status !== 'string' || status.trim() === '') return read;
        return { ok: false, status: 500, code: 'internal_error', message: `ArgumentError: '${status}' is not a valid status` };
      },
    },
  },

  // ── bodies: what Go's decoder and the frameworks' own 400s do ──
  {
    id: 'create-go-case-insensitive-keys',
    area: 'creating',
    description: 'matches members case-insensitively, as Go\'s encoding/json does: {"Name": …, "CategoryId": 1} creates a pet',
    rules: ['CREATE-08'],
    overrides: {
      member: (body, key, reference) => {
        if (Object.hasOwn(body, key)) return reference(body, key);
        const other = Object.keys(body).find((candidate) => candidate.toLowerCase() === key.toLowerCase());
        return other === undefined ? undefined : body[other];
      },
    },
  },
  {
    id: 'create-go-trailing-data',
    area: 'creating',
    description: 'reads the body with Go\'s json.NewDecoder(r.Body).Decode, which takes the first JSON value and ignores what follows',
    rules: ['CREATE-13'],
    byChance: ['FUZZ-01'],
    overrides: {
      parseBody: (text) => firstValue(text),
    },
  },
  {
    id: 'create-express-html-400',
    area: 'creating',
    description: 'leaves body-parser\'s SyntaxError to Express\'s default error handler: malformed JSON and non-object bodies get an HTML 400 page',
    rules: ['CREATE-12', 'CREATE-13', 'ERR-01', 'ERR-02', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'body-not-object' },
    overrides: {
      // body-parser in strict mode throws for any non-empty body that is not JSON, or not an object or array
      // (an empty one it reads as {}), and the default error handler answers with an HTML page.
      invalidNewPet: (failure, request, reference) => {
        const body = bodyText(request);
        const thrown = failure.status === 400 && body.length > 0 && (failure.code === 'invalid_json' || !/^\s*[{[]/.test(body));
        return thrown ? text(400, 'text/html; charset=utf-8', EXPRESS_BAD_REQUEST) : reference(failure, request);
      },
    },
  },
  {
    id: 'create-spring-default-error',
    area: 'creating',
    description: 'answers an unreadable body (HttpMessageNotReadableException) with Spring Boot\'s default error body {timestamp, status, error, path}',
    rules: ['CREATE-12', 'CREATE-13', 'ERR-02', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'malformed-json' },
    overrides: {
      // An HttpMessageNotReadableException (Jackson could not read the body) gets the default error body.
      invalidNewPet: (failure, request, reference) => (failure.status === 400 && failure.unreadable
        ? json(400, { timestamp: new Date().toISOString(), status: 400, error: 'Bad Request', path: request.url })
        : reference(failure, request)),
    },
  },
  {
    id: 'create-fastify-validation-error',
    area: 'creating',
    description: 'answers every invalid body with fastify\'s own error shape {statusCode, code, error, message}, which has no status',
    rules: [...CREATE_400_RULES, 'ERR-02', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      invalidNewPet: (failure, request, reference) => {
        if (failure.status !== 400) return reference(failure, request);
        const empty = bodyText(request).trim() === '';
        const code = failure.code === 'invalid_json' ? (empty ? 'FST_ERR_CTP_EMPTY_JSON_BODY' : 'FST_ERR_CTP_INVALID_JSON_BODY') : 'FST_ERR_VALIDATION';
        return json(400, { statusCode: 400, code, error: 'Bad Request', message: failure.message });
      },
    },
  },

  // ── ids and what the 201 says ──
  {
    id: 'create-client-id-honoured',
    area: 'creating',
    description: 'spreads the body over the id it assigned ({ id, ...body }, mass assignment): a client-sent id is taken, duplicates included',
    rules: ['CREATE-04', 'CONS-08'],
    overrides: {
      // { id, ...body }: the client's id, when the body has one, is spread over the one assigned.
      readNewPet: (text, reference, server) => {
        const read = reference(text);
        if (!read.ok) return read;
        const id = own(server.seams.parseBody(text) as Record<string, unknown>, 'id');
        return isLosslessNumber(id) && INTEGER_LITERAL.test(id.value) ? { ...read, pet: { ...read.pet, id: BigInt(id.value) } } : read;
      },
      allocateId: async (fields, reference) => fields.id ?? reference(fields),
    },
  },
  {
    id: 'create-201-no-body',
    area: 'creating',
    description: 'answers 201 with a Location and no body (Spring ResponseEntity.created(uri).build())',
    // No body, so no content type to judge either: ERR-05 judges bodies, and the rules on what a 201 carries fail.
    rules: ['CREATE-02', 'CREATE-03', 'CREATE-04', 'CREATE-05', 'CREATE-06', 'FUZZ-02', 'FUZZ-03'],
    mishandlesEvery: { shape: 'anything' },
    overrides: {
      respond: onAnswer('createPet', (answer, _request, server) => (answer.status === 201
        ? { status: 201, headers: { location: `${server.settings.basePath}/pets/${String((answer.json as PetBody).id)}` } }
        : answer)),
    },
  },
  {
    id: 'create-id-as-string',
    area: 'creating',
    description: 'writes the id of the 201 body as a JSON string (a workaround for JSON.stringify and BigInt)',
    rules: ['CREATE-02', 'CREATE-04', 'CREATE-05', 'FUZZ-02', 'FUZZ-03'],
    mishandlesEvery: { shape: 'anything' },
    overrides: {
      // JSON.stringify cannot write a BigInt, so the id goes out as a string.
      petBody: onPetBody('createPet', (body, pet) => ({ ...body, id: String(pet.id) })),
    },
  },
  {
    id: 'create-status-db-default',
    area: 'creating',
    description: 'lets a column DEFAULT give a pet without status "available" while the 201 echoes the entity without it (JPA save without refresh)',
    rules: ['CREATE-05'],
    overrides: {
      storePet: (pet, reference) => reference(pet.status === undefined ? { ...pet, status: 'available' } : pet),
    },
  },
  {
    id: 'list-categoryid-float64',
    area: 'creating',
    description: 'serialises the listing through float64 (Go map[string]interface{}, a JS Number), so categoryIds above 2^53 change in GET /pets only',
    rules: ['CREATE-14', 'FUZZ-03', 'CONS-01', 'CONS-10'],
    overrides: {
      petBody: onPetBody('listPets', (body, pet) => (pet.categoryId !== null ? { ...body, categoryId: Number(pet.categoryId) } : body)),
    },
  },
  {
    id: 'create-content-type-exact-415',
    area: 'creating',
    description: 'answers 415 unless Content-Type is exactly "application/json" (req.headers[\'content-type\'] !== \'application/json\'), refusing a charset parameter and another letter case',
    rules: ['CREATE-16'],
    overrides: {
      respond: async (operation, request, reference, server) => (operation === 'createPet' && request.headers['content-type'] !== 'application/json'
        ? server.seams.error(415, 'unsupported_media_type', 'Content-Type must be application/json')
        : reference(operation, request)),
    },
  },
  {
    id: 'create-content-type-case-sensitive',
    area: 'creating',
    description: 'parses the body only when Content-Type.startsWith(\'application/json\'), so Application/JSON reaches the handler without a body and gets 400',
    rules: ['CREATE-16'],
    overrides: {
      respond: async (operation, request, reference, server) => (operation === 'createPet' && !(request.headers['content-type'] ?? '').startsWith('application/json')
        ? server.seams.error(400, 'invalid_body', 'request body is required')
        : reference(operation, request)),
    },
  },
  {
    id: 'create-name-unique-409',
    area: 'creating',
    description: 'keeps names unique (an ORM model with unique=True on name) and answers a repeated name 409 Conflict',
    // CREATE-17 writes a name again; the exploration's repeated-name sequence does too.
    rules: ['CREATE-17', 'FUZZ-03'],
    // Generated names can repeat too, when the seed draws the same suffix twice.
    byChance: ['FUZZ-02'],
    overrides: {
      respond: async (operation, request, reference, server) => (operation === 'createPet' && nameTaken(request, server)
        ? server.seams.error(409, 'conflict', 'a pet of that name exists')
        : reference(operation, request)),
    },
  },
  {
    id: 'create-name-unique-500',
    area: 'creating',
    description: 'keeps names unique with a database constraint no handler catches: a repeated name raises IntegrityError, answered 500',
    rules: ['CREATE-17', 'FUZZ-03', 'ERR-04'],
    byChance: ['FUZZ-02'],
    overrides: {
      storePet: (pet, reference, server) => {
        if (server.store.all().some((held) => held.name === pet.name)) throw new Error('IntegrityError: duplicate key value violates unique constraint "pets_name_key"');
        reference(pet);
      },
    },
  },
  {
    id: 'create-name-nul-500',
    area: 'creating',
    description: 'stores names in a PostgreSQL text column, which refuses U+0000 ("invalid byte sequence for encoding UTF8: 0x00"), and answers the error 500',
    rules: ['CREATE-17', 'ERR-04'],
    // Generated names hold any code point, U+0000 included, when the seed draws it.
    byChance: ['FUZZ-02'],
    overrides: {
      storePet: storageRefusingNames((name) => name.includes('\u0000'), 'invalid byte sequence for encoding "UTF8": 0x00'),
    },
  },
  {
    id: 'create-name-controls-stripped',
    area: 'creating',
    description: 'strips control characters from names before storing and echoing them (a sanitiser\'s replace(/[\\x00-\\x1F\\x7F-\\x9F]/g, \'\'))',
    rules: ['CREATE-17', 'CONS-01', 'FUZZ-03'],
    // Generated names may hold control characters: their echo (FUZZ-02) and their listing as pending (CREATE-14) change too.
    byChance: ['FUZZ-02', 'CREATE-14'],
    overrides: {
      readName: nameAs((name) => name.replace(/[\u0000-\u001f\u007f-\u009f]/gu, '')),
    },
  },
  {
    id: 'create-name-cut-at-nul',
    area: 'creating',
    description: 'stores names through a C-string API (sqlite3_bind_text with length -1), which ends them at U+0000, while the 201 echoes the request\'s entity',
    // The 201 is right; the read CREATE-17 sends after it shows what was stored, which is CONS-01's to judge.
    rules: ['CONS-01', 'FUZZ-03'],
    // A generated pending pet whose name holds U+0000 is listed cut short to CREATE-14 too.
    byChance: ['CREATE-14'],
    overrides: {
      storePet: (pet, reference) => reference(typeof pet.name === 'string' ? { ...pet, name: pet.name.split('\u0000')[0]! } : pet),
    },
  },
  {
    id: 'create-name-latin1-column',
    area: 'creating',
    description: 'stores the name in a latin1 column (MySQL\'s default before 8.0): a character outside Latin-1 is stored as ?, while the 201 echoes the request entity',
    rules: ['CREATE-05', 'CREATE-14', 'FUZZ-03', 'CONS-01'],
    overrides: {
      storePet: (pet, reference) => reference(typeof pet.name === 'string' ? { ...pet, name: pet.name.replace(/[^\u0000-\u00ff]/gu, '?') } : pet),
    },
  },
  {
    id: 'create-auth-after-insert',
    area: 'creating',
    description: 'inserts the pet, then checks the key in an after-hook and answers 401: a refused create is stored all the same (an auth decorator listed below the handler\'s transaction)',
    rules: ['CONS-11'],
    alsoMetIn: ['auth'],
    overrides: {
      authenticate: (request, operation, reference) => (operation === 'createPet' ? undefined : reference(request, operation)),
      respond: async (operation, request, reference, server) => {
        const answer = await reference(operation, request);
        return operation === 'createPet' && !server.seams.authorizes(request.headers.authorization) ? server.seams.unauthorized(request) : answer;
      },
    },
  },
  {
    id: 'create-validate-after-insert',
    area: 'creating',
    description: 'inserts a NewPet without categoryId with the column default 0, then validates it and answers 400, with no rollback: the refused pet is stored',
    rules: ['CONS-11'],
    overrides: {
      respond: async (operation, request, reference, server) => {
        const answer = await reference(operation, request);
        if (operation !== 'createPet' || answer.status !== 400) return answer;
        let body: unknown;
        try {
          body = server.seams.parseBody(bodyText(request));
        } catch {
          return answer;
        }
        const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? body as Record<string, unknown> : {};
        if (typeof fields.name === 'string' && fields.categoryId === undefined) {
          const status = isPetStatus(fields.status) ? { status: fields.status } : {};
          server.seams.storePet({ id: await server.seams.allocateId({ categoryId: 0n }), name: fields.name, categoryId: 0n, ...status, createdAt: new Date().toISOString() });
        }
        return answer;
      },
    },
  },
  {
    id: 'create-categoryid-exponent-digits',
    area: 'creating',
    description: 'reads categoryId with a hand-written scanner that takes the digits before an exponent (1e2 is 1), as parseInt does',
    rules: ['CREATE-19', 'CONS-01'],
    overrides: {
      readNewPet: (text, reference) => reference(text.replace(/("categoryId"\s*:\s*-?[0-9]+)(?:\.[0-9]+)?[eE][+-]?[0-9]+/g, '$1')),
    },
  },
  {
    id: 'create-lone-surrogate-500',
    area: 'creating',
    description: 'answers 500 to a name holding a lone surrogate: PostgreSQL refuses to encode it in a UTF8 column ("invalid byte sequence"), and the error is not caught',
    rules: ['CREATE-19', 'ERR-04'],
    byChance: ['FUZZ-02', 'FUZZ-03'],
    overrides: {
      storePet: storageRefusingNames((name) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(name), 'invalid byte sequence for encoding "UTF8"'),
    },
  },
  {
    id: 'create-escapes-not-decoded',
    area: 'creating',
    description: 'reads names with a regex over the raw JSON text that keeps \\u escapes as they are written, so "\\u0050C" is stored as six characters, not "PC"',
    rules: ['CREATE-17', 'CREATE-19', 'CONS-01'],
    byChance: ['FUZZ-02', 'FUZZ-03'],
    overrides: {
      readNewPet: (text, reference) => reference(text.replace(/\\u([0-9a-fA-F]{4})/g, '\\\\u$1')),
    },
  },
  {
    id: 'create-chunked-body-empty',
    area: 'creating',
    description: 'reads a chunked request body as empty, as a WSGI server without wsgi.input_terminated does (no Content-Length, so nothing to read): a valid NewPet sent chunked is refused as missing its fields',
    rules: ['CREATE-20'],
    overrides: {
      respond: async (operation, request, reference, server) => {
        if (operation !== 'createPet' || !/chunked/i.test(String(request.headers['transfer-encoding'] ?? ''))) return reference(operation, request);
        const read = server.seams.readNewPet('');
        return read.ok ? reference(operation, request) : server.seams.invalidNewPet(read, request);
      },
    },
  },
  {
    id: 'create-non-json-body-500',
    area: 'creating',
    description: 'throws on a body that did not come as application/json, since the JSON body parser leaves req.body undefined (Express 5): a body without a Content-Type, or as text/plain, is answered 500',
    rules: ['CREATE-20', 'ERR-04'],
    alsoMetIn: ['requests', 'errors'],
    overrides: {
      respond: async (operation, request, reference) => {
        if (operation === 'createPet' && !/^application\/json\b/i.test(String(request.headers['content-type'] ?? ''))) throw new TypeError('Cannot destructure property \'name\' of \'req.body\' as it is undefined.');
        return reference(operation, request);
      },
    },
  },

  // ── habits of the blind gallery of round 1 ──
  {
    id: 'create-categoryid-unbounded-int',
    area: 'creating',
    description: 'reads categoryId as a Python int (a Pydantic int field without ge/le bounds, lax mode): no int64 range, so 2^63 and -2^63-1 are accepted and stored, and an integral float such as 9.3e18 becomes the int it holds',
    // The pets stored beyond int64 show on later pages and GETs as no valid Pet.
    rules: ['CREATE-10', 'FUZZ-01', 'FUZZ-03', 'CONS-10'],
    mishandlesEvery: { mutation: 'categoryId-beyond-int64' },
    overrides: {
      readCategoryId: (raw, reference) => {
        if (!isLosslessNumber(raw)) return reference(raw);
        if (INTEGER_LITERAL.test(raw.value)) return { value: BigInt(raw.value) };
        // Lax mode: a float without a fraction is taken as the integer it holds, however large.
        const value = Number(raw.value);
        return Number.isInteger(value) ? { value: BigInt(value) } : reference(raw);
      },
    },
  },
  {
    id: 'pet-status-null-jackson',
    area: 'creating',
    description: 'writes "status": null for a pet created without status, in every answer: Jackson\'s default property inclusion (ALWAYS) serialises the null field of the entity',
    rules: ['CREATE-06', 'FUZZ-02', 'FUZZ-03', 'CONS-10'],
    mishandlesEvery: { shape: 'status-absent' },
    overrides: {
      petBody: (pet, operation, reference) => {
        const body = reference(pet, operation);
        return body.status === undefined ? { ...body, status: null } : body;
      },
    },
  },

  // ── the whole input domain: JSON spellings and framings of a valid NewPet ──
  {
    id: 'create-bigint-from-source-500',
    area: 'creating',
    description: 'keeps int64 exact with JSON.parse\'s reviver and BigInt(context.source) (source text access, Node 21+), which throws a SyntaxError for 1e2, 7.0 or 1.5 that nothing catches: 500 where a 201 or a 400 was due',
    rules: ['CREATE-10', 'CREATE-19', 'ERR-04', 'FUZZ-01'],
    mishandlesEvery: { mutation: 'categoryId-fraction' },
    overrides: {
      // BigInt("1e2") throws "Cannot convert 1e2 to a BigInt", before any range check.
      readCategoryId: (raw, reference) => (isLosslessNumber(raw) ? readInt64Literal(String(BigInt(raw.value))) : reference(raw)),
    },
  },
  {
    id: 'create-empty-name-index-500',
    area: 'creating',
    description: 'files every pet under the initial of its name (initial = name[0].upper(), a column for an A to Z index), which raises IndexError for the empty name: 500 where a 201 or a 400 was due',
    rules: ['CREATE-19', 'ERR-04'],
    overrides: {
      readName: (raw, reference) => {
        if (raw === '') throw new Error('IndexError: string index out of range');
        return reference(raw);
      },
    },
  },
  {
    id: 'create-escaped-pair-split',
    area: 'creating',
    description: 'decodes each \\u escape of a string on its own (a hand-written streaming tokenizer that writes each to its UTF-8 buffer as it reads it), so the two halves of an escaped surrogate pair each become U+FFFD: \\ud83d\\udc3e is stored as two replacement characters, not as one paw',
    rules: ['CREATE-19'],
    overrides: {
      // A surrogate alone has no UTF-8 form: each half is written as U+FFFD, paired or not.
      readNewPet: (text, reference) => reference(text.replace(/(?<!\\)\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g, '\\ufffd')),
    },
  },
  {
    id: 'create-koa-type-check-after-next',
    area: 'creating',
    description: 'checks the Content-Type in a Koa middleware written after await next(), so the handler has created the pet before a body that did not come as application/json is answered 415',
    rules: ['CONS-11'],
    overrides: {
      respond: async (operation, request, reference, server) => {
        const answer = await reference(operation, request);
        // Onion order: this line runs once the downstream handler has stored the pet.
        return operation === 'createPet' && !/^application\/json\b/i.test(String(request.headers['content-type'] ?? ''))
          ? server.seams.error(415, 'unsupported_media_type', 'send the NewPet as application/json')
          : answer;
      },
    },
  },
  {
    id: 'create-status-checked-after-save',
    area: 'creating',
    description: 'saves the pet, then runs model.full_clean() in a post_save signal: a status outside the choices raises a ValidationError answered 400, while the row, committed without ATOMIC_REQUESTS, stays with the status refused',
    // The refused pets show on later pages and GETs, with a status no Pet has.
    rules: ['CONS-11', 'CONS-10', 'FUZZ-03'],
    overrides: {
      respond: async (operation, request, reference, server) => {
        const answer = await reference(operation, request);
        if (operation !== 'createPet' || answer.status !== 400) return answer;
        const text = bodyText(request);
        const read = server.seams.readNewPet(text);
        if (read.ok || read.member !== 'status') return answer;
        // A CharField takes any string: only the choices are checked, after the INSERT. Name and categoryId were read
        // before status, so they are valid here.
        const body = server.seams.parseBody(text) as Record<string, unknown>;
        const status = server.seams.member(body, 'status');
        const name = server.seams.readName(server.seams.member(body, 'name'));
        const categoryId = server.seams.readCategoryId(server.seams.member(body, 'categoryId'));
        if (typeof status !== 'string' || !('value' in name) || !('value' in categoryId)) return answer;
        const fields = { categoryId: categoryId.value, ...(typeof name.value === 'string' ? { name: name.value } : {}) };
        server.seams.storePet({ id: await server.seams.allocateId(fields), ...fields, status, createdAt: new Date().toISOString() });
        return answer;
      },
    },
  },
  {
    id: 'create-aspnet-415-problem',
    area: 'creating',
    description: 'lets ASP.NET Core\'s [ApiController] refuse a body that is not application/json (text/plain, none at all, XML) with its automatic 415, a ProblemDetails body as application/problem+json ({type, title, status, traceId}), not an Error',
    rules: ['ERR-01', 'ERR-02'],
    alsoMetIn: ['errors'],
    overrides: {
      respond: async (operation, request, reference) => (operation === 'createPet' && !/^application\/json\b/i.test(String(request.headers['content-type'] ?? ''))
        ? {
          status: 415,
          contentType: 'application/problem+json; charset=utf-8',
          json: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.16', title: 'Unsupported Media Type', status: 415, traceId: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' },
        }
        : reference(operation, request)),
    },
  },
  {
    id: 'create-body-buffer-by-length-500',
    area: 'creating',
    description: 'reads the body into Buffer.alloc(Number(req.headers[\'content-length\'])), which throws a RangeError for a chunked request (no Content-Length, so NaN): a valid NewPet sent chunked is answered 500',
    rules: ['CREATE-20', 'ERR-04'],
    overrides: {
      respond: async (operation, request, reference) => {
        if (operation === 'createPet' && request.headers['content-length'] === undefined) throw new RangeError('The argument \'size\' is invalid. Received NaN');
        return reference(operation, request);
      },
    },
  },
  {
    id: 'create-categoryid-go-uint64',
    area: 'creating',
    description: 'decodes categoryId into a Go uint64 (ids are never negative, the author thought): encoding/json refuses -1 and int64\'s minimum ("cannot unmarshal number -1 into Go struct field of type uint64") with 400, and takes 2^63, which no int64 holds',
    // The pet stored with 2^63 shows on later pages and GETs as no valid Pet.
    rules: ['CREATE-03', 'CREATE-10', 'FUZZ-03', 'CONS-10'],
    // Generated negative categoryIds are refused, and 2^63 taken, when the seed draws them.
    byChance: ['FUZZ-01', 'FUZZ-02'],
    overrides: {
      readCategoryId: (raw, reference) => {
        if (!isLosslessNumber(raw) || !INTEGER_LITERAL.test(raw.value)) return reference(raw);
        const id = BigInt(raw.value);
        if (id < 0n || id > UINT64_MAX) return { problem: `json: cannot unmarshal number ${raw.value} into Go struct field NewPet.categoryId of type uint64` };
        return { value: id };
      },
    },
  },
] as const satisfies readonly DefectSpec[];
