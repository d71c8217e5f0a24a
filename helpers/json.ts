import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';

/** A JSON value as this project holds it: integers beyond 2^53 are bigint, so int64 survives. */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

// Safe integers stay plain numbers so ordinary comparisons and ajv keep working;
// only the integers a double would round become bigint.
function parseNumber(text: string): number | bigint {
  if (isInteger(text) && !isSafeNumber(text)) return BigInt(text);
  return Number(text);
}

/** How much JSON text the suite reads: nesting deeper than `maxDepth`, or text longer than `maxLength`, is refused unparsed. */
export interface JsonLimits {
  maxDepth: number;
  maxLength?: number;
}

/**
 * A target's body: a Pet Store body is 3 levels deep (a page, a pet, its fields), and an extra field a server
 * adds may nest a few more. Deeper is no JSON the suite can use: the parser and what reads its value recurse.
 */
export const BODY_DEPTH_LIMIT = 64;

/** A file of ours (report.json, exchanges.har) holds a body a dozen levels down. */
export const RECORDING_DEPTH_LIMIT = 128;
export const RECORDING_LIMITS: JsonLimits = { maxDepth: RECORDING_DEPTH_LIMIT };

/** The text is JSON the suite does not read: nested too deep or too long. A SyntaxError, as malformed text is. */
export class JsonLimitExceeded extends SyntaxError {
  override name = 'JsonLimitExceeded';
}

/**
 * JSON.parse that keeps every int64 exact, within `limits` (a target's body's by default). Throws SyntaxError on
 * malformed text, JsonLimitExceeded (one) on text past the limits, which is found before anything is parsed.
 */
export function parseJson(text: string, limits: JsonLimits = { maxDepth: BODY_DEPTH_LIMIT }): Json {
  checkLimits(text, limits);
  return withFlatStrings(parse(text, null, parseNumber) as Json);
}

/**
 * The value with every string in it made flat. lossless-json builds a string one character at a time, and V8
 * keeps what `+=` builds as a rope of one node per character, some 32 bytes each: a string of 16 KB kept as a
 * rope holds half a megabyte, and a run that kept a thousand bodies held gigabytes. Reading a character of a
 * string flattens it in place (V8's String::Flatten), and the rope's nodes are garbage from then on.
 */
function withFlatStrings(value: Json): Json {
  const stack: Json[] = [value];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (typeof next === 'string') next.charCodeAt(0);
    else if (Array.isArray(next)) for (const item of next) stack.push(item);
    else if (isJsonObject(next)) for (const member of Object.values(next)) stack.push(member);
  }
  return value;
}

/**
 * One pass over the text, counting the brackets outside strings: lossless-json recurses once per level, and so
 * does what reads the value after it, so the depth is known before either begins. Returns whether a number of
 * 16 digits or more stands outside the strings: one that a double may round. Strings are passed over by indexOf.
 */
function checkLimits(text: string, { maxDepth, maxLength }: JsonLimits): { longNumber: boolean } {
  if (maxLength !== undefined && text.length > maxLength) throw new JsonLimitExceeded(`JSON text of ${text.length} characters, more than the ${maxLength} the suite reads`);
  let depth = 0;
  let digits = 0;
  let longNumber = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= DIGIT_0 && code <= DIGIT_9) {
      digits += 1;
      if (digits >= 16) longNumber = true;
      continue;
    }
    digits = 0;
    if (code === QUOTE) {
      // To the first quote after it that no backslash escapes; an unterminated string is the parser's to name.
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) break;
      i = end;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) {
        throw new JsonLimitExceeded(maxDepth === BODY_DEPTH_LIMIT
          ? `JSON nested more than ${maxDepth} levels deep: the suite reads no deeper (a Pet Store body is 3 levels deep)`
          : `JSON nested more than ${maxDepth} levels deep: the suite reads no deeper`);
      }
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return { longNumber };
}

/** Whether the character at `at` follows an odd run of backslashes, which escapes it. */
function isEscaped(text: string, at: number): boolean {
  let run = 0;
  while (at - run - 1 >= 0 && text.charCodeAt(at - run - 1) === BACKSLASH) run += 1;
  return run % 2 === 1;
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * JSON text in this program's own formats (what stringifyJson wrote: the run's channel, and report.json,
 * exchanges.har and manifest.json, which verify reads), read back: the same value parseJson gives, faster, and in
 * a fraction of the memory (lossless-json holds every string as a rope of one node per character while it parses,
 * some 32 bytes a character: a recording of 20 MB took 700 MB). Such text has no duplicate key (the one way the
 * two parsers differ on valid JSON; a forged file that has one is read as JSON.parse reads it, the same wherever it
 * is read), so JSON.parse is exact whenever no number outside its strings has 16 digits or more (9007199254740991
 * has 16). A target's bytes go through parseJson.
 */
export function parseOwnJson(text: string): Json {
  // JSON.parse does not recurse, but what reads its value does: the depth is held to a recording's as parseJson holds it.
  const { longNumber } = checkLimits(text, RECORDING_LIMITS);
  return longNumber ? parseJson(text, RECORDING_LIMITS) : (JSON.parse(text) as Json);
}

/**
 * JSON.stringify that writes bigint as a bare JSON number. The native JSON.stringify writes every other value
 * exactly as lossless-json does, some ten times faster, and throws a TypeError on a bigint: only then is the
 * value written by lossless-json.
 */
export function stringifyJson(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, null, space) ?? 'null';
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return stringify(value, null, space) ?? 'null';
  }
}

/** Deep equality of two JSON values where 5 and 5n are the same number. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (isNumeric(a) && isNumeric(b)) return numericEquals(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEquals(item, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEquals(a[k], b[k]));
  }
  return Object.is(a, b);
}

/** The value as an exact bigint when it is an integer (number or bigint), else undefined. */
export function asBigInt(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return undefined;
}

function isNumeric(value: unknown): value is number | bigint {
  return typeof value === 'number' || typeof value === 'bigint';
}

function numericEquals(a: number | bigint, b: number | bigint): boolean {
  const x = asBigInt(a);
  const y = asBigInt(b);
  if (x !== undefined && y !== undefined) return x === y;
  return typeof a === 'number' && typeof b === 'number' && Object.is(a, b);
}

/** Whether a JSON value is an object (not null, not an array): the shape every Pet and Error body must have. */
export function isJsonObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
