// The validators of spec/openapi.yaml's named schemas, as ajv standalone code: generated once per process,
// handed to the suite worker, and turned into functions the same way in every thread.
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type Ajv2020Module from 'ajv/dist/2020.js';
import type addFormatsModule from 'ajv-formats';
import type standaloneCodeModule from 'ajv/dist/standalone/index.js';
import { openApiSchemas } from '../spec/facts.js';
import { preparedValidatorsCode } from '../spec/prepared.js';

// ajv resolves the spec's '#/components/schemas/...' refs against this base, so every named
// schema compiles standalone straight from spec/openapi.yaml.
const DOCUMENT_ID = 'https://petstore-conformance.invalid/openapi.yaml';
// OpenAPI 3.1 schema keywords that JSON Schema 2020-12 does not know.
const OPENAPI_KEYWORDS = ['discriminator', 'xml', 'externalDocs', 'example'];
// The integer formats ajv-formats checks on a JS number.
const INTEGER_FORMATS = ['int32', 'int64'];

// The code is CommonJS that requires what it uses (ajv's runtime helpers, ajv-formats' formats): it is
// resolved from here, where the package's dependencies are.
const requireDependency = createRequire(import.meta.url);

/**
 * Memos of pure functions of the shipped spec, per thread, not state of a run: the code is the same for every
 * run of a process, and the validators are a function of the code alone (keyed by it). Validators are called
 * from code that has no run at hand (a schema check inside an expectation), and compiling them is what the memo saves.
 */
const generated: { code?: string } = {};
const evaluated = new Map<string, Readonly<Record<string, ValidateFunction>>>();

/**
 * The code, at most once per thread unless the thread was handed it already: as the build generated it
 * (spec/prepared.ts), or generated here when the build's record is missing or no longer matches the spec or ajv.
 */
export function schemaValidatorsCode(): string {
  generated.code ??= preparedValidatorsCode() ?? generateCode(openApiSchemas());
  return generated.code;
}

/**
 * Hands a thread the code another thread generated: the suite worker of every run takes the CLI's, so
 * it never loads ajv nor compiles a schema. (Both cost some 80–100 ms in a fresh thread, paid again by
 * every run's fresh worker; evaluating the code costs well under a millisecond.)
 */
export function adoptSchemaValidatorsCode(given: string): void {
  generated.code ??= given;
}

/** One validator per named schema, evaluated from the code at most once per thread. */
export function schemaValidators(): Readonly<Record<string, ValidateFunction>> {
  const code = schemaValidatorsCode();
  let validators = evaluated.get(code);
  if (!validators) {
    validators = Object.freeze(evaluate(code));
    evaluated.set(code, validators);
  }
  return validators;
}

/** ajv's standalone code exporting a validator for each of `schemas`, by name. */
export function generateCode(schemas: Record<string, unknown>): string {
  // Required where it is used, not imported: a thread handed the code never loads ajv.
  const { default: Ajv2020 } = requireDependency('ajv/dist/2020.js') as typeof Ajv2020Module;
  const { default: addFormats } = requireDependency('ajv-formats') as typeof addFormatsModule;
  const { default: standaloneCode } = requireDependency('ajv/dist/standalone/index.js') as typeof standaloneCodeModule;
  const ajv = new Ajv2020({ allErrors: true, code: { source: true } });
  // `components` is only the wrapper below: keeping the schemas at the spec's own path lets its
  // '#/components/schemas/…' refs resolve unchanged.
  ajv.addVocabulary(['components', ...OPENAPI_KEYWORDS, ...extensionKeywords(schemas)]);
  // Besides the formats, this sets ajv's `code.formats`, so the code requires ajv-formats' own
  // implementation of any other format a schema names.
  addFormats(ajv);
  // ajv-formats checks these on a JS number, which cannot hold every int64; the exact check is done
  // on the original (bigint-bearing) value, by the judge (integerFormatProblems).
  for (const format of INTEGER_FORMATS) ajv.addFormat(format, true);
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas } });
  const refs = Object.fromEntries(Object.keys(schemas).map((name) => [name, `${DOCUMENT_ID}#/components/schemas/${name}`]));
  return standaloneCode(ajv, refs);
}

/** The validators the code exports, by schema name. */
export function evaluate(source: string): Record<string, ValidateFunction> {
  const exported: Record<string, ValidateFunction> = {};
  // The code is a CommonJS module body: it assigns to `exports` and calls `require`.
  new Function('exports', 'require', source)(exported, requireDependency);
  return exported;
}

// Lets an `x-…` extension inside a schema pass ajv's strict mode without switching strict off.
function extensionKeywords(node: unknown, found = new Set<string>()): string[] {
  if (Array.isArray(node)) node.forEach((item) => extensionKeywords(item, found));
  else if (typeof node === 'object' && node !== null) {
    for (const [key, child] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      extensionKeywords(child, found);
    }
  }
  return [...found];
}
