// State belongs to the run: the checks' tools (helpers/) and the checks (suites/) keep what a run knows in the
// run's context (helpers/run-context.ts), never in a module, where a second run in the same process would find it. This reads every module's top-level
// declarations, parsed as TypeScript.
import { readFileSync } from 'node:fs';
import type { Statement, VariableDeclaration, VariableDeclarator } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';
import { parseModule, projectModules, type ParsedModule } from '../support/source-scan.js';

const FOLDERS = ['helpers', 'suites'];

/**
 * Module-level memos that may stay, each with the reason: pure data derived from the shipped spec, the same for
 * every run of a process, which code reads before any run exists (the spec's facts load with their modules).
 */
const PURE_MEMOS: Record<string, string> = {
  'helpers/spec/documents.ts parsed': 'spec/openapi.yaml and spec/rules.yaml, parsed and frozen',
  'helpers/judge/schema-validators.ts generated': 'the schema validators\' code, generated from spec/openapi.yaml',
  'helpers/judge/schema-validators.ts evaluated': 'the schema validators, keyed by their code',
  'helpers/spec/catalog.ts indexed': 'the frozen catalog\'s rules by ID',
};

/** Containers a module could fill as a run goes: a Readonly type annotation says the module never does. */
const MUTABLE_CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

/** Each top-level declaration of `source` that can hold a run's state, as "file name (why)". */
function moduleState(file: string, source: string): string[] {
  const parsed = parseModule(file, source);
  const found: string[] = [];
  for (const statement of parsed.program.body) {
    const list = variablesOf(statement);
    if (list === undefined) continue;
    for (const declaration of list.declarations) {
      const name = declaration.id.type === 'Identifier' ? declaration.id.name : parsed.text(declaration.id);
      const why = list.kind === 'const' ? mutableContainer(declaration, parsed) : `a module-level ${list.kind}`;
      if (why) found.push(`${file} ${name} (${why})`);
    }
  }
  return found;
}

/** The variables a top-level statement declares, exported or not. */
function variablesOf(statement: Statement): VariableDeclaration | undefined {
  if (statement.type === 'VariableDeclaration') return statement;
  if (statement.type === 'ExportNamedDeclaration' && statement.declaration?.type === 'VariableDeclaration') return statement.declaration;
  return undefined;
}

/** Why a `const` holds something a run could fill: an empty array or object, or a Map, Set or WeakMap not typed read-only. */
function mutableContainer(declaration: VariableDeclarator, parsed: ParsedModule): string | undefined {
  const value = declaration.init;
  const annotation = declaration.id.typeAnnotation?.typeAnnotation;
  const type = annotation ? parsed.text(annotation) : '';
  if (!value || type.startsWith('Readonly') || type.startsWith('readonly ')) return undefined;
  if (value.type === 'ArrayExpression' && value.elements.length === 0) return 'an empty array';
  if (value.type === 'ObjectExpression' && value.properties.length === 0) return 'an empty object';
  if (value.type === 'NewExpression' && value.callee.type === 'Identifier' && MUTABLE_CONTAINERS.has(value.callee.name)) return `a ${value.callee.name}`;
  return undefined;
}

const modules = () => projectModules(FOLDERS);

const withoutReason = (finding: string) => finding.replace(/ \(.*\)$/, '');

describe('module state', () => {
  it('helpers/ and suites/ keep no state of a run at module level: no let, no container a run could fill', () => {
    const found = modules().flatMap((file) => moduleState(file, readFileSync(packagePath(file), 'utf8')));
    expect(modules(), 'the scan reads the suites').toContain('suites/listing.ts');
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
