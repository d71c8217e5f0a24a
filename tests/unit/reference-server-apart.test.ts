// The reference server reads as the spec: its defects and variants are overrides of its seams, each written
// beside its catalog entry (tests/defects/, tests/variants/), never a switch in the handlers. These guards
// keep it so, and keep the catalogs (which the package does not ship) out of what the server imports.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';
import { DEFECTS } from '../defects/catalog.js';
import { VARIANTS } from '../variants/catalog.js';

/** Every module of the reference server, by path from the root, with its text. */
function referenceServerModules(): Array<{ path: string; text: string }> {
  return readdirSync(packagePath('server'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join('server', file))
    .map((path) => ({ path, text: readFileSync(packagePath(path), 'utf8') }));
}

/**
 * Where a text names a defect or variant id: a hyphenated id anywhere as a whole word (in code or in a
 * comment), a one-word id (`slow`, `gzip`) only in quotes, where it can be nothing but an id.
 */
function idsNamed(text: string, ids: readonly string[]): string[] {
  return ids.filter((id) => {
    const escaped = id.replace(/[-]/g, '\\-');
    const pattern = id.includes('-') ? new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`) : new RegExp(`['"\`]${escaped}['"\`]`);
    return pattern.test(text);
  });
}

describe('the reference server apart from its defects', () => {
  const modules = referenceServerModules();
  const ids = [...DEFECTS.map((defect) => defect.id as string), ...VARIANTS.map((variant) => variant.id as string)];

  it('reads the server modules it guards', () => {
    expect(modules.map((module) => module.path)).toEqual(expect.arrayContaining(['server/routes.ts', 'server/reference-server.ts', 'server/seams.ts', 'server/main.ts', 'server/serve.ts']));
  });

  it('names no defect or variant in any module of the reference server', () => {
    const named = modules.flatMap(({ path, text }) => idsNamed(text, ids).map((id) => `${path}: ${id}`));
    expect(named, 'ids named in the reference server').toEqual([]);
  });

  it('asks no switch: no has(…) or variant(…) decides a behaviour', () => {
    const switches = modules.flatMap(({ path, text }) => [...text.matchAll(/\b(?:has|variant)\(\s*['"`][^'"`]+['"`]\s*\)/g)].map((match) => `${path}: ${match[0]}`));
    expect(switches).toEqual([]);
  });

  it('imports no catalog: the command line of a clone hands them in (tests/support/serve.ts)', () => {
    const imports = modules.flatMap(({ path, text }) => [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)]
      .filter((match) => !match[1]!.startsWith('./') || /(^|\/)(defects|variants|switches|tests)(\/|\.js$)/.test(match[1]!))
      .map((match) => `${path}: ${match[0]}`));
    expect(imports.filter((line) => !line.includes('helpers/')), 'imports of the catalogs, or from outside server/ and helpers/').toEqual([]);
  });
});

describe('the defect and variant catalogs', () => {
  it('give every defect and variant overrides, settings or a front: none of them is inert', () => {
    const inert = [...DEFECTS, ...VARIANTS].filter((entry) => !('overrides' in entry) && !('options' in entry) && !('front' in entry)).map((entry) => entry.id);
    // The default behaviour itself, certified as the variant that relies on it.
    expect(inert).toEqual(['no-status']);
  });
});
