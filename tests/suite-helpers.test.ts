// The small helpers the suites judge with: which operation an exchange addressed, exact Pet field
// comparison, the getPet removal date and an id no pet has. Plain functions, so plain tests.
import { describe, expect, it } from 'vitest';
import { getPetRemoved } from '../helpers/deprecation.js';
import type { Exchange } from '../helpers/exchange.js';
import { parseJson } from '../helpers/json.js';
import { groupExchanges, operationOf } from '../helpers/operations.js';
import { mayRefuseNewPet, petFieldDifferences } from '../helpers/pet-fields.js';
import { unknownPetId } from '../helpers/pets.js';

const BASE = 'https://staging.example.com/v1';

function exchange(method: string, path: string, status = 200, body = ''): Exchange {
  return {
    seq: 1,
    request: { method, url: `${BASE}${path}`, headers: {}, auth: 'key' },
    response: { status, headers: {}, rawBody: body, json: body ? parseJson(body) : undefined, truncated: false },
    startedAt: '2030-01-01T00:00:00.000Z',
    durationMs: 1,
  };
}

describe('operationOf', () => {
  it('names the four operations by method and path below the base URL', () => {
    expect(operationOf(exchange('GET', '/pets?limit=1'), BASE)).toBe('listPets');
    expect(operationOf(exchange('POST', '/pets'), BASE)).toBe('createPet');
    expect(operationOf(exchange('GET', '/pets/9223372036854775807'), BASE)).toBe('getPet');
    expect(operationOf(exchange('GET', '/store/orders'), BASE)).toBe('getStoreOrders');
  });

  it('names nothing outside the interface', () => {
    expect(operationOf(exchange('DELETE', '/pets/1'), BASE)).toBeUndefined();
    expect(operationOf(exchange('GET', '/pets/1/photos'), BASE)).toBeUndefined();
    expect(operationOf({ ...exchange('GET', '/pets'), request: { ...exchange('GET', '/pets').request, url: 'https://staging.example.com/api/pets' } }, BASE)).toBeUndefined();
  });

  it('groups exchanges by operation and status, so one broken answer repeated reads as one finding', () => {
    const groups = groupExchanges([exchange('POST', '/pets', 400), exchange('POST', '/pets', 400), exchange('GET', '/pets/x', 404)], BASE, true);
    expect([...groups].map(([key, members]) => [key, members.length])).toEqual([['createPet 400', 2], ['getPet 404', 1]]);
  });
});

describe('petFieldDifferences', () => {
  it('compares int64 values exactly, a rounded neighbour included', () => {
    const sent = { categoryId: 2n ** 53n + 1n };
    expect(petFieldDifferences(sent, parseJson('{"categoryId": 9007199254740992}'), ['categoryId'])).toEqual(['categoryId: expected 9007199254740993, saw 9007199254740992']);
    expect(petFieldDifferences(sent, parseJson('{"categoryId": 9007199254740993}'), ['categoryId'])).toEqual([]);
  });

  it('ignores fields it is not asked about (servers may add fields) and reports a missing one as absent', () => {
    expect(petFieldDifferences({ name: 'a' }, { name: 'a', createdAt: 'now' }, ['name'])).toEqual([]);
    expect(petFieldDifferences({ status: 'sold' }, {}, ['status'])).toEqual(['status: expected "sold", saw absent']);
    expect(petFieldDifferences({}, { status: 'sold' }, ['status'])).toEqual(['status: expected absent, saw "sold"']);
  });
});

describe('mayRefuseNewPet', () => {
  it('allows a refusal only for a limit the spec leaves to the server: unknown members, a name past 255 bytes', () => {
    expect(mayRefuseNewPet({ name: 'a', categoryId: 1, status: 'sold' })).toBeUndefined();
    expect(mayRefuseNewPet({ name: 'a', categoryId: 1, id: 7 })).toBe('unknown member(s) id');
    expect(mayRefuseNewPet({ name: 'x'.repeat(255), categoryId: 1 })).toBeUndefined();
    expect(mayRefuseNewPet({ name: 'x'.repeat(256), categoryId: 1 })).toBe('a name of 256 characters');
    // 128 two-byte characters: 256 UTF-8 bytes, a limit a server counting bytes may apply.
    expect(mayRefuseNewPet({ name: 'ü'.repeat(128), categoryId: 1 })).toBe('a name of 128 characters');
  });
});

describe('getPetRemoved', () => {
  it('keeps GET /pets/{petId} due until 5 December 2030, not on or after it', () => {
    expect(getPetRemoved('2030-12-04')).toBe(false);
    expect(getPetRemoved('2030-12-05')).toBe(true);
    expect(getPetRemoved('2031-01-01')).toBe(true);
  });
});

describe('unknownPetId', () => {
  it('steps down from the top of int64 past every id the run has seen', () => {
    const seen = [exchange('POST', '/pets', 201, '{"id": 9223372036854775807, "name": "a", "categoryId": 1}')];
    expect(unknownPetId([])).toBe(2n ** 63n - 1n);
    expect(unknownPetId(seen)).toBe(2n ** 63n - 2n);
  });
});
