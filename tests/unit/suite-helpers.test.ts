// The small helpers the suites judge with: which operation an exchange addressed, exact Pet field
// comparison, the getPet removal date, an id no pet has, what the target has shown, LIST-11's case and how a finding is
// worded. Plain functions, so plain tests.
import { describe, expect, it } from 'vitest';
import { getPetRemoved } from '../../helpers/judge/deprecation.js';
import type { Exchange } from '../../helpers/http/exchange.js';
import { expectError, expectStatus, expectThat } from '../../helpers/judge/expect.js';
import { parseJson } from '../../helpers/json.js';
import { groupExchanges, operationOf } from '../../helpers/judge/operations.js';
import { mayRefuseNewPet, petFieldDifferences } from '../../helpers/fixtures/pet-fields.js';
import { isShortPlainName, petName, plainName, runTag } from '../../helpers/fixtures/names.js';
import { fallbackCase, sliceRevealingCase } from '../../helpers/fixtures/filtered-page.js';
import { evidenceOf, findingsMessage, violationMessage, type ViolationFacts } from '../../helpers/judge/outcome.js';
import { highestKnownPetId, knownPets, knownStatusCounts, mostHeldStatus, unknownPetId, type Pet } from '../../helpers/fixtures/pets.js';

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
  it('requires a short plain name never sent before to be created, and lets a server refuse any other name or unknown members', () => {
    expect(mayRefuseNewPet({ name: 'PCa1b2c3 basic', categoryId: 1, status: 'sold' })).toBeUndefined();
    expect(mayRefuseNewPet({ name: 'x'.repeat(20), categoryId: 1 })).toBeUndefined();
    expect(mayRefuseNewPet({ name: 'a', categoryId: 1, id: 7 })).toBe('unknown member(s) id');
    expect(mayRefuseNewPet({ name: 'x'.repeat(21), categoryId: 1 })).toBe('a name that is not a short plain name (21 characters)');
    expect(mayRefuseNewPet({ name: '', categoryId: 1 })).toBe('a name that is not a short plain name (an empty name)');
    expect(mayRefuseNewPet({ name: 'rex-1', categoryId: 1 })).toBe('a name that is not a short plain name (characters other than ASCII letters, digits and spaces)');
    expect(mayRefuseNewPet({ name: 'ü', categoryId: 1 })).toBe('a name that is not a short plain name (characters other than ASCII letters, digits and spaces)');
    expect(mayRefuseNewPet({ name: 'a\tb', categoryId: 1 })).toBe('a name that is not a short plain name (control characters)');
    expect(mayRefuseNewPet({ name: 'rex', categoryId: 1 }, { nameRepeated: true })).toBe('a name another pet of the run was sent with');
  });
});

describe('the names of a run', () => {
  it('tag every name with PC and the run ID\'s last six letters or digits, and make the names a check needs short plain names', () => {
    expect(runTag('20261128T015000-a1b2c3')).toBe('PCa1b2c3');
    expect(plainName('20261128T015000-a1b2c3', 'fixture 999')).toBe('PCa1b2c3 fixture 999');
    expect(isShortPlainName(plainName('20261128T015000-a1b2c3', 'fixture 999'))).toBe(true);
    expect(() => plainName('20261128T015000-a1b2c3', 'fixture 1000')).toThrow(RangeError);
    expect(() => plainName('20261128T015000-a1b2c3', 'cat-max')).toThrow(RangeError);
    expect(petName('20261128T015000-a1b2c3', 'text edges ü')).toBe('PCa1b2c3 text edges ü');
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

describe('knownPets', () => {
  const seen = [
    exchange('GET', '/pets?limit=100', 200, '[{"id": 1, "name": "a", "categoryId": 1, "status": "sold"}, {"id": 2, "categoryId": "x"}, {"name": "no id"}]'),
    exchange('POST', '/pets', 201, '{"id": 9223372036854775807, "name": "b", "categoryId": 1, "status": "pending"}'),
    exchange('GET', '/pets?status=sold', 200, '[{"id": 1, "name": "a", "categoryId": 1}]'),
    exchange('GET', '/pets?limit=abc', 400, '{"id": 5}'),
    exchange('GET', '/pets/3', 200, '{"id": 3, "name": "c", "categoryId": 1}'),
  ];

  it('counts every listed or created object with an integer id, valid Pet or not, and nothing an error or a fetch showed', () => {
    expect([...knownPets(seen).keys()]).toEqual(['1', '2', '9223372036854775807']);
  });

  it('keeps the status a pet was shown with when a later answer leaves it out', () => {
    expect(knownPets(seen).get('1')).toEqual({ status: 'sold' });
    expect(Object.fromEntries(knownStatusCounts(seen))).toEqual({ sold: 1, pending: 1 });
  });

  it('finds the highest id exactly, beyond 2^53', () => {
    expect(highestKnownPetId(seen)).toBe(2n ** 63n - 1n);
    expect(highestKnownPetId([])).toBeUndefined();
  });
});

describe('mostHeldStatus', () => {
  it('picks the status most held, available on a tie or an empty target', () => {
    const pet = (status?: string): Pet => ({ id: 1, name: 'a', categoryId: 1, ...(status ? { status } : {}) });
    expect(mostHeldStatus([])).toBe('available');
    expect(mostHeldStatus([pet('sold'), pet('sold'), pet('pending'), pet()])).toBe('sold');
    expect(mostHeldStatus([pet('pending'), pet('available')])).toBe('available');
  });
});

describe('sliceRevealingCase', () => {
  const counts = (entries: Record<string, number>) => new Map(Object.entries(entries));

  it('picks a status thin at the head of the order: 21 available first, then 2 pending, gives pending with limit 2', () => {
    const order = [...Array<string>(21).fill('available'), 'pending', 'pending', 'sold', 'sold'];
    expect(sliceRevealingCase(order, counts({ available: 21, pending: 2, sold: 2 }))).toEqual({ status: 'pending', limit: 2, inFirst: 0, known: 2 });
  });

  it('prefers a status with more pets than the limit, so a filter that forgets the limit shows too', () => {
    const order = ['available', 'pending', 'sold', 'available', 'pending', 'sold'];
    expect(sliceRevealingCase(order, counts({ available: 10, pending: 10, sold: 10 }))).toEqual({ status: 'available', limit: 2, inFirst: 1, known: 10 });
  });

  it('never asks for more of a status than the target has shown, nor looks past the order it listed', () => {
    expect(sliceRevealingCase(['available', 'available'], counts({ available: 2 }))).toBeUndefined();
    expect(sliceRevealingCase([], counts({ pending: 5 }))).toBeUndefined();
    expect(sliceRevealingCase(['available', undefined], counts({ pending: 1 }))).toEqual({ status: 'pending', limit: 1, inFirst: 0, known: 1 });
  });

  it('falls back to one pending pet, or one of any status shown, or nothing', () => {
    expect(fallbackCase(counts({ available: 3, pending: 1 }))).toEqual({ status: 'pending', limit: 1, known: 1 });
    expect(fallbackCase(counts({ sold: 2 }))).toEqual({ status: 'sold', limit: 1, known: 2 });
    expect(fallbackCase(counts({}))).toBeUndefined();
  });
});

describe('a finding, stated once by its facts', () => {
  it('reads "<case>: expected <expected>, saw <seen> (<exchanges>); <note>"', () => {
    const listed = exchange('GET', '/pets?limit=0', 500);
    expect(violationMessage({ what: 'limit=0', expected: 'a 4xx', seen: '500', exchanges: [listed] })).toBe('limit=0: expected a 4xx, saw 500 (GET /v1/pets?limit=0 → 500)');
    expect(violationMessage({ expected: 'status 429', seen: '200', exchanges: [listed, exchange('GET', '/pets', 200)], note: 'seed 7, not shrunk' }))
      .toBe('expected status 429, saw 200 (GET /v1/pets?limit=0 → 500, then GET /v1/pets → 200); seed 7, not shrunk');
  });

  it('gives reports the same expected and seen, the body behind seen kept out of the one-line message', () => {
    const evidence = evidenceOf({ expected: 'status 201', seen: '500', body: 'stack trace', exchanges: [exchange('POST', '/pets', 500)] });
    expect(evidence).toMatchObject({ message: 'expected status 201, saw 500 (POST /v1/pets → 500)', expected: 'status 201', seen: '500; body stack trace' });
  });

  it('words a wrong status the same way from expectStatus, which records it and returns no response', () => {
    const findings = recorded();
    expect(expectStatus(findings, exchange('GET', '/pets/1', 200, '{"id":1}'), [404, 400], 'an unknown pet')).toBeUndefined();
    expect(findings.recorded.map(violationMessage)).toEqual(['an unknown pet: expected one of [404, 400], saw 200 (GET /v1/pets/1 → 200)']);
    expect(expectStatus(findings, exchange('GET', '/pets/1', 404, '{}'), [404, 400])?.status).toBe(404);
    expect(findings.recorded).toHaveLength(1);
  });

  it('records one finding for an error with the wrong status, leaving its body unjudged, and whether it held', () => {
    const findings = recorded();
    expect(expectError(findings, exchange('GET', '/pets/1', 200), 404, 'an unknown pet')).toBe(false);
    expect(expectError(findings, exchange('GET', '/pets/1', 404), 404, 'an unknown pet')).toBe(false);
    expect(findings.recorded.map((facts) => facts.expected)).toEqual(['status 404', 'a JSON Error body']);
    expect(expectThat(findings, true, { expected: 'never recorded', seen: '' })).toBe(true);
    expect(findings.recorded).toHaveLength(2);
  });

  it('keeps every finding of a rule when several are combined', () => {
    const first = { what: 'listPets', expected: 'a challenge', seen: 'none' };
    const second = { what: 'getPet', expected: 'a challenge', seen: 'none' };
    expect(findingsMessage([first, second])).toBe('2 violations: listPets: expected a challenge, saw none; getPet: expected a challenge, saw none');
    expect(findingsMessage([first])).toBe(violationMessage(first));
  });
});

/** A findings record as a check's context keeps one, for the expect helpers alone. */
function recorded(): { violation(facts: ViolationFacts): void; recorded: ViolationFacts[] } {
  const list: ViolationFacts[] = [];
  return { violation: (facts) => list.push(facts), recorded: list };
}
