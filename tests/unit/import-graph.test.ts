// An import circle makes a module's meaning depend on the order of loading, and every change to one of
// its members a change to all: the project's modules import one another in one direction only.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_STATE_MODULES } from '../../cli/suite-engine.js';
import { packagePath } from '../../helpers/package-root.js';
import { projectModules as modulesIn } from '../support/source-scan.js';

const ROOT = packagePath();
const FOLDERS = ['cli', 'helpers', 'server', 'suites', 'bench'];
// `import … from './x.js'`, `export … from './x.js'`, `import('./x.js')`, type-only imports included: a
// circle of types is still a circle a reader has to hold in mind.
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The project module a relative specifier in `file` names, as a path from the root (the .ts source of its .js). */
function moduleImported(file: string, specifier: string): string {
  return relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts');
}

/** Each module of the project (path from the root) and the project modules it imports. */
function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imported = [...read(file).matchAll(RELATIVE_IMPORT)]
      .map((match) => moduleImported(file, match[1]!))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(imported)]);
  }
  return graph;
}

/** The first circle found, as the modules walked (the first repeated at the end), or none. */
function firstCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    const open = path.indexOf(node);
    if (open !== -1) return [...path.slice(open), node];
    if (done.has(node)) return undefined;
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(node);
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Every import from a module under `from` of a module under `to`, as "importer → imported". */
function importsAcross(graph: ReadonlyMap<string, readonly string[]>, from: string, to: string): string[] {
  return [...graph].filter(([file]) => file.startsWith(from)).flatMap(([file, imported]) => imported.filter((target) => target.startsWith(to)).map((target) => `${file} → ${target}`));
}

function projectModules(): string[] {
  return ['index.ts', ...modulesIn(FOLDERS)].sort();
}

// An import that loads its module when the importer loads: not `import type`, not a dynamic import(). The
// specifier may be relative (a project module) or bare (a package).
const LOADING_IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'"]*?\sfrom\s*)?['"]([^'"]+)['"]/gm;

/** What loading `entry` loads before any of its code runs: the project modules, and the packages they import. */
function loadedWith(entry: string, files: readonly string[], read: (file: string) => string): { modules: string[]; packages: string[] } {
  const known = new Set(files);
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    for (const [, specifier] of read(file).matchAll(LOADING_IMPORT)) {
      if (!specifier!.startsWith('.')) {
        if (!specifier!.startsWith('node:')) packages.add(specifier!);
        continue;
      }
      const target = moduleImported(file, specifier!);
      if (known.has(target)) visit(target);
    }
  };
  visit(entry);
  return { modules: [...modules].sort(), packages: [...packages].sort() };
}

describe('the import graph', () => {
  it('holds no circle among the project\'s modules', () => {
    const graph = importGraph(projectModules(), (file) => readFileSync(join(ROOT, file), 'utf8'));
    expect(graph.get('index.ts'), 'the graph reads the project\'s own imports').toContain('cli/run.ts');
    const cycle = firstCycle(graph);
    expect(cycle && cycle.join(' → '), 'an import circle').toBeUndefined();
  });

  it('has nothing under helpers/ import from cli/: the checks\' tools know nothing of the command line', () => {
    const graph = importGraph(projectModules(), (file) => readFileSync(join(ROOT, file), 'utf8'));
    expect(graph.get('helpers/run-context.ts'), 'the graph reads helpers/ imports').toContain('helpers/http/client.ts');
    expect(importsAcross(graph, 'helpers/', 'cli/')).toEqual([]);
  });

  // --help, --version, --list, a usage error and a refused verify folder are answered by a process that starts,
  // parses and exits: 0.17 s of CPU, against 0.4 s when the engine, the client and the reporters came along.
  it('loads, for the command line itself, no run: not the engine, the HTTP client, the reporters or the server', () => {
    const loaded = loadedWith('cli/main.ts', projectModules(), (file) => readFileSync(join(ROOT, file), 'utf8'));
    expect(loaded.modules, 'the walk reads the command line\'s own imports').toContain('cli/options.ts');
    expect(loaded.modules.filter((file) => ['cli/run.ts', 'cli/preflight.ts', 'cli/reports/write.ts', 'helpers/http/client.ts'].includes(file) || file.startsWith('server/'))).toEqual([]);
    // The parser of the command line, and the JSON writer of a --list or usage answer: nothing that serves a run.
    expect(loaded.packages).toEqual(['commander', 'lossless-json']);
  });

  // The requests are the suite thread's: the CLI's side of a run (its engine, channel, reports) needs no client.
  it('loads, for the CLI\'s side of a run, no HTTP client and no undici', () => {
    const loaded = loadedWith('cli/run.ts', projectModules(), (file) => readFileSync(join(ROOT, file), 'utf8'));
    expect(loaded.modules, 'the walk reads the run\'s own imports').toContain('cli/suite-engine.ts');
    expect(loaded.modules.filter((file) => file.startsWith('helpers/http/client') || file === 'helpers/http/dispatcher.ts')).toEqual([]);
    expect(loaded.packages).not.toContain('undici');
  });

  // The suite engine loads helpers/ natively, except these: one left out would be loaded twice and keep a run's state.
  it('runs through vitest\'s module runner exactly the helpers whose loading imports reach vitest', () => {
    const files = projectModules();
    const reachingVitest = files.filter((file) => file.startsWith('helpers/') && loadedWith(file, files, (name) => readFileSync(join(ROOT, name), 'utf8')).packages.includes('vitest'));
    expect(reachingVitest, 'the walk finds the check declarations').toContain('helpers/judge/check.ts');
    expect(reachingVitest.map((file) => file.replace(/\.ts$/, '.js'))).toEqual([...RUN_STATE_MODULES].sort());
  });

  it('follows loading imports only: a type-only import and a dynamic import() load nothing', () => {
    const files: Record<string, string> = {
      'cli/main.ts': "import { a } from './a.js';\nimport type { B } from './b.js';\nconst { c } = await import('./c.js');",
      'cli/a.ts': "import {\n  x,\n  y,\n} from '../helpers/x.js';\nexport * from './d.js';",
      'cli/b.ts': "import 'undici';", 'cli/c.ts': "import 'markdown-it';", 'cli/d.ts': "import { Command } from 'commander';",
      'helpers/x.ts': "import { readFileSync } from 'node:fs';",
    };
    expect(loadedWith('cli/main.ts', Object.keys(files), (file) => files[file]!)).toEqual({
      modules: ['cli/a.ts', 'cli/d.ts', 'cli/main.ts', 'helpers/x.ts'], packages: ['commander'],
    });
  });

  it('names an import from helpers/ into cli/, dynamic and type-only ones included', () => {
    const files: Record<string, string> = {
      'helpers/a.ts': "import type { B } from '../cli/b.js';",
      'helpers/http/c.ts': "const d = await import('../../cli/d.js');",
      'cli/b.ts': "import { a } from '../helpers/a.js';",
      'cli/d.ts': '',
    };
    expect(importsAcross(importGraph(Object.keys(files), (file) => files[file]!), 'helpers/', 'cli/')).toEqual(['helpers/a.ts → cli/b.ts', 'helpers/http/c.ts → cli/d.ts']);
  });

  it('finds a circle of three modules, type-only imports and .js specifiers included', () => {
    const files: Record<string, string> = {
      'cli/a.ts': "import { b } from './b.js';",
      'cli/b.ts': "import type { C } from '../helpers/c.js';",
      'helpers/c.ts': "export { a } from '../cli/a.js';\nimport { x } from 'vitest';",
    };
    const cycle = firstCycle(importGraph(Object.keys(files), (file) => files[file]!));
    expect(cycle).toEqual(['cli/a.ts', 'cli/b.ts', 'helpers/c.ts', 'cli/a.ts']);
  });

  it('finds none where the imports go one way', () => {
    const files: Record<string, string> = {
      'cli/a.ts': "import { b } from './b.js';\nimport { c } from '../helpers/c.js';",
      'cli/b.ts': "import { c } from '../helpers/c.js';",
      'helpers/c.ts': "import { readFileSync } from 'node:fs';",
    };
    expect(firstCycle(importGraph(Object.keys(files), (file) => files[file]!))).toBeUndefined();
  });
});
