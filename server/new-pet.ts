import { isLosslessNumber, LosslessNumber, parse } from 'lossless-json';
import type { Context } from './context.js';
import { INT32, INT64, PET_STATUSES, type PetStatus } from '../helpers/spec/facts.js';

/** The fields of a valid NewPet (looser types only because some defects let odd values through). */
export interface NewPetFields {
  name?: string | null;
  categoryId: bigint | null;
  status?: string | null;
  /** Only under the mass-assignment defect: the id the client sent. */
  id?: bigint;
}

export type NewPetResult =
  | { ok: true; pet: NewPetFields }
  | { ok: false; status: 400 | 500; code: string; message: string; unreadable?: true };

type Field<T> = { value: T } | { problem: string };

const NEW_PET_MEMBERS = ['name', 'categoryId', 'status'];
// C0 controls (U+0000 included), DEL and the C1 controls.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/u;
// The most characters the name-max-255 variant takes: a VARCHAR(255) column, refused rather than cut.
const NAME_MAX = 255;
// An integer literal as JSON writes it: no fraction, no exponent (7.0 and 1e2 are not accepted).
const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

/** Reads a createPet body from its raw text. */
export function readNewPet(text: string | undefined, ctx: Context): NewPetResult {
  let body: unknown;
  try {
    // lossless-json itself rather than helpers/json parseJson: only the literal tells 7 from 7.0.
    body = ctx.has('create-go-trailing-data') ? firstValue(text ?? '') : parse(text ?? '');
  } catch (error) {
    if (ctx.has('create-malformed-500')) return { ok: false, status: 500, code: 'internal_error', message: String(error) };
    return invalid('invalid_json', `request body is not valid JSON: ${(error as Error).message}`, true);
  }
  if (ctx.has('create-array-body') && Array.isArray(body)) body = body[0];
  if (!isObject(body)) return invalid('invalid_body', 'request body must be a JSON object (NewPet)', true);
  return readFields(body, ctx);
}

function readFields(body: Record<string, unknown>, ctx: Context): NewPetResult {
  const unknown = Object.keys(body).filter((key) => !NEW_PET_MEMBERS.includes(key));
  if (unknown.length > 0 && ctx.variant('strict-bodies')) return invalid('invalid_body', `unknown member(s): ${unknown.join(', ')}`);
  const name = readName(member(body, 'name', ctx), ctx);
  if ('problem' in name) return invalid('invalid_body', name.problem);
  const categoryId = readCategoryId(member(body, 'categoryId', ctx), ctx);
  if ('problem' in categoryId) return invalid('invalid_body', categoryId.problem);
  const rawStatus = member(body, 'status', ctx);
  if (railsEnumRaises(rawStatus, ctx)) return { ok: false, status: 500, code: 'internal_error', message: `ArgumentError: '${String(rawStatus)}' is not a valid status` };
  const status = readStatus(rawStatus, ctx);
  if ('problem' in status) return invalid('invalid_body', status.problem);
  const pet: NewPetFields = { categoryId: categoryId.value };
  if (name.value !== undefined) pet.name = name.value;
  if (status.value !== undefined) pet.status = status.value;
  const clientId = own(body, 'id');
  if (ctx.has('create-client-id-honoured') && isLosslessNumber(clientId) && INTEGER_LITERAL.test(clientId.value)) pet.id = BigInt(clientId.value);
  return { ok: true, pet };
}

/** Rails ActiveRecord enum: assigning a string it does not map raises ArgumentError, unrescued (a blank one becomes nil). */
function railsEnumRaises(value: unknown, ctx: Context): boolean {
  return ctx.has('create-rails-enum-500') && typeof value === 'string' && value.trim() !== '' && !isPetStatus(value);
}

function readName(raw: unknown, ctx: Context): Field<string | null | undefined> {
  const value = coerced(raw, 'string', ctx);
  if (typeof value === 'string') {
    if (ctx.variant('name-max-255') && [...value].length > NAME_MAX) return { problem: `name must be at most ${NAME_MAX} characters` };
    if (ctx.variant('name-controls-refused') && CONTROL_CHARACTERS.test(value)) return { problem: 'name must not hold control characters' };
    return { value: mangledName(value, ctx) };
  }
  if (value === undefined && ctx.has('create-name-optional')) return { value: undefined };
  if (value === null && ctx.has('create-null-accepted')) return { value: null };
  if ((value === undefined || value === null) && ctx.has('create-go-zero-values')) return { value: '' };
  return { problem: value === undefined ? 'name is required' : 'name must be a string' };
}

/** What a name-handling habit of the stack does to the name before it is stored and echoed. */
function mangledName(name: string, ctx: Context): string {
  if (ctx.has('create-name-stripped')) return name.trim();
  // A sanitiser's replace(/[\x00-\x1F\x7F-\x9F]/g, '') on every text field.
  if (ctx.has('create-name-controls-stripped')) return name.replace(new RegExp(CONTROL_CHARACTERS.source, 'gu'), '');
  if (ctx.has('create-name-nfc')) return name.normalize('NFC');
  if (ctx.has('create-name-html-escaped')) return escapeHtml(name);
  if (ctx.has('create-name-varchar-255')) return [...name].slice(0, NAME_MAX).join('');
  return name;
}

// validator.js escape(), as express-validator's .escape() applies it.
function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/\//g, '&#x2F;').replace(/\\/g, '&#x5C;').replace(/`/g, '&#96;');
}

/**
 * What ajv's type coercion (fastify's coerceTypes) makes of a value before validation: a one-element
 * array unwrapped (coerceTypes: 'array'), then scalars converted to the type the schema names.
 */
function coerced(value: unknown, type: 'string' | 'integer', ctx: Context): unknown {
  const arrays = ctx.has('create-ajv-coerce-array');
  if (!arrays && !ctx.has('create-ajv-coerce-types')) return value;
  if (arrays && Array.isArray(value) && value.length === 1) value = value[0];
  if (type === 'string') {
    if (value === null) return '';
    if (typeof value === 'boolean' || isLosslessNumber(value)) return String(value);
    return value;
  }
  if (value === null || value === false) return new LosslessNumber('0');
  if (value === true) return new LosslessNumber('1');
  if (typeof value === 'string' && /^-?[0-9]+$/.test(value)) return new LosslessNumber(value);
  return value;
}

function readCategoryId(raw: unknown, ctx: Context): Field<bigint | null> {
  const value = coerced(raw, 'integer', ctx);
  if (value === null && ctx.has('create-null-accepted')) return { value: null };
  // Jackson leaves a primitive long at 0 when the member is null or missing; Go leaves an int64 at its zero value.
  if ((value === null || value === undefined) && (ctx.has('create-jackson-null-primitive') || ctx.has('create-go-zero-values'))) return { value: 0n };
  // Python's bool is an int: Pydantic's lax mode takes true for 1.
  if (typeof value === 'boolean' && ctx.has('create-categoryid-bool-as-int')) return { value: value ? 1n : 0n };
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
  const { min, max } = ctx.has('create-int32-categoryid') ? INT32 : INT64;
  if (id < min || id > max) return { problem: `categoryId must be within ${min}..${max}, got ${literal}` };
  if (id === 0n && ctx.has('create-categoryid-zero-refused')) return { problem: 'categoryId is required' };
  return { value: id };
}

function readStatus(raw: unknown, ctx: Context): Field<string | null | undefined> {
  const value = coerced(raw, 'string', ctx);
  if (value === undefined) return { value: undefined };
  if (value === null && ctx.has('create-null-accepted')) return { value: null };
  if (value === null && ctx.has('create-go-zero-values')) return { value: undefined };
  // Jackson reads a number into an enum as its ordinal (FAIL_ON_NUMBERS_FOR_ENUMS is off by default).
  if (isLosslessNumber(value) && ctx.has('create-jackson-enum-ordinal')) {
    const ordinal = PET_STATUSES[Number(value.value)];
    if (ordinal !== undefined) return { value: ordinal };
  }
  if (typeof value !== 'string') return { problem: `status must be one of ${PET_STATUSES.join(', ')}` };
  // A falsy status taken for none: `if (body.status)`, or Rails turning a blank enum value into nil.
  if (value === '' && (ctx.has('create-status-empty-as-absent') || ctx.has('create-rails-enum-500'))) return { value: undefined };
  if (ctx.has('create-status-lowercased') && isPetStatus(value.toLowerCase())) return { value: value.toLowerCase() };
  if (isPetStatus(value) || ctx.has('create-status-unchecked') || lenientStatusMatch(value, ctx)) return { value };
  return { problem: `status must be one of ${PET_STATUSES.join(', ')}` };
}

// The lookups that let a near miss through: `status in STATUS_MAP` finds Object.prototype's members, an unanchored regex finds a substring.
const STATUS_MAP: Record<string, true> = { available: true, pending: true, sold: true };
function lenientStatusMatch(value: string, ctx: Context): boolean {
  if (ctx.has('create-status-in-lookup')) return value in STATUS_MAP;
  if (ctx.has('create-status-regex-unanchored')) return /available|pending|sold/.test(value);
  return false;
}

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && PET_STATUSES.includes(value);
}

/** A 400; `unreadable` when the body is not JSON or not an object, which some frameworks answer before the handler runs. */
function invalid(code: string, message: string, unreadable = false): NewPetResult {
  return unreadable ? { ok: false, status: 400, code, message, unreadable } : { ok: false, status: 400, code, message };
}

// Own properties only: a body with "__proto__" must not lend the NewPet fields it lacks.
function own(body: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(body, key) ? body[key] : undefined;
}

/** A NewPet member; Go's encoding/json falls back to a key that differs only in case. */
function member(body: Record<string, unknown>, key: string, ctx: Context): unknown {
  if (Object.hasOwn(body, key) || !ctx.has('create-go-case-insensitive-keys')) return own(body, key);
  const other = Object.keys(body).find((candidate) => candidate.toLowerCase() === key.toLowerCase());
  return other === undefined ? undefined : body[other];
}

/** Go's json.Decoder.Decode: the first JSON value of the text, whatever follows it. */
function firstValue(text: string): unknown {
  let lastError: unknown;
  for (let end = text.length; end > 0; end--) {
    try {
      return parse(text.slice(0, end));
    } catch (error) {
      lastError ??= error;
    }
  }
  throw lastError ?? new SyntaxError('unexpected end of JSON input');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
