// What the record of a response keeps of its body, which is what every check judges and every report shows:
// bounded per answer, so that a run's memory follows what it keeps, not what it is sent.
import { describe, expect, it } from 'vitest';
import { KEPT_JSON_VALUES, KEPT_STRING_CHARS, keptBody } from '../../helpers/http/response-body.js';
import { Redactor } from '../../helpers/http/redact.js';
import { stringifyJson } from '../../helpers/json.js';
import { secretAppearances } from '../support/secret-search.js';

describe('a JSON body as the record keeps it', () => {
  it('keeps every string of a Pet Store answer whole, the names the suite sends and compares among them', () => {
    const pet = { id: 9007199254740993n, name: `  ${'n'.repeat(400)} <&>"'\\`, categoryId: 1, status: 'available' };
    const text = `{"id":9007199254740993,"name":${JSON.stringify(pet.name)},"categoryId":1,"status":"available"}`;
    expect(keptBody(text)).toEqual({ json: pet });
  });

  it(`cuts a string of a megabyte (an extra field) to ${KEPT_STRING_CHARS} characters, saying how many more there were`, () => {
    // Escapes in it count as the characters they stand for.
    const padding = `${'é'.repeat(KEPT_STRING_CHARS)}\n"${'x'.repeat(1_000_000)}`;
    const kept = keptBody(JSON.stringify({ id: 1, name: 'Rex', padding }));
    expect(kept.json).toEqual({ id: 1, name: 'Rex', padding: `${'é'.repeat(KEPT_STRING_CHARS)}… [1000002 more characters, not kept]` });
  });

  it(`judges a body of more than ${KEPT_JSON_VALUES} values as no JSON the suite keeps, rather than keeping it`, () => {
    const kept = keptBody(JSON.stringify(Array.from({ length: KEPT_JSON_VALUES + 1 }, () => 0)));
    expect(kept).toEqual({ jsonError: `JSON of more than ${KEPT_JSON_VALUES} values: the suite keeps no more of one body (a page of 100 pets holds some 600)` });
  });

  it('says why a malformed body, or one with a key twice, is not JSON, as the parser does', () => {
    expect(keptBody('[{"id": 1, "name": "Rex",')).toEqual({ jsonError: 'Quoted object key expected but reached end of input at position 25' });
    expect(keptBody(`{"a":"${'y'.repeat(KEPT_STRING_CHARS + 1)}","a":1}`).jsonError).toMatch(/^Duplicate key 'a'/);
  });
});

describe('a long string cut where a key stands in it', () => {
  const key = 'hostile-key-Zq81vX30wT';
  const redactor = new Redactor([key]);

  it.each([
    ['as it is', key],
    ['as HTML references', [...key].map((char) => `&amp;#x${char.charCodeAt(0).toString(16)};`).join('')],
    ['percent-encoded', [...key].map((char) => `%${char.charCodeAt(0).toString(16)}`).join('')],
  ])('(%s) leaves no start of it a reader could take: the cut is a mask the redactor knows', (_form, echoed) => {
    for (const before of [KEPT_STRING_CHARS - 12, KEPT_STRING_CHARS - 37, KEPT_STRING_CHARS - 101]) {
      const kept = keptBody(JSON.stringify({ message: `${'x'.repeat(before)}${echoed}${'y'.repeat(5000)}` }));
      expect(secretAppearances(redactor.redact(stringifyJson(kept.json)), key)).toEqual([]);
    }
  });
});
