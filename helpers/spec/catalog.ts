import { specDocuments } from './documents.js';

export type Level = 'MUST' | 'SHOULD' | 'INFO';
export type Area =
  | 'listing' | 'creating' | 'fetching' | 'auth' | 'store'
  | 'versioning' | 'fuzzing' | 'requests' | 'errors' | 'ratelimit' | 'consistency';

export interface Rule {
  id: string;
  level: Level;
  area: Area;
  operations: string[];
  summary: string;
  section: string;
  source?: string;
  words: string;
  needs?: Array<'write'>;
  state?: 'active' | 'pending' | 'retired';
  reason?: string;
}

export interface Catalog {
  areas: Record<Area, string>;
  rules: Rule[];
}

/** The rule catalog, spec/rules.yaml. */
export function loadCatalog(): Catalog {
  return specDocuments().rules as Catalog;
}

/** Rules that are checked: pending and retired ones stay in the catalog but are not run. */
export function activeRules(): Rule[] {
  return loadCatalog().rules.filter((rule) => (rule.state ?? 'active') === 'active');
}

/** Looks a rule up by ID; an unknown ID is a bug in the suite, so it throws at collection time. */
export function getRule(id: string): Rule {
  const rule = rulesById(loadCatalog()).get(id);
  if (!rule) throw new Error(`Unknown rule ID ${id}: not in spec/rules.yaml`);
  return rule;
}

/**
 * The catalog's rules by ID, built once per thread from the frozen catalog: a memo of pure data, as the catalog is,
 * not state of a run. getRule is asked for every exchange judged by area, so it must not walk the catalog each time.
 */
const indexed: { catalog?: Catalog; byId?: ReadonlyMap<string, Rule> } = {};
function rulesById(catalog: Catalog): ReadonlyMap<string, Rule> {
  if (indexed.catalog !== catalog || !indexed.byId) {
    indexed.byId = new Map(catalog.rules.map((rule) => [rule.id, rule]));
    indexed.catalog = catalog;
  }
  return indexed.byId;
}

/** Why a rule is not selected by --only/--skip, or undefined when it is. */
export function deselectionReason(rule: Rule, config: { only: readonly string[]; skip: readonly string[] }): string | undefined {
  const names = (rule: Rule) => [rule.id, rule.area];
  if (config.only.length > 0 && !names(rule).some((name) => config.only.includes(name))) {
    return `not selected: --only ${config.only.join(',')}`;
  }
  const skipped = names(rule).find((name) => config.skip.includes(name));
  return skipped ? `skipped by --skip ${skipped}` : undefined;
}
