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

/** VARCHAR(255): the commonest column a name goes into; past it a server may refuse, as the spec sets no maximum. */
export const NAME_LENGTH_A_SERVER_MAY_CAP = 255;

/**
 * Why a server may refuse this valid NewPet with a 400 Error, or undefined when it must create it: the spec
 * states no maximum length for name and does not forbid unknown members, so a limit of the server's own on
 * either is conforming. Length counts UTF-8 bytes, the largest measure a server could use.
 */
export function mayRefuseNewPet(body: Readonly<Record<string, unknown>>): string | undefined {
  const unknown = Object.keys(body).filter((key) => !['name', 'categoryId', 'status'].includes(key));
  if (unknown.length > 0) return `unknown member(s) ${unknown.join(', ')}`;
  const name = body.name;
  if (typeof name === 'string' && Buffer.byteLength(name, 'utf8') > NAME_LENGTH_A_SERVER_MAY_CAP) return `a name of ${[...name].length} characters`;
  return undefined;
}
