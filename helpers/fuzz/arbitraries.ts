// fast-check arbitraries for createPet bodies, derived from the NewPet schema of spec/openapi.yaml:
// valid NewPets, and invalid ones built as one valid NewPet plus one named mutation, so that a
// failure says which kind of invalidity broke the server. Bodies are produced as the exact text sent.
import fc from 'fast-check';
import { LosslessNumber } from 'lossless-json';
import { stringifyJson, type Json } from '../json.js';
import { INT32, INT64, openApiSchemas, PET_STATUSES } from '../spec/facts.js';
import { SHORT_PLAIN_NAME_LENGTH } from '../fixtures/names.js';

interface PropertySchema {
  type?: string;
  format?: string;
  $ref?: string;
  enum?: string[];
}
interface ObjectSchema {
  required: string[];
  properties: Record<string, PropertySchema>;
}

const NEW_PET = openApiSchemas().NewPet as ObjectSchema;
/** Fields a NewPet must carry (name, categoryId). */
export const REQUIRED_FIELDS: readonly string[] = NEW_PET.required;

const { min: INT64_MIN, max: INT64_MAX } = INT64;
const DOUBLE_EXACT = 2n ** 53n;

/** A valid NewPet as sent: categoryId is a bigint so every int64 is written exactly. */
export interface NewPetBody {
  name: string;
  categoryId: bigint;
  status?: string;
  [extra: string]: Json | undefined;
}

/** One generated createPet body that the spec requires a server to reject with 400. */
export interface InvalidBody {
  /** The named mutation, e.g. `categoryId-as-string`. */
  mutation: string;
  /** What exactly was changed, e.g. `categoryId sent as the string "42"`. */
  detail: string;
  /** The exact request body text. */
  text: string;
}

// ── valid NewPets ────────────────────────────────────────────────────────

/** The edges of the integer widths servers get wrong: int64 bounds, the last exact doubles, int32 bounds. */
export const INT64_EDGES: readonly bigint[] = [
  0n, 1n, -1n,
  INT32.max, INT32.max + 1n, INT32.min, INT32.min - 1n,
  DOUBLE_EXACT, DOUBLE_EXACT + 1n, -DOUBLE_EXACT - 1n,
  INT64_MAX, INT64_MAX - 1n, INT64_MIN, INT64_MIN + 1n,
];

/** Whether a double holds the integer exactly: a server that stores categoryId as one changes every other. */
export function fitsDouble(value: bigint): boolean {
  return BigInt(Number(value)) === value;
}

/** Whether a value comes back unchanged through a double printed as JavaScript prints it (shortest round trip): a value no double holds may still, 681212877524493400 say, whose double prints as the same digits. */
export function survivesDouble(value: bigint): boolean {
  return String(Number(value)) === value.toString();
}

/**
 * int64 values no double can hold, both signs, nor print back unchanged: the ones a lossy parser or store rounds,
 * visibly, on the way in or out.
 */
export const int64BeyondDouble: fc.Arbitrary<bigint> = fc
  .tuple(fc.bigInt({ min: DOUBLE_EXACT + 1n, max: INT64_MAX }), fc.boolean())
  .map(([magnitude, negative]) => (negative ? -magnitude : magnitude))
  .filter((value) => !fitsDouble(value) && !survivesDouble(value));

/** Anywhere in int64, with the edges and the values beyond 2^53 weighted in. */
export const int64Anywhere: fc.Arbitrary<bigint> = fc.oneof(
  { withCrossShrink: true },
  { weight: 2, arbitrary: fc.bigInt({ min: -1000n, max: 1000n }) },
  { weight: 3, arbitrary: fc.constantFrom(...INT64_EDGES) },
  { weight: 3, arbitrary: int64BeyondDouble },
  { weight: 2, arbitrary: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }) },
);

// Every code point but the surrogates, whose lone halves lonelySurrogates adds apart. These are fast-check's ranges for its 'binary' unit.
const CODE_POINT_RANGES = [[0, 0xd7ff], [0xe000, 0x10ffff]] as const;
const SURROGATES = CODE_POINT_RANGES[1][0] - CODE_POINT_RANGES[0][1] - 1;

/**
 * Any code point, drawn as fast-check's `unit: 'binary'` draws it (the same index for the same seed), but
 * mapped back by arithmetic: fast-check's own unit builds a map of all 1.1 million code points the first
 * time `fc.string` maps a value back, about a second of CPU in every run.
 */
const anyCodePoint: fc.Arbitrary<string> = fc.nat({ max: CODE_POINT_RANGES[1][1] - SURROGATES }).map(
  (index) => String.fromCodePoint(index <= CODE_POINT_RANGES[0][1] ? index : index + SURROGATES),
  (value) => {
    const codePoint = typeof value === 'string' ? value.codePointAt(0) : undefined;
    if (codePoint === undefined || String.fromCodePoint(codePoint) !== value || (codePoint > CODE_POINT_RANGES[0][1] && codePoint < CODE_POINT_RANGES[1][0])) {
      throw new Error('not one code point');
    }
    return codePoint <= CODE_POINT_RANGES[0][1] ? codePoint : codePoint - SURROGATES;
  },
);

/**
 * A lone half of a surrogate pair, high (U+D800..U+DBFF) or low (U+DC00..U+DFFF): no Unicode text, yet a JSON string
 * may hold one (RFC 8259 §8.2), and a client that escapes one gets it sent. A store that cannot encode it answers 500.
 */
export const loneSurrogate: fc.Arbitrary<string> = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));

/**
 * What a generated name adds to the run's prefix, from the whole domain of JSON strings: ASCII, any grapheme, any
 * code point (controls and astral planes), lone surrogates among them, long ones, the empty one. A body may be any
 * size the spec does not bound, but a few hundred characters stay clear of any sane request-size limit.
 */
const anyNameSuffix: fc.Arbitrary<string> = fc.oneof(
  // Cross-shrinking lets a long or exotic name that does not matter shrink to a short ASCII one.
  { withCrossShrink: true },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: anyCodePoint, maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.oneof(anyCodePoint, loneSurrogate), maxLength: 8 }) },
  // Long, yet able to shrink to nothing: a minimum length would keep hundreds of characters in every counterexample.
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 400, size: 'max' }) },
);

/**
 * A suffix that keeps the name a short plain one (names.ts): the shapes that judge categoryId and status name their pets
 * so, so that no refusal can be laid to the name, which a server may refuse when it is not plain.
 */
function plainNameSuffix(namePrefix: string): fc.Arbitrary<string> {
  const room = Math.max(0, SHORT_PLAIN_NAME_LENGTH - namePrefix.length);
  return fc.stringMatching(new RegExp(`^[A-Za-z0-9]{0,${room}}$`));
}

// Extra members are valid (NewPet does not forbid them), but a server may have optional fields of its
// own (tags, photoUrls…) that it rightly validates; a prefix no server defines keeps them unknown.
const extraKey = fc.stringMatching(/^x-conformance-[a-z]{1,8}$/);
const extraValue: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b'), fc.integer(), { maxKeys: 2 }),
);

export interface NewPetShape {
  categoryId: fc.Arbitrary<bigint>;
  status: 'present' | 'absent' | 'optional';
  extras: boolean;
  /** `plain`: a short plain name, which a server must accept; `any`: any JSON string, which it may refuse with 400 and an Error. */
  names: 'plain' | 'any';
}

/**
 * Valid NewPets. Every name starts with `namePrefix` (the run's tag and `f`) so that the pets a run creates can be
 * recognised and cleaned up; what follows the prefix is generated.
 */
export function newPet(namePrefix: string, shape: NewPetShape): fc.Arbitrary<NewPetBody> {
  const status = fc.constantFrom(...PET_STATUSES);
  const suffix = shape.names === 'plain' ? plainNameSuffix(namePrefix) : anyNameSuffix;
  return fc.record({
    name: suffix.map((generated) => `${namePrefix}${generated}`),
    categoryId: shape.categoryId,
    status: shape.status === 'present' ? status : shape.status === 'absent' ? fc.constant(undefined) : fc.option(status, { nil: undefined, freq: 4 }),
    extras: shape.extras ? fc.dictionary(extraKey, extraValue, { maxKeys: 2 }) : fc.constant({}),
  }).map(({ name, categoryId, status: chosen, extras }) => ({
    name, categoryId, ...(chosen === undefined ? {} : { status: chosen }), ...extras,
  }));
}

/**
 * The shapes of valid bodies FUZZ-02 sends, in turn, so that each appears in every run whatever the seed:
 * each shape is where one class of server bug shows (int64 kept exact, no status invented, the int64
 * and int32 edges, everything at once).
 */
export const VALID_SHAPES: ReadonlyArray<{ shape: string; about: string } & NewPetShape> = [
  { shape: 'int64-beyond-double', about: 'a categoryId no double holds, and a status', categoryId: int64BeyondDouble, status: 'present', extras: false, names: 'plain' },
  { shape: 'status-absent', about: 'no status (the spec states no default)', categoryId: int64Anywhere, status: 'absent', extras: false, names: 'plain' },
  { shape: 'int64-edges', about: 'a categoryId at an int64, double or int32 edge', categoryId: fc.constantFrom(...INT64_EDGES), status: 'optional', extras: false, names: 'plain' },
  { shape: 'anything', about: 'any valid NewPet: any JSON string as its name, unknown extra members included', categoryId: int64Anywhere, status: 'optional', extras: true, names: 'any' },
];

// ── invalid bodies: one valid NewPet plus one named mutation ─────────────

/** An object written member by member, so a mutation can put any text, JSON or not, in a value's place. */
type Member = readonly [key: string, valueText: string];

function membersOf(body: NewPetBody): Member[] {
  return Object.entries(body).filter(([, value]) => value !== undefined).map(([key, value]) => [key, stringifyJson(value)]);
}

function render(members: readonly Member[]): string {
  return `{${members.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(',')}}`;
}

/** The members with `key` set to `text`: in place when present, appended when not (status is optional). */
function withMember(body: NewPetBody, key: string, text: string): Member[] {
  const members = membersOf(body);
  const at = members.findIndex(([name]) => name === key);
  if (at >= 0) members[at] = [key, text];
  else members.push([key, text]);
  return members;
}

function withoutMember(body: NewPetBody, key: string): Member[] {
  return membersOf(body).filter(([name]) => name !== key);
}

/** A wrong value for a field, made from the body it goes into, and the words that say what it is ("an array"). */
interface WrongValue {
  is: string;
  make(body: NewPetBody): Json;
}
const wrong = (is: string, make: (body: NewPetBody) => Json): WrongValue => ({ is, make });

export interface Mutation {
  /** Stable name, shown in every failure. */
  name: string;
  /** Share of --fuzz-runs: kinds with more variety inside them get more runs. */
  weight: number;
  /** Bodies of this kind, built on the valid NewPets of `base`. */
  bodies(base: fc.Arbitrary<NewPetBody>): fc.Arbitrary<InvalidBody>;
}

/** A mutation whose parameter is generated (and shrunk) alongside the valid body it is applied to. */
function mutation<P>(name: string, weight: number, parameter: fc.Arbitrary<P>, apply: (body: NewPetBody, p: P) => { detail: string; text: string }): Mutation {
  return {
    name,
    weight,
    bodies: (base) => fc.tuple(base, parameter).map(([body, p]) => ({ mutation: name, ...apply(body, p) })),
  };
}

function fieldMissing(field: string): Mutation {
  return mutation(`${field}-missing`, 1, fc.constant(null), (body) => ({ detail: `required ${field} removed`, text: render(withoutMember(body, field)) }));
}

function wrongType(field: string, values: fc.Arbitrary<WrongValue>): Mutation {
  return mutation(`${field}-wrong-type`, 1, values, (body, { is, make }) => ({
    detail: `${field} is ${is}`,
    text: render(withMember(body, field, stringifyJson(make(body)))),
  }));
}

// Strings a lenient server might read as a number ("42", " 42", "4e1") belong to categoryId-as-string;
// here they are plainly not numbers.
const nonNumericString = fc.string({ maxLength: 10 }).filter((text) => text.trim() === '' || Number.isNaN(Number(text)));

/** A decimal with a fraction no rounding removes: the last fraction digit is never 0. */
const fractionDigits = fc.tuple(fc.stringMatching(/^[0-9]{0,5}$/), fc.integer({ min: 1, max: 9 })).map(([digits, last]) => `${digits}${last}`);

// 1e3 and 7.0 are mathematically integers, and JSON Schema counts them as such: a server may accept
// them, so they are never demanded to be rejected. Every form below is unambiguous: a fraction remains
// (12.5, 1.25e1, 125e-1), or the value lies beyond int64 (9.3e18).
// Fractions stay below 2^31 with at most 6 decimals, where a double still holds them: beyond 2^52 a
// double has no fraction bits (…424.77 parses as …425), and that is int64 precision, not a fraction.
const FRACTION_WHOLE = 2n ** 31n;
const fractionLiteral: fc.Arbitrary<{ literal: string; form: string }> = fc.oneof(
  fc.tuple(fc.bigInt({ min: -FRACTION_WHOLE, max: FRACTION_WHOLE }), fractionDigits)
    .map(([whole, fraction]) => ({ literal: `${whole}.${fraction}`, form: 'a fraction' })),
  // d.ddde<k> with k smaller than the number of fraction digits: 1.25e1 = 12.5.
  fc.tuple(fc.integer({ min: 1, max: 9 }), fractionDigits, fc.nat(), fc.boolean())
    .map(([lead, fraction, shift, negative]) => ({ literal: `${negative ? '-' : ''}${lead}.${fraction}e${shift % fraction.length}`, form: 'an exponent form with a fraction' })),
  // <digits>e-<k> with a last digit that is not 0: 125e-1 = 12.5.
  fc.tuple(fc.bigInt({ min: 1n, max: FRACTION_WHOLE }).filter((m) => m % 10n !== 0n), fc.integer({ min: 1, max: 6 }), fc.boolean())
    .map(([mantissa, exponent, negative]) => ({ literal: `${negative ? '-' : ''}${mantissa}e-${exponent}`, form: 'a negative exponent with a fraction' })),
);

const beyondInt64Literal: fc.Arbitrary<{ literal: string; form: string }> = fc.oneof(
  fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 100n }).map((value) => ({ literal: String(value), form: 'an integer above int64' })),
  fc.bigInt({ min: -(2n ** 100n), max: INT64_MIN - 1n }).map((value) => ({ literal: String(value), form: 'an integer below int64' })),
  // 9.3e18 is an integer, but not an int64: the largest is 9223372036854775807 ≈ 9.22e18.
  fc.tuple(fc.integer({ min: 1, max: 9 }), fractionDigits, fc.integer({ min: 19, max: 40 }), fc.boolean())
    .map(([lead, fraction, exponent, negative]) => ({ literal: `${negative ? '-' : ''}${lead}.${fraction}e${exponent}`, form: 'an exponent form beyond int64' })),
  fc.constantFrom('9.3e18', '-9.3e18', '1e19', '-1E19', '9223372036854775808', '-9223372036854775809')
    .map((literal) => ({ literal, form: 'just beyond int64' })),
);

/** Transforms of an allowed status a lenient server might still accept. */
const STATUS_NEAR_MISSES: ReadonlyArray<readonly [string, (status: string) => string]> = [
  ['upper case', (s) => s.toUpperCase()],
  ['capitalised', (s) => `${s[0]!.toUpperCase()}${s.slice(1)}`],
  ['mixed case', (s) => [...s].map((c, i) => (i % 2 === 1 ? c.toUpperCase() : c)).join('')],
  ['a trailing space', (s) => `${s} `],
  ['a leading space', (s) => ` ${s}`],
  ['a trailing newline', (s) => `${s}\n`],
  ['its last letter dropped', (s) => s.slice(0, -1)],
  ['a letter doubled', (s) => `${s}${s.at(-1)}`],
  ['a Cyrillic look-alike letter', (s) => s.replace(/[aeop]/, (c) => ({ a: 'а', e: 'е', o: 'о', p: 'р' })[c]!)],
  ['a zero-width space inside', (s) => `${s.slice(0, 2)}\u200b${s.slice(2)}`],
];

const statusOutsideEnum: fc.Arbitrary<{ status: string; is: string }> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...PET_STATUSES), fc.constantFrom(...STATUS_NEAR_MISSES)).map(([status, [how, change]]) => ({ status: change(status), is: `"${status}" with ${how}` })) },
  { weight: 1, arbitrary: fc.constantFrom('unknown', '', 'adopted', 'deleted', 'in-stock', 'null').map((status) => ({ status, is: 'an unknown word' })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((status) => ({ status, is: 'a random string' })) },
).filter(({ status }) => !PET_STATUSES.includes(status));

/** Ways to break the JSON text itself; every one of them is rejected by a strict RFC 8259 parser. */
const MALFORMED: ReadonlyArray<readonly [string, (body: NewPetBody, cut: number) => string]> = [
  ['cut short', (body, cut) => { const text = render(membersOf(body)); return text.slice(0, cut % text.length); }],
  ['an empty body', () => ''],
  ['only whitespace', () => ' \n '],
  ['a trailing comma', (body) => render(membersOf(body)).replace(/}$/, ',}')],
  ['single quotes', (body) => render(membersOf(body)).replaceAll('"', "'")],
  ['unquoted keys', (body) => `{${membersOf(body).map(([key, text]) => `${key}:${text}`).join(',')}}`],
  ['trailing garbage', (body) => `${render(membersOf(body))}x`],
  ['two objects', (body) => render(membersOf(body)).repeat(2)],
  ['a comment', (body) => render(membersOf(body)).replace(/^{/, '{/* conformance */')],
  ['categoryId NaN', (body) => render(withMember(body, 'categoryId', 'NaN'))],
  ['categoryId -Infinity', (body) => render(withMember(body, 'categoryId', '-Infinity'))],
  ['categoryId with a plus sign', (body) => render(withMember(body, 'categoryId', `+${body.categoryId < 0n ? -body.categoryId : body.categoryId}`))],
  ['categoryId with a leading zero', (body) => render(withMember(body, 'categoryId', `0${body.categoryId < 0n ? -body.categoryId : body.categoryId}`))],
  ['categoryId in hex', (body) => render(withMember(body, 'categoryId', `0x${(body.categoryId < 0n ? -body.categoryId : body.categoryId).toString(16)}`))],
  ['categoryId .5', (body) => render(withMember(body, 'categoryId', '.5'))],
  ['an invalid escape in name', (body) => render(withMember(body, 'name', `"${body.name.replace(/[\\"\u0000-\u001f]/g, '')}\\x41"`))],
  ['a raw tab in name', (body) => render(withMember(body, 'name', `"${body.name.replace(/[\\"\u0000-\u001f]/g, '')}\t"`))],
  ['an unterminated string', (body) => render(withMember(body, 'name', `"${body.name.replace(/[\\"\u0000-\u001f]/g, '')}`))],
];

/** Every mutation FUZZ-01 applies, in the order a run tries them. */
export const MUTATIONS: readonly Mutation[] = [
  ...REQUIRED_FIELDS.map(fieldMissing),
  wrongType('name', fc.oneof(
    fc.integer().map((n) => wrong('a number', () => n)),
    fc.boolean().map((b) => wrong('a boolean', () => b)),
    fc.constant(wrong('an array', (body) => [body.name])),
    fc.constant(wrong('an object', (body) => ({ first: body.name }))),
  )),
  wrongType('categoryId', fc.oneof(
    fc.boolean().map((b) => wrong('a boolean', () => b)),
    nonNumericString.map((text) => wrong('a non-numeric string', () => text)),
    fc.constant(wrong('an array', (body) => [body.categoryId])),
    fc.constant(wrong('an object', (body) => ({ id: body.categoryId }))),
  )),
  mutation('categoryId-as-string', 1, fc.constant(null), (body) => ({
    detail: `categoryId sent as the string "${body.categoryId}"`,
    text: render(withMember(body, 'categoryId', JSON.stringify(String(body.categoryId)))),
  })),
  wrongType('status', fc.oneof(
    fc.integer({ min: 0, max: 2 }).map((n) => wrong('a number', () => n)),
    fc.boolean().map((b) => wrong('a boolean', () => b)),
    fc.constantFrom(...PET_STATUSES).map((status) => wrong('an array', () => [status])),
    fc.constant(wrong('an object', (body) => ({ value: body.status ?? PET_STATUSES[0]! }))),
  )),
  mutation('null-field', 1, fc.constantFrom('name', 'categoryId', 'status'), (body, field) => ({
    detail: `${field} is null`,
    text: render(withMember(body, field, 'null')),
  })),
  mutation('categoryId-fraction', 1.5, fractionLiteral, (body, { literal, form }) => ({
    detail: `categoryId ${literal} (${form})`,
    text: render(withMember(body, 'categoryId', new LosslessNumber(literal).toString())),
  })),
  mutation('categoryId-beyond-int64', 1.5, beyondInt64Literal, (body, { literal, form }) => ({
    detail: `categoryId ${literal} (${form})`,
    text: render(withMember(body, 'categoryId', new LosslessNumber(literal).toString())),
  })),
  mutation('status-outside-enum', 2, statusOutsideEnum, (body, { status, is }) => ({
    detail: `status ${JSON.stringify(status)} (${is})`,
    text: render(withMember(body, 'status', JSON.stringify(status))),
  })),
  mutation('body-not-object', 1, fc.constantFrom('the NewPet as a JSON string', 'a number', 'true', 'null', 'a string'), (body, what) => ({
    detail: `the body is ${what}`,
    text: {
      'the NewPet as a JSON string': () => JSON.stringify(render(membersOf(body))),
      'a number': () => String(body.categoryId),
      true: () => 'true',
      null: () => 'null',
      'a string': () => JSON.stringify(body.name),
    }[what](),
  })),
  // Always a one-element array holding a valid NewPet: that is the body a server reading `body[0]` accepts.
  mutation('body-in-array', 0.5, fc.constant(null), (body) => ({ detail: 'the NewPet wrapped in an array', text: `[${render(membersOf(body))}]` })),
  mutation('malformed-json', 2.5, fc.tuple(fc.constantFrom(...MALFORMED), fc.nat()), (body, [[how, write], cut]) => ({
    detail: `malformed JSON: ${how}`,
    text: write(body, cut),
  })),
];

/** The valid NewPets invalid bodies start from: any of them, so the mutation is the only thing wrong. */
export function invalidBodies(namePrefix: string, kind: Mutation): fc.Arbitrary<InvalidBody> {
  return kind.bodies(newPet(namePrefix, { categoryId: int64Anywhere, status: 'optional', extras: true, names: 'any' }));
}

// ── spreading a run over the mutations and shapes ────────────────────────

/**
 * How many of `total` runs each item gets: one each first (so every kind is tried whatever the seed),
 * the rest in proportion to weight. With fewer runs than items, the first ones in order get one each.
 */
export function allocateRuns(total: number, weights: readonly number[]): number[] {
  const counts = weights.map((_, i): number => (i < total ? 1 : 0));
  const left = total - counts.reduce((a, b) => a + b, 0);
  if (left <= 0) return counts;
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((weight) => (left * weight) / sum);
  exact.forEach((share, i) => (counts[i]! += Math.floor(share)));
  let remainder = total - counts.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((share, i) => [share - Math.floor(share), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of byRemainder) {
    if (remainder-- <= 0) break;
    counts[i]! += 1;
  }
  return counts;
}

/** The seed of one kind's property, derived from the run's seed so that one --seed replays them all. */
export function seedFor(seed: number, index: number): number {
  return (seed ^ Math.imul(index + 1, 0x9e3779b1)) | 0;
}
