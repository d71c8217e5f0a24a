// An import circle makes a module's meaning depend on the order of loading, and every change to one of
// its members a change to all: the project's modules import one another in one direction only, down the
// layers below, at every depth; and no module of the product needs a test runner to run.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
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

/**
 * The layers of the project, lowest first: a module imports from its own layer or a lower one. A path names a file
 * or a folder; the longest path that holds a module is its layer.
 */
const LAYERS: readonly string[][] = [
  ['helpers/json.ts', 'helpers/package-root.ts', 'helpers/bounded-file.ts'],
  ['helpers/spec/'],
  // The one request path: it records, paces and redacts, and knows nothing of judging.
  ['helpers/http/'],
  ['helpers/run-config.ts', 'helpers/run-context.ts'],
  ['helpers/judge/'],
  ['helpers/fixtures/', 'helpers/fuzz/'],
  ['helpers/model/'],
  ['helpers/explore/'],
  ['helpers/engine/'],
  ['suites/'],
  ['server/'],
  // What every part of the command line may name: the tool and its version, and the error that means bad usage (exit 2).
  ['cli/tool.ts', 'cli/usage-error.ts'],
  // The report, its formats (pure functions of the report) and the folder they are written to.
  ['cli/reports/'],
  // The verdict and the baseline policy, apart from every format.
  ['cli/policy/'],
  ['cli/'],
  ['index.ts', 'bench/'],
];

/** The rank of a module's layer, or undefined for a module no layer holds. */
function layerOf(file: string): number | undefined {
  let found: { rank: number; length: number } | undefined;
  for (const [rank, paths] of LAYERS.entries()) {
    for (const path of paths) {
      const holds = path.endsWith('/') ? file.startsWith(path) : file === path;
      if (holds && (!found || path.length > found.length)) found = { rank, length: path.length };
    }
  }
  return found?.rank;
}

/** Every import of a module from a higher layer, as "importer → imported". */
function importsUp(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, imported]) => imported
    .filter((target) => (layerOf(target) ?? -1) > (layerOf(file) ?? Number.POSITIVE_INFINITY))
    .map((target) => `${file} → ${target}`)).sort();
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

  it('points every import down the layers, at every depth: the HTTP layer knows nothing of judging, report formats nothing of the command line', () => {
    const graph = importGraph(projectModules(), (file) => readFileSync(join(ROOT, file), 'utf8'));
    expect(graph.get('helpers/run-context.ts'), 'the graph reads helpers/ imports').toContain('helpers/http/client.ts');
    expect(projectModules().filter((file) => layerOf(file) === undefined), 'every module has a layer').toEqual([]);
    expect(importsUp(graph)).toEqual([]);
  });

  it('has no module of the product import vitest: the engine is ours, and vitest only an adapter of the suites', () => {
    const product = projectModules().filter((file) => !file.endsWith('.test.ts') && !file.startsWith('bench/'));
    expect(product, 'the walk finds the engine').toContain('helpers/engine/engine.ts');
    const importsVitest = product.filter((file) => /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]vitest(?:\/[^'"]*)?['"]/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(importsVitest).toEqual([]);
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

  it('names an import up the layers, dynamic and type-only ones included', () => {
    const files: Record<string, string> = {
      'helpers/http/a.ts': "import type { B } from '../judge/b.js';",
      'cli/reports/c.ts': "const d = await import('../d.js');",
      'helpers/judge/b.ts': "import { a } from '../http/a.js';",
      'cli/d.ts': "import { c } from './reports/c.js';",
    };
    expect(importsUp(importGraph(Object.keys(files), (file) => files[file]!))).toEqual(['cli/reports/c.ts → cli/d.ts', 'helpers/http/a.ts → helpers/judge/b.ts']);
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
