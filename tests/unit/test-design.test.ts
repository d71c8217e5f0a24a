// spec/test-design.md is what a reviewer reads to trust a "certified": it must name every rule that can
// turn a verdict, and name no rule the catalog does not hold.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../helpers/spec/catalog.js';
import { packagePath } from '../../helpers/package-root.js';

const design = readFileSync(packagePath('spec', 'test-design.md'), 'utf8');
const catalog = loadCatalog();

/** Rule IDs the document names, with ranges such as AUTH-01..05 spelled out. */
function namedRuleIds(text: string): Set<string> {
  const ids = new Set<string>();
  for (const match of text.matchAll(/\b([A-Z]+)-(\d{2})(?:\.\.(\d{2}))?\b/g)) {
    const [, prefix, from, to] = match;
    for (let n = Number(from); n <= Number(to ?? from); n++) ids.add(`${prefix}-${String(n).padStart(2, '0')}`);
  }
  return ids;
}

describe('the test design', () => {
  const named = namedRuleIds(design);

  it('ties every active MUST and SHOULD rule to at least one class', () => {
    const judged = catalog.rules.filter((rule) => (rule.state ?? 'active') === 'active' && rule.level !== 'INFO');
    expect(judged.filter((rule) => !named.has(rule.id)).map((rule) => rule.id)).toEqual([]);
  });

  it('names only rules of the catalog', () => {
    const known = new Set(catalog.rules.map((rule) => rule.id));
    expect([...named].filter((id) => !known.has(id))).toEqual([]);
  });
});
