// Checks that run together finish in any order; the person at the terminal still reads them in catalog order.
import { describe, expect, it } from 'vitest';
import type { TestCase, TestModule } from 'vitest/node';
import { Collector } from '../../cli/collector.js';
import type { RuleMeta } from '../../helpers/judge/outcome.js';

/** A suite file of checks, as vitest hands it to a reporter: only what the collector reads. */
function suiteOf(ruleIds: readonly string[]) {
  const module = { moduleId: 'suites/auth.test.js', errors: () => [], children: { allTests: () => tests } } as unknown as TestModule;
  const tests = ruleIds.map((ruleId) => {
    const meta: RuleMeta = { ruleId, outcome: 'passed', observations: [], evidence: [], requests: 1, created: [] };
    return {
      id: ruleId, name: ruleId, module,
      result: () => ({ state: 'passed', errors: [] }),
      diagnostic: () => ({ duration: 1 }),
      meta: () => ({ rule: meta }),
    } as unknown as TestCase;
  });
  return { module, tests };
}

describe('the collector', () => {
  it('passes results on in the suite\'s order, each once every check before it has finished', () => {
    const shown: string[] = [];
    const collector = new Collector((result) => shown.push(result.meta.ruleId), () => undefined);
    const { tests } = suiteOf(['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04']);
    collector.onTestCaseResult(tests[2]!);
    collector.onTestCaseResult(tests[1]!);
    expect(shown).toEqual([]);
    collector.onTestCaseResult(tests[0]!);
    expect(shown).toEqual(['AUTH-01', 'AUTH-02', 'AUTH-03']);
    collector.onTestCaseResult(tests[3]!);
    expect(shown).toEqual(['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04']);
    expect(collector.results.map((result) => result.meta.ruleId)).toEqual(['AUTH-03', 'AUTH-02', 'AUTH-01', 'AUTH-04']);
  });

  it('lets a check that never reported hold nothing back once its suite has ended', () => {
    const shown: string[] = [];
    const collector = new Collector((result) => shown.push(result.meta.ruleId), () => undefined);
    const { module, tests } = suiteOf(['AUTH-01', 'AUTH-02', 'AUTH-03']);
    collector.onTestCaseResult(tests[1]!);
    collector.onTestCaseResult(tests[2]!);
    expect(shown).toEqual([]);
    collector.onTestModuleEnd(module);
    expect(shown).toEqual(['AUTH-02', 'AUTH-03']);
  });
});
