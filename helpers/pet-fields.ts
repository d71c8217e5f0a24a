import { isJsonObject, jsonEquals, stringifyJson, type Json } from './json.js';

/** The Pet fields the spec names; anything else a server adds is allowed, so never compared. */
export const PET_FIELDS = ['id', 'name', 'categoryId', 'status'] as const;
export type PetField = (typeof PET_FIELDS)[number];

/**
 * How `actual` differs from `expected` on the given fields, one "categoryId: expected 9007199254740993,
 * saw 9007199254740992" per field. Numbers compare exactly (int64 as bigint); a field absent on both sides agrees.
 */
export function petFieldDifferences(expected: Readonly<Record<string, unknown>>, actual: unknown, fields: readonly PetField[]): string[] {
  const seen: Record<string, unknown> = isJsonObject(actual) ? actual : {};
  return fields
    .filter((field) => !jsonEquals(expected[field], seen[field]))
    .map((field) => `${field}: expected ${show(expected[field])}, saw ${show(seen[field])}`);
}

/** A JSON value as a message shows it: exact for int64, "absent" for a missing field. */
export function show(value: unknown): string {
  return value === undefined ? 'absent' : stringifyJson(value as Json);
}
