// State belongs to the run: the checks' tools (helpers/) and the checks (suites/) keep what a run knows in the
// run's context (helpers/run-context.ts), never in a module, where a second run in the same process, or the
// next suite file of a worker kept for another run, would find it. This reads every module's top-level
// declarations, as the TypeScript compiler parses them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';

const ROOT = packagePath();
const FOLDERS = ['helpers', 'suites'];

/**
 * Module-level memos that may stay, each with the reason: pure data derived from the shipped spec, the same for
 * every run of a process, which code reads before any run exists (the spec's facts load with their modules).
 */
const PURE_MEMOS: Record<string, string> = {
  'helpers/spec/documents.ts parsed': 'spec/openapi.yaml and spec/rules.yaml, parsed and frozen',
  'helpers/judge/schema-validators.ts generated': 'the schema validators\' code, generated from spec/openapi.yaml',
  'helpers/judge/schema-validators.ts evaluated': 'the schema validators, keyed by their code',
};

/** Containers a module could fill as a run goes: a Readonly type annotation says the module never does. */
const MUTABLE_CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

/** Each top-level declaration of `source` that can hold a run's state, as "file name (why)". */
function moduleState(file: string, source: string): string[] {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  for (const statement of parsed.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const constant = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of list.declarations) {
      const name = declaration.name.getText(parsed);
      const why = constant ? mutableContainer(declaration, parsed) : `a module-level ${(list.flags & ts.NodeFlags.Let) !== 0 ? 'let' : 'var'}`;
      if (why) found.push(`${file} ${name} (${why})`);
    }
  }
  return found;
}

/** Why a `const` holds something a run could fill: an empty array or object, or a Map, Set or WeakMap not typed read-only. */
function mutableContainer(declaration: ts.VariableDeclaration, parsed: ts.SourceFile): string | undefined {
  const value = declaration.initializer;
  const type = declaration.type?.getText(parsed) ?? '';
  if (!value || type.startsWith('Readonly') || type.startsWith('readonly ')) return undefined;
  if (ts.isArrayLiteralExpression(value) && value.elements.length === 0) return 'an empty array';
  if (ts.isObjectLiteralExpression(value) && value.properties.length === 0) return 'an empty object';
  if (ts.isNewExpression(value) && ts.isIdentifier(value.expression) && MUTABLE_CONTAINERS.has(value.expression.text)) return `a ${value.expression.text}`;
  return undefined;
}

function modules(): string[] {
  return FOLDERS.flatMap((folder) => readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(folder, file)))
    .sort();
}

const withoutReason = (finding: string) => finding.replace(/ \(.*\)$/, '');

describe('module state', () => {
  it('helpers/ and suites/ keep no state of a run at module level: no let, no container a run could fill', () => {
    const found = modules().flatMap((file) => moduleState(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(modules(), 'the scan reads the suites').toContain('suites/listing.test.ts');
    expect(found.filter((finding) => !(withoutReason(finding) in PURE_MEMOS))).toEqual([]);
    // A memo that is gone takes its reason with it, so the list cannot excuse a later one of the same name.
    expect(Object.keys(PURE_MEMOS).filter((memo) => !found.map(withoutReason).includes(memo))).toEqual([]);
  });

  it('names a planted let, var, WeakMap, empty array or object, and lets constants, read-only sets and locals be', () => {
    const source = [
      'let client;',
      'export let sampling: Promise<void> | undefined;',
      'var count = 0;',
      'const lastReads = new WeakMap<object, unknown>();',
      'export const createdPets: Pet[] = [];',
      'const memo: { value?: string } = {};',
      'const PAGE = 20;',
      'const STATUSES = [\'available\', \'sold\'];',
      'const METHODS: ReadonlySet<string> = new Set([\'GET\']);',
      'function inner() { let local = 0; const seen = new Map(); return [local, seen]; }',
    ].join('\n');
    expect(moduleState('helpers/planted.ts', source)).toEqual([
      'helpers/planted.ts client (a module-level let)',
      'helpers/planted.ts sampling (a module-level let)',
      'helpers/planted.ts count (a module-level var)',
      'helpers/planted.ts lastReads (a WeakMap)',
      'helpers/planted.ts createdPets (an empty array)',
      'helpers/planted.ts memo (an empty object)',
    ]);
  });
});
