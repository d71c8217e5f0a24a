// helpers/json.ts: int64 survives every way this program writes and reads JSON, the fast paths included.
import fc from 'fast-check';
import { stringify as losslessStringify } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { BODY_DEPTH_LIMIT, JsonLimitExceeded, parseJson, parseOwnJson, RECORDING_DEPTH_LIMIT, RECORDING_LIMITS, stringifyJson, type Json } from '../../helpers/json.js';

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

describe('JSON from outside, nested or long past any use', () => {
  // 12 KB of brackets once left a run waiting forever, and an array 3,000 deep ended one with no report.
  it.each([
    ['arrays', '['.repeat(9_000) + ']'.repeat(9_000)],
    ['objects', '{"a":'.repeat(9_000) + '1' + '}'.repeat(9_000)],
    ['arrays left open', '['.repeat(100_000)],
  ])('nested 9,000 deep (%s) is refused as JSON too deep to use, in one pass', (_case, text) => {
    expect(() => parseJson(text)).toThrow(new JsonLimitExceeded(`JSON nested more than ${BODY_DEPTH_LIMIT} levels deep: the suite reads no deeper (a Pet Store body is 3 levels deep)`));
    expect(() => parseOwnJson(text)).toThrow(JsonLimitExceeded);
  });

  it(`reads a body nested ${BODY_DEPTH_LIMIT} deep; brackets inside strings, escaped quotes among them, are no nesting`, () => {
    const deepest = '['.repeat(BODY_DEPTH_LIMIT) + ']'.repeat(BODY_DEPTH_LIMIT);
    expect(() => parseJson(deepest)).not.toThrow();
    const inStrings = `[${JSON.stringify('[[[[\\"{{{{'.repeat(100))}]`;
    expect(parseJson(inStrings)).toEqual(['[[[[\\"{{{{'.repeat(100)]);
    expect(() => parseJson('['.repeat(BODY_DEPTH_LIMIT + 1) + ']'.repeat(BODY_DEPTH_LIMIT + 1))).toThrow(JsonLimitExceeded);
  });

  it('reads a recording deeper than a body, which holds a body a few levels down, within a limit of its own', () => {
    const text = '['.repeat(RECORDING_DEPTH_LIMIT) + ']'.repeat(RECORDING_DEPTH_LIMIT);
    expect(() => parseJson(text, RECORDING_LIMITS)).not.toThrow();
    expect(() => parseJson(`[${text}]`, RECORDING_LIMITS)).toThrow(JsonLimitExceeded);
  });

  it('refuses text longer than the limit it is given before parsing it', () => {
    expect(() => parseJson(`"${'x'.repeat(100)}"`, { maxDepth: BODY_DEPTH_LIMIT, maxLength: 50 })).toThrow(new JsonLimitExceeded('JSON text of 102 characters, more than the 50 the suite reads'));
  });
});
