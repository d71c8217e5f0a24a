// The interface's two machine-readable files, spec/openapi.yaml and spec/rules.yaml, as parsed values.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { packagePath } from '../package-root.js';

export interface SpecDocuments {
  openApi: Record<string, unknown>;
  rules: unknown;
}

let documents: SpecDocuments | undefined;

/** Both files, read and parsed at most once per thread, unless the thread was handed them already. */
export function specDocuments(): SpecDocuments {
  documents ??= { openApi: parseYamlFile('openapi.yaml') as Record<string, unknown>, rules: parseYamlFile('rules.yaml') };
  return documents;
}

/**
 * Hands a thread the documents another thread read: the suite worker of every run takes the CLI's,
 * so a certification parses its spec once. (Parsing both files and loading the YAML parser were a
 * tenth of the CPU a run costs, paid again by every run's fresh worker.)
 */
export function adoptSpecDocuments(given: SpecDocuments): void {
  documents ??= given;
}

function parseYamlFile(name: string): unknown {
  // Required where it is used, not imported: a thread handed the documents never loads the parser.
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(readFileSync(packagePath('spec', name), 'utf8'));
}
