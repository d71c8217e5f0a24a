// Coverage gates: the rule catalog, the suites, the defect switches and the reference server must
// agree. Each test fails with the list of what falls short, so the fix is in the message.
import { describe, expect, it } from 'vitest';
import { getRule, loadCatalog, type Rule } from '../../helpers/spec/catalog.js';
import { check, suite } from '../../helpers/judge/check.js';
import { SUITES } from '../../suites/index.js';
import { AREA_ORDER } from '../../helpers/spec/facts.js';
import { defectById, DEFECTS } from '../defects/catalog.js';
import { VARIANTS } from '../variants/catalog.js';
import { runInProcess } from '../support/in-process.js';
import { brokenRules, FUZZING_KINDS, JUDGED_LEVELS, outputTail, withChildSlot } from '../support/harness.js';

const catalog = loadCatalog();
const rules = catalog.rules;
const stateOf = (rule: Rule) => rule.state ?? 'active';
const active = rules.filter((rule) => stateOf(rule) === 'active');
const judged = active.filter((rule) => (JUDGED_LEVELS as readonly string[]).includes(rule.level));

/** Every check of the suites, as values: the file that holds it, its rule, and whether the suite is its area's. */
function declaredChecks(): Array<{ suite: string; id: string }> {
  return SUITES.flatMap((each) => each.checks.map((declared) => ({ suite: each.area, id: declared.rule.id })));
}

/** How a rule ID stands in the catalog, for messages: `INFO, active` or `not in spec/rules.yaml`. */
function whatIs(id: string): string {
  const rule = rules.find((candidate) => candidate.id === id);
  return rule ? `${rule.level}, ${stateOf(rule)}` : 'not in spec/rules.yaml';
}

function duplicates(values: readonly string[]): string[] {
  return [...new Set(values.filter((value, index) => values.indexOf(value) !== index))];
}

describe('the rule catalog', () => {
  it('gives every rule a unique, well-formed ID', () => {
    expect(duplicates(rules.map((rule) => rule.id)), 'IDs used twice').toEqual([]);
    expect(rules.filter((rule) => !/^[A-Z]+-\d{2}$/.test(rule.id)).map((rule) => rule.id), 'IDs not shaped PREFIX-NN').toEqual([]);
  });

  it('uses one ID prefix per area, and each prefix in one area only', () => {
    const prefixes = new Map<string, Set<string>>();
    for (const rule of rules) {
      const prefix = rule.id.split('-')[0]!;
      prefixes.set(prefix, (prefixes.get(prefix) ?? new Set()).add(rule.area));
    }
    const mixed = [...prefixes].filter(([, areas]) => areas.size > 1).map(([prefix, areas]) => `${prefix}: ${[...areas].join(', ')}`);
    expect(mixed, 'prefixes spanning several areas').toEqual([]);
    const perArea = AREA_ORDER.map((area) => [area, [...prefixes].filter(([, areas]) => areas.has(area)).map(([prefix]) => prefix)] as const);
    expect(perArea.filter(([, found]) => found.length > 1).map(([area, found]) => `${area}: ${found.join(', ')}`), 'areas with several prefixes').toEqual([]);
  });

  it('changes what a rule means only visibly (update with -u when the change is meant)', () => {
    // A reworded summary or a new level changes what certification promises: the snapshot makes it a reviewed diff.
    expect(rules.map((rule) => `${rule.id} ${stateOf(rule)} ${rule.summary}`)).toMatchSnapshot();
  });

  it('starts every summary with its level, and knows every level, area and state', () => {
    expect(rules.filter((rule) => !['MUST', 'SHOULD', 'INFO'].includes(rule.level)).map((rule) => `${rule.id}: ${rule.level}`), 'unknown levels').toEqual([]);
    expect(rules.filter((rule) => !rule.summary.startsWith(`${rule.level} `)).map((rule) => `${rule.id} [${rule.level}]: ${rule.summary}`), 'summaries not starting with their level').toEqual([]);
    expect(rules.filter((rule) => !AREA_ORDER.includes(rule.area)).map((rule) => `${rule.id}: ${rule.area}`), 'areas outside AREA_ORDER').toEqual([]);
    expect(rules.filter((rule) => !['active', 'pending', 'retired'].includes(stateOf(rule))).map((rule) => `${rule.id}: ${rule.state}`), 'unknown states').toEqual([]);
    expect(rules.filter((rule) => stateOf(rule) === 'pending' && !rule.reason).map((rule) => rule.id), 'pending rules without a reason').toEqual([]);
  });
});

describe('the suites', () => {
  const checks = declaredChecks();
  const checked = new Set(checks.map((declared) => declared.id));

  it('hold one suite for each area of the catalog, in its order', () => {
    expect(SUITES.map((each) => each.area)).toEqual([...AREA_ORDER]);
  });

  it('check every active rule, once', () => {
    const unchecked = active.filter((rule) => !checked.has(rule.id)).map((rule) => `${rule.id} (suites/${rule.area}.ts): ${rule.summary}`);
    expect(unchecked, 'active rules without a check(\'ID\', …) in suites/<area>.ts').toEqual([]);
    expect(duplicates(checks.map((declared) => declared.id)), 'rules checked twice').toEqual([]);
  });

  it('check only active catalog rules', () => {
    const activeIds = new Set(active.map((rule) => rule.id));
    const stray = checks.filter((declared) => !activeIds.has(declared.id));
    expect(stray.map((declared) => `${declared.suite}: ${declared.id} (${whatIs(declared.id)})`), 'checks of pending or retired rules').toEqual([]);
  });

  it('check each rule in the suite of its area, and refuse a check of another area when the suite is made', () => {
    // The CLI runs only the suites of selected areas, so a rule checked elsewhere would vanish under --only.
    const misplaced = checks.filter((declared) => getRule(declared.id).area !== declared.suite).map((declared) => `${declared.id} is checked in ${declared.suite}`);
    expect(misplaced, 'checks outside their area\'s suite').toEqual([]);
    expect(() => suite('listing', [check('AUTH-01', async () => undefined)])).toThrow('AUTH-01 belongs to the auth area, not listing');
    expect(() => check('LIST-99', async () => undefined)).toThrow('Unknown rule ID LIST-99');
  });
});

describe('the defect switches', () => {
  it('name every active MUST and SHOULD rule at least once, so every check is proven able to fail', () => {
    const named = new Set(DEFECTS.flatMap((defect) => defect.rules as readonly string[]));
    const unproven = judged.filter((rule) => !named.has(rule.id)).map((rule) => `${rule.id} [${rule.level}] ${rule.summary}`);
    expect(unproven, 'MUST/SHOULD rules no defect in tests/defects/catalog.ts makes fail').toEqual([]);
  });

  it('name only active MUST and SHOULD rules of the catalog, and at least one each', () => {
    const judgedIds = new Set(judged.map((rule) => rule.id));
    const bad = DEFECTS.flatMap((defect) => (defect.rules as readonly string[])
      .filter((id) => !judgedIds.has(id))
      .map((id) => `${defect.id} → ${id} (${whatIs(id)})`));
    expect(bad, 'defects naming rules that cannot fail (unknown, INFO, pending or retired)').toEqual([]);
    expect(DEFECTS.filter((defect) => (defect.rules as readonly string[]).length === 0).map((defect) => defect.id), 'defects naming no rule').toEqual([]);
    expect(DEFECTS.flatMap((defect) => duplicates(defect.rules).map((id) => `${defect.id} → ${id}`)), 'rules named twice by one defect').toEqual([]);
  });

  it('name a kind of body they mishandle every one of only for a fuzzing rule they name, and only a kind that is generated', () => {
    const bad = DEFECTS.flatMap(({ id }) => {
      const defect = defectById(id);
      return FUZZING_KINDS.flatMap(({ rule, kind: key, names }) => {
        const kind = defect.mishandlesEvery?.[key];
        if (kind === undefined) return [];
        if (!defect.rules.includes(rule)) return [`${id} mishandles every ${kind} body, but does not name ${rule}`];
        if (!(names as readonly string[]).includes(kind)) return [`${id}: helpers/fuzz/arbitraries.ts has no ${key} ${kind}`];
        return [];
      });
    });
    expect(bad, 'mishandlesEvery in tests/defects/ (tests/e2e/fuzzing.test.ts proves each over 300 seeds)').toEqual([]);
  });

  it('have unique IDs, apart from the variants\' IDs', () => {
    const ids = [...DEFECTS.map((defect) => defect.id as string), ...VARIANTS.map((variant) => variant.id as string)];
    expect(duplicates(ids), 'switch IDs used twice').toEqual([]);
  });
});

describe('the reference server', () => {
  it('passes every MUST and SHOULD rule of a full run', async () => {
    // No --base-url: the bundled reference server, exactly as `npm start` certifies it. In this process: the
    // subject is the server's verdict; the CLI's child process certifying it is tests/e2e/package.test.ts's.
    const run = await withChildSlot(() => runInProcess(['--strict'], 'no-key-for-the-bundled-server', { timeoutMs: 4 * 60_000 }));
    if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
    const accused = brokenRules(run.report).map((rule) => `${rule.id} [${rule.level}] ${rule.status}: ${rule.message?.split('\n')[0]}`);
    expect(accused, 'MUST/SHOULD rules failed or errored against the reference server').toEqual([]);
    expect(run.report.suiteErrors, 'the suite itself broke').toEqual([]);
    expect({ exitCode: run.code, verdict: run.report.verdict }).toEqual({ exitCode: 0, verdict: 'certified' });
  }, 15 * 60_000);
});
