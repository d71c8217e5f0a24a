import Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { integerFormatBounds, openApiSchemas } from '../spec/facts.js';

// Both packages are CommonJS; under NodeNext the default import is module.exports, which
// carries the real export on `.default`.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export type SchemaName = 'Pet' | 'NewPet' | 'Error' | 'PetList' | 'PetStatus';
/** One way a value breaks a schema: a JSON Pointer into the value and an ajv-style message. */
export interface SchemaProblem {
  path: string;
  message: string;
}

type JsonObject = Record<string, unknown>;

// ajv resolves the spec's '#/components/schemas/...' refs against this base, so every named
// schema compiles standalone straight from spec/openapi.yaml.
const DOCUMENT_ID = 'https://petstore-conformance.invalid/openapi.yaml';
// OpenAPI 3.1 schema keywords that JSON Schema 2020-12 does not know.
const OPENAPI_KEYWORDS = ['discriminator', 'xml', 'externalDocs', 'example'];
// The integer formats ajv-formats checks on a JS number.
const INTEGER_FORMATS = ['int32', 'int64'];

interface Loaded {
  schemas: JsonObject;
  validators: Map<SchemaName, ValidateFunction>;
  ajv: InstanceType<typeof Ajv2020>;
}
let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  const schemas = openApiSchemas();
  const ajv = new Ajv2020({ allErrors: true });
  // `components` is only the wrapper below: keeping the schemas at the spec's own path lets its
  // '#/components/schemas/…' refs resolve unchanged.
  ajv.addVocabulary(['components', ...OPENAPI_KEYWORDS, ...extensionKeywords(schemas)]);
  addFormats(ajv);
  // ajv-formats checks these on a JS number, which cannot hold every int64; the exact check is
  // integerFormatProblems below, done on the original (bigint-bearing) value.
  for (const format of INTEGER_FORMATS) ajv.addFormat(format, true);
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas } });
  return (loaded = { schemas, validators: new Map(), ajv });
}

function validator(name: SchemaName): ValidateFunction {
  const { validators, ajv } = load();
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${name}`);
    if (!validate) throw new Error(`spec/openapi.yaml has no components.schemas.${name}`);
    validators.set(name, validate);
  }
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
  integerFormatProblems(load().schemas[name], value, '', exact, 0);
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
  return load().schemas[ref.slice(prefix.length)];
}

// Lets an `x-…` extension inside a schema pass ajv's strict mode without switching strict off.
function extensionKeywords(node: unknown, found = new Set<string>()): string[] {
  if (Array.isArray(node)) node.forEach((item) => extensionKeywords(item, found));
  else if (isObject(node)) {
    for (const [key, child] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      extensionKeywords(child, found);
    }
  }
  return [...found];
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
