// What the build derives from spec/ once: both files parsed, and the schema validators' code. A process that
// finds it starts without the YAML parser and ajv's code generator, some 0.3 s of CPU that every CLI process
// paid before its first request. The spec files stay the source: the build records each one's SHA-256 (and
// ajv's version, which the code is written for), and a file whose hash differs makes the record stale, so a
// spec edited after the build is parsed as it now reads.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { packagePath } from '../package-root.js';

/** The spec files the record is derived from, in spec/. */
export const SPEC_FILES = ['openapi.yaml', 'rules.yaml'] as const;

export interface PreparedSpec {
  /** SHA-256 (hex) of each spec file as the build read it. */
  sources: Record<string, string>;
  /** The version of ajv whose runtime the validators' code requires. */
  ajv: string;
  openApi: Record<string, unknown>;
  rules: unknown;
  schemaValidatorsCode: string;
}

/** Where the build writes the record: beside the compiled code, in the package. */
export function preparedSpecPath(): string {
  return packagePath('dist', 'helpers', 'spec', 'prepared.json');
}

/** The SHA-256 of each spec file as it reads now: what a record must match to be used at all. */
export function specSources(): Record<string, string> {
  return Object.fromEntries(SPEC_FILES.map((name) => [name, createHash('sha256').update(readFileSync(packagePath('spec', name))).digest('hex')]));
}

/** The installed ajv's version: what a record's validators' code must have been written for. */
export function ajvVersion(): string {
  return (createRequire(import.meta.url)('ajv/package.json') as { version: string }).version;
}

/** The build's record, when there is one and it matches the spec files as they are now; else undefined. */
export function preparedSpec(path = preparedSpecPath()): PreparedSpec | undefined {
  let prepared: PreparedSpec;
  try {
    prepared = JSON.parse(readFileSync(path, 'utf8')) as PreparedSpec;
  } catch {
    return undefined;
  }
  const now = specSources();
  return SPEC_FILES.every((name) => prepared.sources?.[name] === now[name]) ? prepared : undefined;
}

/**
 * The record's validators' code, when the record is used and was written for the ajv installed now. (Asked only
 * where the code is generated: a thread handed the code loads nothing of ajv, its version file included.)
 */
export function preparedValidatorsCode(path = preparedSpecPath()): string | undefined {
  const prepared = preparedSpec(path);
  return prepared?.ajv === ajvVersion() ? prepared.schemaValidatorsCode : undefined;
}
