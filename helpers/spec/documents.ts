// The interface's two machine-readable files, spec/openapi.yaml and spec/rules.yaml, as parsed values.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { packagePath } from '../package-root.js';
import { preparedSpec } from './prepared.js';

export interface SpecDocuments {
  openApi: Record<string, unknown>;
  rules: unknown;
}

/**
 * Both files, parsed at most once per thread: a memo of pure data, not state of a run. The files ship with the
 * package and do not change while it runs, so every run of a process reads the same values; they are frozen,
 * so that no run can change what another reads. (The spec's facts, `PAGE_SIZE` and the rest, are read from them
 * as modules load, before any run exists: they cannot wait for a run's context.)
 */
const parsed: { documents?: SpecDocuments } = {};

/**
 * Both files, read at most once per thread, unless the thread was handed them already: as the build parsed
 * them (spec/prepared.ts), or parsed here when the build's record is missing or no longer matches them.
 */
export function specDocuments(): SpecDocuments {
  if (!parsed.documents) {
    const prepared = preparedSpec();
    parsed.documents = deepFrozen(prepared ? { openApi: prepared.openApi, rules: prepared.rules } : parseSpecFiles());
  }
  return parsed.documents;
}

/** Both files, parsed from their YAML now. */
export function parseSpecFiles(): SpecDocuments {
  return { openApi: parseYamlFile('openapi.yaml') as Record<string, unknown>, rules: parseYamlFile('rules.yaml') };
}

/**
 * Hands a thread the documents another thread read: the suite worker of every run takes the CLI's,
 * so a certification parses its spec once. (Parsing both files and loading the YAML parser were a
 * tenth of the CPU a run costs, paid again by every run's fresh worker.)
 */
export function adoptSpecDocuments(given: SpecDocuments): void {
  parsed.documents ??= deepFrozen(given);
}

function parseYamlFile(name: string): unknown {
  // Required where it is used, not imported: a thread handed the documents never loads the parser.
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(readFileSync(packagePath('spec', name), 'utf8'));
}

function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFrozen(child);
  }
  return value;
}
