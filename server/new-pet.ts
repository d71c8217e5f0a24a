import { isLosslessNumber, parse } from 'lossless-json';
import { INT64, PET_STATUSES, type PetStatus } from '../helpers/spec/facts.js';
import type { Context, Field, NewPetFailure, NewPetFields, NewPetMember, Seams } from './seams.js';

const NEW_PET_MEMBERS: readonly string[] = ['name', 'categoryId', 'status'] satisfies NewPetMember[];
// An integer literal as JSON writes it: no fraction, no exponent (7.0 and 1e2 are not accepted).
export const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * The reference seams of reading a NewPet (spec, NewPet): `name` a string, required; `categoryId` an int64,
 * required; `status` a PetStatus, optional, with no default. Members the spec does not name are ignored.
 */
export function newPetSeams(ctx: Context): Pick<Seams, 'parseBody' | 'member' | 'readName' | 'readCategoryId' | 'readStatus' | 'readNewPet'> {
  return {
    // lossless-json rather than helpers/json parseJson: only the literal tells 7 from 7.0.
    parseBody: (text) => parse(text),
    // Own properties only: a body with "__proto__" must not lend the NewPet fields it lacks.
    member: (body, key) => own(body, key),
    readName: (raw) => (typeof raw === 'string' ? { value: raw } : { problem: raw === undefined ? 'name is required' : 'name must be a string' }),
    readCategoryId: (raw) => {
      if (isLosslessNumber(raw)) return readInt64Literal(raw.value);
      return { problem: raw === undefined ? 'categoryId is required' : 'categoryId must be an integer' };
    },
    readStatus: (raw) => {
      if (raw === undefined || isPetStatus(raw)) return { value: raw };
      return { problem: `status must be one of ${PET_STATUSES.join(', ')}` };
    },
    readNewPet: (text) => {
      let body: unknown;
      try {
        body = ctx.seams.parseBody(text);
      } catch (error) {
        return invalid('invalid_json', `request body is not valid JSON: ${(error as Error).message}`, { unreadable: true });
      }
      if (!isNewPetObject(body)) return invalid('invalid_body', 'request body must be a JSON object (NewPet)', { unreadable: true });
      const name = ctx.seams.readName(ctx.seams.member(body, 'name'));
      if ('problem' in name) return invalid('invalid_body', name.problem, { member: 'name' });
      const categoryId = ctx.seams.readCategoryId(ctx.seams.member(body, 'categoryId'));
      if ('problem' in categoryId) return invalid('invalid_body', categoryId.problem, { member: 'categoryId' });
      const status = ctx.seams.readStatus(ctx.seams.member(body, 'status'));
      if ('problem' in status) return invalid('invalid_body', status.problem, { member: 'status' });
      const pet: NewPetFields = { categoryId: categoryId.value };
      if (name.value !== undefined) pet.name = name.value;
      if (status.value !== undefined) pet.status = status.value;
      return { ok: true, pet };
    },
  };
}

/** An int64 from the text of a JSON number: an integer literal within the int64 range. */
export function readInt64Literal(literal: string): Field<bigint> {
  if (!INTEGER_LITERAL.test(literal)) return { problem: `categoryId must be an integer without fraction or exponent, got ${literal}` };
  const id = BigInt(literal);
  if (id < INT64.min || id > INT64.max) return { problem: `categoryId must be within ${INT64.min}..${INT64.max}, got ${literal}` };
  return { value: id };
}

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && PET_STATUSES.includes(value);
}

/** The names of the members a NewPet body has that the spec does not name. */
export function unknownMembers(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter((key) => !NEW_PET_MEMBERS.includes(key));
}

/** A 400 for the body; `unreadable` when it is not JSON or not an object. */
export function invalid(code: string, message: string, detail: { unreadable?: true; member?: NewPetMember } = {}): NewPetFailure {
  return { ok: false, status: 400, code, message, ...detail };
}

/** An own property of the body. */
export function own(body: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(body, key) ? body[key] : undefined;
}

/** Whether a parsed body is a JSON object (not an array, not a number, not null). */
export function isNewPetObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
