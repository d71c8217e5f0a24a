import { isLosslessNumber, parse } from 'lossless-json';
import type { Context } from './context.js';
import { PET_STATUSES } from './pet-store.js';

/** The fields of a valid NewPet (looser types only because some defects let odd values through). */
export interface NewPetFields {
  name?: string | null;
  categoryId: bigint | null;
  status?: string | null;
}

export type NewPetResult =
  | { ok: true; pet: NewPetFields }
  | { ok: false; status: 400 | 500; code: string; message: string };

type Field<T> = { value: T } | { problem: string };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
// An integer literal as JSON writes it: no fraction, no exponent (7.0 and 1e2 are not accepted).
const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

/** Reads a createPet body from its raw text. */
export function readNewPet(text: string | undefined, ctx: Context): NewPetResult {
  let body: unknown;
  try {
    // lossless-json itself rather than helpers/json parseJson: only the literal tells 7 from 7.0.
    body = parse(text ?? '');
  } catch (error) {
    if (ctx.has('create-malformed-500')) return { ok: false, status: 500, code: 'internal_error', message: String(error) };
    return invalid('invalid_json', `request body is not valid JSON: ${(error as Error).message}`);
  }
  if (ctx.has('create-array-body') && Array.isArray(body)) body = body[0];
  if (!isObject(body)) return invalid('invalid_body', 'request body must be a JSON object (NewPet)');
  return readFields(body, ctx);
}

function readFields(body: Record<string, unknown>, ctx: Context): NewPetResult {
  const name = readName(own(body, 'name'), ctx);
  if ('problem' in name) return invalid('invalid_body', name.problem);
  const categoryId = readCategoryId(own(body, 'categoryId'), ctx);
  if ('problem' in categoryId) return invalid('invalid_body', categoryId.problem);
  const status = readStatus(own(body, 'status'), ctx);
  if ('problem' in status) return invalid('invalid_body', status.problem);
  const pet: NewPetFields = { categoryId: categoryId.value };
  if (name.value !== undefined) pet.name = name.value;
  if (status.value !== undefined) pet.status = status.value;
  return { ok: true, pet };
}

function readName(value: unknown, ctx: Context): Field<string | null | undefined> {
  if (typeof value === 'string') return { value };
  if (value === undefined && ctx.has('create-name-optional')) return { value: undefined };
  if (value === null && ctx.has('create-null-accepted')) return { value: null };
  return { problem: value === undefined ? 'name is required' : 'name must be a string' };
}

function readCategoryId(value: unknown, ctx: Context): Field<bigint | null> {
  if (value === null && ctx.has('create-null-accepted')) return { value: null };
  let literal = isLosslessNumber(value) ? value.value : undefined;
  if (typeof value === 'string' && ctx.has('create-categoryid-string-coerced')) literal = value;
  if (literal === undefined) {
    return { problem: value === undefined ? 'categoryId is required' : 'categoryId must be an integer' };
  }
  if (!INTEGER_LITERAL.test(literal) && ctx.has('create-fraction-truncated') && Number.isFinite(Number(literal))) {
    literal = String(Math.trunc(Number(literal)));
  }
  if (!INTEGER_LITERAL.test(literal)) return { problem: `categoryId must be an integer without fraction or exponent, got ${literal}` };
  const id = BigInt(literal);
  const [min, max] = ctx.has('create-int32-categoryid') ? [INT32_MIN, INT32_MAX] : [INT64_MIN, INT64_MAX];
  if (id < min || id > max) return { problem: `categoryId must be within ${min}..${max}, got ${literal}` };
  return { value: id };
}

function readStatus(value: unknown, ctx: Context): Field<string | null | undefined> {
  if (value === undefined) return { value: undefined };
  if (value === null && ctx.has('create-null-accepted')) return { value: null };
  if (typeof value === 'string' && (isPetStatus(value) || ctx.has('create-status-unchecked'))) return { value };
  return { problem: `status must be one of ${PET_STATUSES.join(', ')}` };
}

export function isPetStatus(value: unknown): value is (typeof PET_STATUSES)[number] {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

function invalid(code: string, message: string): NewPetResult {
  return { ok: false, status: 400, code, message };
}

// Own properties only: a body with "__proto__" must not lend the NewPet fields it lacks.
function own(body: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(body, key) ? body[key] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
