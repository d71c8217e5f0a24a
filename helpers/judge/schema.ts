import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { integerFormatBounds, openApiSchemas } from '../spec/facts.js';
import { schemaValidators } from './schema-validators.js';

export type SchemaName = 'Pet' | 'NewPet' | 'Error' | 'PetList' | 'PetStatus';
/** One way a value breaks a schema: a JSON Pointer into the value and an ajv-style message. */
export interface SchemaProblem {
  path: string;
  message: string;
}

type JsonObject = Record<string, unknown>;

function validator(name: SchemaName): ValidateFunction {
  const validate = schemaValidators()[name];
  if (!validate) throw new Error(`spec/openapi.yaml has no components.schemas.${name}`);
  return validate;
}

/**
 * Checks a value (as parsed losslessly: unsafe integers are bigint) against a schema of
 * spec/openapi.yaml; an empty list means valid.
 */
export function validateSchema(name: SchemaName, value: unknown): SchemaProblem[] {
  const validate = validator(name);
  const errors = validate(numberView(value)) ? [] : (validate.errors ?? []);
  const problems = errors.map(toProblem);
  // A value already reported as the wrong type needs no second, range-worded complaint.
  const wrongType = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  const exact: SchemaProblem[] = [];
  integerFormatProblems(openApiSchemas()[name], value, '', exact, 0);
  return [...problems, ...exact.filter((p) => !wrongType.has(p.path))];
}

// ajv cannot type-check bigint; Number() keeps `type: integer` meaningful, and the precision
// it loses only matters to int32/int64, which are checked exactly elsewhere.
function numberView(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(numberView);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numberView(v)]));
  return value;
}

function toProblem(error: ErrorObject): SchemaProblem {
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    return { path: `${error.instancePath}/${escapePointer(missing)}`, message: 'must be present' };
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    return { path: error.instancePath, message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  return { path: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
}

// Follows the schema alongside the value. anyOf/oneOf/if are not followed: a branch that does
// not apply would report false problems, and the spec uses none of them.
function integerFormatProblems(schema: unknown, value: unknown, path: string, out: SchemaProblem[], depth: number): void {
  if (!isObject(schema) || depth > 100) return;
  if (typeof schema.$ref === 'string') integerFormatProblems(resolveRef(schema.$ref), value, path, out, depth + 1);
  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf) integerFormatProblems(sub, value, path, out, depth + 1);
  const range = typeof schema.format === 'string' ? integerFormatBounds(schema.format) : undefined;
  if (range) {
    const message = integerProblem(value, schema.format as string, range);
    if (message) out.push({ path, message });
  }
  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    value.forEach((item, i) =>
      integerFormatProblems(i < prefix.length ? prefix[i] : schema.items, item, `${path}/${i}`, out, depth + 1),
    );
  } else if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const [key, item] of Object.entries(value)) {
      const sub = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties;
      integerFormatProblems(sub, item, `${path}/${escapePointer(key)}`, out, depth + 1);
    }
  }
}

function integerProblem(value: unknown, format: string, { min, max }: { min: bigint; max: bigint }): string | undefined {
  const rangeMessage = `must be ${format} (${min}..${max})`;
  let exact: bigint;
  if (typeof value === 'bigint') exact = value;
  else if (typeof value === 'number') {
    if (!Number.isInteger(value)) return rangeMessage;
    exact = BigInt(value);
    // Beyond 2^53 a JS number is a rounded neighbour of what the server wrote (e.g. 1e19 or 9007199254740993.0).
    if (!Number.isSafeInteger(value) && exact >= min && exact <= max) {
      return `must be an exact ${format}: ${value} was written in a form that lost precision`;
    }
  } else return undefined; // non-numbers are the `type` keyword's business
  return exact < min || exact > max ? rangeMessage : undefined;
}

function resolveRef(ref: string): unknown {
  const prefix = '#/components/schemas/';
  if (!ref.startsWith(prefix)) throw new Error(`unsupported $ref in spec/openapi.yaml: ${ref}`);
  return openApiSchemas()[ref.slice(prefix.length)];
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
