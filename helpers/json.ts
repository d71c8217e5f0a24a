import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';

/** A JSON value as this project holds it: integers beyond 2^53 are bigint, so int64 survives. */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

// Safe integers stay plain numbers so ordinary comparisons and ajv keep working;
// only the integers a double would round become bigint.
function parseNumber(text: string): number | bigint {
  if (isInteger(text) && !isSafeNumber(text)) return BigInt(text);
  return Number(text);
}

/** JSON.parse that keeps every int64 exact. Throws SyntaxError on malformed text. */
export function parseJson(text: string): Json {
  return parse(text, null, parseNumber) as Json;
}

/**
 * JSON text this program wrote itself (stringifyJson), read back: the same value parseJson gives, faster. Such
 * text has no duplicate key (the one way the two parsers differ on valid JSON), so JSON.parse is exact whenever
 * no run of 16 digits could be an integer beyond 2^53 (9007199254740991 has 16). A target's bytes, or a file
 * someone else wrote, go through parseJson.
 */
export function parseOwnJson(text: string): Json {
  return SIXTEEN_DIGITS.test(text) ? parseJson(text) : (JSON.parse(text) as Json);
}

const SIXTEEN_DIGITS = /[0-9]{16}/;

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
