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

/** The rows of the table under a `## title` section: each row's cells, header and separator left out. */
function tableRows(text: string, title: string): string[][] {
  const section = text.split(/^## /m).find((part) => part.startsWith(`${title}\n`)) ?? '';
  return section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
    .slice(1).map((line) => line.slice(2, -2).split(' | '));
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

  describe('its Oracles section', () => {
    const rows = tableRows(design, 'Oracles');
    const owners = rows.map((cells) => [...namedRuleIds(cells[2] ?? '')]);

    it('gives every invariant exactly one owning rule, and every rule at most one invariant', () => {
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((_, index) => owners[index]!.length !== 1).map((cells) => cells[1])).toEqual([]);
      const ids = owners.flat();
      expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    });

    it('states an invariant for every rule of the consistency area and every run-wide error and header rule', () => {
      const runWide = catalog.rules.filter((rule) => rule.area === 'consistency' || /^(ERR-0[1-5]|RATE-0[1-5])$/.test(rule.id)).map((rule) => rule.id);
      expect(runWide.filter((id) => !owners.flat().includes(id))).toEqual([]);
    });

    it('quotes the spec for every invariant and says where it is judged', () => {
      expect(rows.filter((cells) => cells.length !== 4 || !cells[0]!.includes('"') || cells[3]!.trim() === '').map((cells) => cells.join(' | '))).toEqual([]);
    });
  });

  describe('its Request-space section', () => {
    const rows = tableRows(design, 'Request-space');
    const judging = rows.map((cells) => [...namedRuleIds(cells[3] ?? '')]);

    it('says of every probe what is sent, why it is safe, and which rules judge the answer', () => {
      expect(rows.length).toBeGreaterThan(0);
      const incomplete = rows.filter((cells, index) => cells.length !== 4 || cells.slice(0, 3).some((cell) => cell.trim() === '') || judging[index]!.length === 0);
      expect(incomplete.map((cells) => cells.join(' | '))).toEqual([]);
    });

    it('names every rule of the requests area and every rule written for these requests in other areas', () => {
      const probeRules = catalog.rules.filter((rule) => rule.area === 'requests' || ['AUTH-10', 'AUTH-11', 'CREATE-16', 'CREATE-17', 'CREATE-18'].includes(rule.id)).map((rule) => rule.id);
      expect(probeRules.filter((id) => !judging.flat().includes(id))).toEqual([]);
    });
  });
});
