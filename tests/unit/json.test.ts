// helpers/json.ts: int64 survives every way this program writes and reads JSON, the fast paths included.
import fc from 'fast-check';
import { stringify as losslessStringify } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { parseJson, parseOwnJson, stringifyJson, type Json } from '../../helpers/json.js';

/** Integers on both sides of 2^53 and of the 16-digit line, as bigint where a double would round them. */
const BOUNDARY_INTEGERS: Json[] = [
  9007199254740991, 9007199254740992n, 9007199254740993n, -9007199254740993n, 1000000000000000, 999999999999999,
  9223372036854775807n, -9223372036854775808n, 0, -0, 1.5, 1e21,
];

/** JSON values as parseJson returns them: safe integers as numbers, unsafe ones as bigint. */
const jsonValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...BOUNDARY_INTEGERS),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => (Number.isSafeInteger(Number(n)) ? Number(n) : n)),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    fc.stringMatching(/^[0-9]{14,20}$/),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('JSON as this program writes and reads it', () => {
  it.each([
    ['{"id":9007199254740993}', 9007199254740993n],
    ['{"id":-9007199254740993}', -9007199254740993n],
    ['{"id":9007199254740991}', 9007199254740991],
    ['{"id":1000000000000000}', 1000000000000000],
    ['{"id":9223372036854775807}', 9223372036854775807n],
  ])('reads back its own %s with the id exact', (text, id) => {
    expect(parseOwnJson(text)).toEqual({ id });
  });

  it('reads back anything it wrote as parseJson does, int64 included (seeded, with the boundaries as fixed cases)', () => {
    fc.assert(fc.property(jsonValue, (value) => {
      const text = stringifyJson(value);
      expect(parseOwnJson(text)).toStrictEqual(parseJson(text));
    }), { seed: 20261127, numRuns: 500, examples: BOUNDARY_INTEGERS.map((n): [Json] => [{ id: n, nested: [n] }]) });
  });

  it('writes every value as lossless-json writes it, bigint or not, indented or not', () => {
    fc.assert(fc.property(jsonValue, fc.constantFrom(undefined, 2), (value, space) => {
      expect(stringifyJson(value, space)).toBe(losslessStringify(value, null, space));
    }), { seed: 20261127, numRuns: 500 });
    expect(stringifyJson({ id: 9007199254740993n, name: 'x' })).toBe('{"id":9007199254740993,"name":"x"}');
    expect(stringifyJson(undefined)).toBe('null');
  });
});
