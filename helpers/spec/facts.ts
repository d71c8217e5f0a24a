// The facts of the interface that code needs as values (bounds, enums, page sizes, the plans, the removal of
// getPet, the version, the areas and their order), derived from spec/openapi.yaml and spec/rules.yaml so that
// each is stated once, where the spec states it. What OpenAPI has no field for is an `x-` extension there.
import { loadCatalog, type Area } from './catalog.js';
import { specDocuments } from './documents.js';

type JsonObject = Record<string, unknown>;

interface IntegerSchema {
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  default?: number;
}

/** spec/openapi.yaml: its schemas validate bodies, its parameters bound requests. */
export function openApiDocument(): JsonObject {
  return specDocuments().openApi;
}

/** The named schemas of spec/openapi.yaml (`components.schemas`), or of the document given. */
export function openApiSchemas(document: JsonObject = openApiDocument()): JsonObject {
  return ((document.components as JsonObject | undefined)?.schemas ?? {}) as JsonObject;
}

/** The range of an OpenAPI integer format: a signed two's-complement integer of that many bits. */
export function integerFormatBounds(format: string): { min: bigint; max: bigint } | undefined {
  const bits = /^int(\d+)$/.exec(format)?.[1];
  if (bits === undefined) return undefined;
  const half = 2n ** (BigInt(bits) - 1n);
  return { min: -half, max: half - 1n };
}

function operation(path: string, method: string): JsonObject {
  const found = ((openApiDocument().paths as JsonObject)[path] as JsonObject | undefined)?.[method];
  if (found === undefined) throw new Error(`spec/openapi.yaml has no ${method.toUpperCase()} ${path}`);
  return found as JsonObject;
}

function parameterSchema(path: string, method: string, name: string): IntegerSchema {
  const parameters = (operation(path, method).parameters ?? []) as Array<{ name: string; schema: IntegerSchema }>;
  const parameter = parameters.find((candidate) => candidate.name === name);
  if (!parameter) throw new Error(`spec/openapi.yaml: ${method.toUpperCase()} ${path} has no parameter ${name}`);
  return parameter.schema;
}

function petProperty(schema: 'NewPet' | 'Pet', name: string): IntegerSchema {
  const declared = openApiSchemas()[schema] as { properties?: JsonObject; allOf?: Array<{ properties?: JsonObject }> };
  const properties = [declared.properties ?? {}, ...(declared.allOf ?? []).map((part) => part.properties ?? {})];
  const found = properties.find((candidate) => name in candidate)?.[name];
  if (found === undefined) throw new Error(`spec/openapi.yaml: ${schema} has no property ${name}`);
  return found as IntegerSchema;
}

/**
 * The bounds of the format the spec gives every identifier (the pet's id, the petId path parameter,
 * NewPet.categoryId). Code probes the edges of int64 by name, so a spec that changes the format must stop it here.
 */
function idBounds(format: string): { min: bigint; max: bigint } {
  const declared = [petProperty('Pet', 'id'), petProperty('NewPet', 'categoryId'), parameterSchema('/pets/{petId}', 'get', 'petId')].map((schema) => schema.format);
  if (declared.some((other) => other !== format)) throw new Error(`spec/openapi.yaml: the ids are no longer all ${format} (${declared.join(', ')}); revisit the code that probes their edges`);
  return integerFormatBounds(format)!;
}

/** The range of every id: -(2^63) to 2^63-1. */
export const INT64 = idBounds('int64');

/** The range of int32: what a server that stores ids in 32 bits accepts, an edge worth probing. */
export const INT32 = integerFormatBounds('int32')!;

/** One of PET_STATUSES: the enum is read from the spec when the code runs, so the type cannot list it. */
export type PetStatus = string;

function petStatuses(): readonly string[] {
  const values = (openApiSchemas().PetStatus as { enum?: string[] } | undefined)?.enum;
  if (!values?.length) throw new Error('spec/openapi.yaml: PetStatus no longer lists its values');
  return values;
}

/** The PetStatus enum, in the spec's order. */
export const PET_STATUSES = petStatuses();

function pageSize(): { min: number; max: number; default: number } {
  const { minimum, maximum, default: fallback } = parameterSchema('/pets', 'get', 'limit');
  if (minimum === undefined || maximum === undefined || fallback === undefined) throw new Error('spec/openapi.yaml: limit on GET /pets no longer states its minimum, maximum and default');
  return { min: minimum, max: maximum, default: fallback };
}

/** The bounds of `limit` on GET /pets, and the page size when it is absent. */
export const PAGE_SIZE = pageSize();

/** "The interface description version is 1.0.0" (Versioning, item 1): openapi.yaml's info.version. */
export const SPEC_VERSION = specVersion();

function specVersion(): string {
  const version = (openApiDocument().info as JsonObject | undefined)?.version;
  if (typeof version !== 'string' || version === '') throw new Error('spec/openapi.yaml: info.version no longer states the interface version');
  return version;
}

/**
 * "GET /pets/{petId} is deprecated with removal on 5 December 2030" (Versioning, item 2): the getPet operation's
 * `x-sunset` in openapi.yaml, as an ISO date (YYYY-MM-DD), which compares with the run's date as text.
 */
export const GET_PET_REMOVAL = getPetRemoval();

function getPetRemoval(): string {
  const sunset = operation('/pets/{petId}', 'get')['x-sunset'];
  if (typeof sunset !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(sunset)) throw new Error('spec/openapi.yaml: getPet no longer states its removal date as x-sunset: YYYY-MM-DD');
  return sunset;
}

/** One plan of "Request rate, by plan"; a limit the spec calls custom (Enterprise) is undefined. */
export interface RatePlan {
  name: string;
  perMinute?: number;
  perDay?: number;
}

/** The plans of Limits › Request rate, by plan: openapi.yaml's `x-rate-limit-plans`, in the spec's order. */
export const RATE_PLANS: readonly RatePlan[] = ratePlans();

function ratePlans(): RatePlan[] {
  const listed = openApiDocument()['x-rate-limit-plans'];
  if (!Array.isArray(listed) || listed.length === 0) throw new Error('spec/openapi.yaml: x-rate-limit-plans no longer lists the plans');
  const limit = (plan: JsonObject, field: string): number | undefined => {
    const value = plan[field];
    if (value === 'custom') return undefined;
    if (!Number.isInteger(value) || (value as number) < 1) throw new Error(`spec/openapi.yaml: x-rate-limit-plans: ${field} of ${String(plan.plan)} is neither a count nor custom`);
    return value as number;
  };
  return (listed as JsonObject[]).map((plan) => ({ name: String(plan.plan), perMinute: limit(plan, 'perMinute'), perDay: limit(plan, 'perDay') }));
}

/** The plan of that name; the code that names one (a default, a harness) stops here if the spec drops it. */
export function ratePlan(name: string): RatePlan {
  const plan = RATE_PLANS.find((candidate) => candidate.name === name);
  if (!plan) throw new Error(`spec/openapi.yaml: x-rate-limit-plans has no plan ${name}`);
  return plan;
}

/** The areas of spec/rules.yaml in its order, which is the order suites run: errors and rate limits judge every exchange the others made. */
export const AREA_ORDER = Object.keys(loadCatalog().areas) as readonly Area[];
