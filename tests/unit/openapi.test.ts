import { describe, it, expect } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { packagePath } from '../../helpers/package-root.js';
import { validateSchema } from '../../helpers/judge/schema.js';
import { readFileSync } from 'node:fs';
import { AREA_ORDER, GET_PET_REMOVAL, INT32, INT64, integerFormatBounds, PAGE_SIZE, PET_STATUSES, RATE_PLANS, SPEC_VERSION } from '../../helpers/spec/facts.js';

const SPEC = packagePath('spec', 'openapi.yaml');
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, any>;

// validate() also dereferences, so the checks below see every response with its headers inlined.
async function operations(): Promise<Json[]> {
  const api = (await SwaggerParser.validate(SPEC)) as Json;
  return Object.values(api.paths as Json).flatMap((item: Json) =>
    METHODS.filter((m) => item[m]).map((m) => item[m] as Json),
  );
}

const pet = { id: 1, name: 'Rex', categoryId: 2, status: 'available' };

/** The spec's own words: the facts openapi.yaml adds as x- extensions must say what they say. */
const SPEC_TEXT = readFileSync(packagePath('spec', 'petstore-interface-spec.md'), 'utf8');

/** The rows of "Request rate, by plan": `| Free | 60 | 1,000 |`, a count as a number, `custom` as undefined. */
function planTable(text: string): Array<{ name: string; perMinute?: number; perDay?: number }> {
  const section = text.slice(text.indexOf('### Request rate, by plan'), text.indexOf('### Rate limit headers'));
  const count = (cell: string) => (cell === 'custom' ? undefined : Number(cell.replaceAll(',', '')));
  return [...section.matchAll(/^\| (\w+) \| ([\d,]+|custom) \| ([\d,]+|custom) \|$/gm)]
    .map(([, name, perMinute, perDay]) => ({ name: name!, perMinute: count(perMinute!), perDay: count(perDay!) }));
}

describe('spec/openapi.yaml', () => {
  it('is a valid OpenAPI document', async () => {
    await expect(SwaggerParser.validate(SPEC)).resolves.toMatchObject({ openapi: '3.1.0' });
  });

  it('declares exactly the four operations of the spec', async () => {
    const ids = (await operations()).map((op) => op.operationId).sort();
    expect(ids).toEqual(['createPet', 'getPet', 'getStoreOrders', 'listPets']);
  });

  it('declares the three rate-limit headers on every response of every operation', async () => {
    for (const op of await operations()) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        for (const header of RATE_LIMIT_HEADERS) {
          expect.soft((response as Json).headers?.[header], `${op.operationId} ${status} ${header}`).toMatchObject({
            required: true,
            schema: { type: 'integer' },
          });
        }
      }
    }
  });

  it('declares 429 with Retry-After on every operation', async () => {
    for (const op of await operations()) {
      expect.soft(op.responses['429']?.headers?.['Retry-After'], op.operationId).toMatchObject({ required: true });
    }
  });

  it('applies bearer security to every operation', async () => {
    const api = (await SwaggerParser.validate(SPEC)) as Json;
    expect(api.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const op of await operations()) {
      expect.soft(op.security ?? api.security, op.operationId).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('lists the spec\'s plans as x-rate-limit-plans, as its table of Request rate, by plan gives them', () => {
    const table = planTable(SPEC_TEXT);
    expect(table.map((plan) => plan.name)).toEqual(['Free', 'Pro', 'Business', 'Enterprise']);
    expect(RATE_PLANS).toEqual(table);
  });

  it('states the interface version the spec states, in info.version', () => {
    expect(SPEC_TEXT).toContain(`The interface description version is ${SPEC_VERSION}.`);
  });

  it('gives getPet the removal date the spec states, as x-sunset', () => {
    const stated = /GET \/pets\/\{petId\}` is deprecated with removal on (\d+ \w+ \d{4})\./.exec(SPEC_TEXT)?.[1];
    expect(new Date(`${stated} UTC`).toISOString().slice(0, 10)).toBe(GET_PET_REMOVAL);
  });

  it('marks getPet deprecated with its sunset date', async () => {
    const getPet = (await operations()).find((op) => op.operationId === 'getPet');
    expect(getPet).toMatchObject({ deprecated: true, 'x-sunset': '2030-12-05' });
  });
});

describe('validateSchema', () => {
  it('accepts a valid Pet', () => {
    expect(validateSchema('Pet', pet)).toEqual([]);
  });

  it('accepts fields the spec does not name', () => {
    expect(validateSchema('Pet', { ...pet, colour: 'brown' })).toEqual([]);
  });

  it.each(['id', 'name', 'categoryId'])('reports a missing %s at its path', (field) => {
    const { [field]: _, ...rest } = pet as Json;
    expect(validateSchema('Pet', rest)).toEqual([{ path: `/${field}`, message: 'must be present' }]);
  });

  it.each([
    ['2^53 + 1', 9007199254740993n],
    ['2^63 - 1', 9223372036854775807n],
    ['-2^63', -9223372036854775808n],
  ])('accepts a bigint categoryId of %s', (_, categoryId) => {
    expect(validateSchema('Pet', { ...pet, categoryId })).toEqual([]);
  });

  it.each([
    ['2^63', 9223372036854775808n],
    ['-2^63 - 1', -9223372036854775809n],
  ])('rejects a bigint categoryId of %s as outside int64', (_, categoryId) => {
    expect(validateSchema('Pet', { ...pet, categoryId })).toEqual([
      { path: '/categoryId', message: 'must be int64 (-9223372036854775808..9223372036854775807)' },
    ]);
  });

  it('rejects an unsafe integer that reached a JS number, since its exact value is lost', () => {
    expect(validateSchema('Pet', { ...pet, categoryId: 2 ** 60 })).toMatchObject([{ path: '/categoryId' }]);
  });

  it('rejects a fractional categoryId once, as not an integer', () => {
    expect(validateSchema('Pet', { ...pet, categoryId: 1.5 })).toEqual([{ path: '/categoryId', message: 'must be integer' }]);
  });

  it('rejects a string categoryId', () => {
    expect(validateSchema('Pet', { ...pet, categoryId: '2' })).toEqual([{ path: '/categoryId', message: 'must be integer' }]);
  });

  it('rejects a status outside the enumeration, case included', () => {
    expect(validateSchema('Pet', { ...pet, status: 'Available' })).toEqual([
      { path: '/status', message: 'must be one of "available", "pending", "sold"' },
    ]);
    expect(validateSchema('PetStatus', 'sold')).toEqual([]);
  });

  it('checks NewPet without requiring id', () => {
    expect(validateSchema('NewPet', { name: 'Rex', categoryId: 2 })).toEqual([]);
  });

  it('rejects an Error whose status is a string', () => {
    expect(validateSchema('Error', { code: 'not_found', message: 'gone', status: 404 })).toEqual([]);
    expect(validateSchema('Error', { code: 'not_found', message: 'gone', status: '404' })).toEqual([
      { path: '/status', message: 'must be integer' },
    ]);
  });

  it('points into the bad item of a PetList', () => {
    expect(validateSchema('PetList', [pet, { ...pet, categoryId: 9223372036854775808n }, pet])).toEqual([
      { path: '/1/categoryId', message: 'must be int64 (-9223372036854775808..9223372036854775807)' },
    ]);
    expect(validateSchema('PetList', [pet, { ...pet, name: 7 }])).toEqual([{ path: '/1/name', message: 'must be string' }]);
  });
});

describe('the spec facts code reads from spec/openapi.yaml and spec/rules.yaml', () => {
  it('bound every id by int64 and know int32, the width servers wrongly store ids in', () => {
    expect(INT64).toEqual({ min: -9223372036854775808n, max: 9223372036854775807n });
    expect(INT32).toEqual({ min: -2147483648n, max: 2147483647n });
    expect(integerFormatBounds('date-time')).toBeUndefined();
  });

  it('list the PetStatus enum and the page size of GET /pets as the spec states them', () => {
    expect(PET_STATUSES).toEqual(['available', 'pending', 'sold']);
    expect(PAGE_SIZE).toEqual({ min: 1, max: 100, default: 20 });
  });

  it('order the areas as rules.yaml lists them: the store model after every area that writes, versioning, errors and rate limits last so they judge every exchange before them', () => {
    expect(AREA_ORDER).toEqual(['listing', 'creating', 'fetching', 'auth', 'store', 'fuzzing', 'requests', 'consistency', 'versioning', 'errors', 'ratelimit']);
  });
});
