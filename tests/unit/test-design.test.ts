// spec/test-design.md is what a reviewer reads to trust a "certified": it must name every rule that can
// turn a verdict, and name no rule the catalog does not hold.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../helpers/spec/catalog.js';
import { packagePath } from '../../helpers/package-root.js';
import { VARIANTS } from '../variants/catalog.js';

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

/**
 * The rows of the table under a `## title` section (or a `### title` within one): each row's cells, header and separator
 * left out. A cell may hold an escaped `\\|`, as a spec table's words do.
 */
function tableRows(text: string, title: string, level = '## '): string[][] {
  const section = text.split(new RegExp(`^${level}`, 'm')).find((part) => part.startsWith(`${title}\n`)) ?? '';
  const body = level === '## ' ? section : section.split(/^#{2,3} /m)[0]!;
  return body.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
    .slice(1).map((line) => line.slice(2, -2).split(/(?<!\\) \| /));
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
    const rows = tableRows(design, 'The invariants', '### ');
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

  describe('its laws', () => {
    const rows = tableRows(design, 'The laws', '### ');

    it('states the six laws, each with the spec\'s words, its rules, what it sends and what judges it', () => {
      expect(rows.map((cells) => cells[0])).toEqual([
        'A refused request changes nothing', 'Authentication covers every way to reach the data', 'Every statement the server makes agrees with every other',
        'The input domain is the whole domain', 'The verdict does not depend on how the client uses its connections', 'A freedom the spec leaves open stays free',
      ]);
      expect(rows.filter((cells) => cells.length !== 5 || !cells[1]!.includes('"') || cells.some((cell) => cell.trim() === '')).map((cells) => cells[0])).toEqual([]);
    });

    it('names a rule of the catalog for every law that has rules of its own', () => {
      const known = new Set(catalog.rules.map((rule) => rule.id));
      const lawRules = rows.slice(0, 5).map((cells) => [...namedRuleIds(cells[2]!)]);
      expect(lawRules.filter((ids) => ids.length === 0 || ids.some((id) => !known.has(id)))).toEqual([]);
    });
  });

  describe('its Freedoms section', () => {
    const rows = tableRows(design, 'Freedoms');
    const variants = new Set(VARIANTS.map((variant) => variant.id as string));

    it('ties every freedom to the rules it bounds and to a conforming variant of the gallery that exists', () => {
      expect(rows.length).toBeGreaterThan(20);
      const known = new Set(catalog.rules.map((rule) => rule.id));
      const unbound = rows.filter((cells) => cells.length !== 4 || cells[0]!.trim() === '' || cells[1]!.trim() === '');
      expect(unbound.map((cells) => cells.join(' | '))).toEqual([]);
      const badRules = rows.filter((cells) => cells[2] !== 'every rule' && ([...namedRuleIds(cells[2]!)].length === 0 || [...namedRuleIds(cells[2]!)].some((id) => !known.has(id))));
      expect(badRules.map((cells) => `${cells[0]}: ${cells[2]}`)).toEqual([]);
      const named = rows.map((cells) => [...cells[3]!.matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1]!));
      expect(rows.filter((_, index) => named[index]!.length === 0).map((cells) => cells[0])).toEqual([]);
      expect(named.flat().filter((id) => !variants.has(id))).toEqual([]);
    });

    it('holds the name freedom the suite reads (a short plain name created, any other refusable) with a variant that refuses long and empty names', () => {
      const names = rows.find((cells) => cells[0] === 'which names a server refuses');
      expect(names?.[1]).toContain('short plain name');
      expect(names?.[3]).toContain('`name-varchar-64`');
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
