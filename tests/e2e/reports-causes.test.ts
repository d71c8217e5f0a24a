// Failures that share one cause read as one: within a rule (a dozen fuzzed bodies, one wrong Error) and
// across rules (an Error without `code` breaks every rule that reads an Error body).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RuleResult } from '../../cli/reports/report.js';
import { evidenceOf, type Evidence } from '../../helpers/judge/outcome.js';
import { causesOf, sharedCauses } from '../../helpers/judge/outcome-meaning.js';
import { certifyInProcess } from '../support/in-process.js';
import { withChildSlot } from '../support/harness.js';

// A fuzz finding as a check records it: its cause (expected, seen) beside a message that names the case.
function finding(context: string, seen: string): Evidence {
  return evidenceOf({ what: context, expected: 'an Error whose status is 400', seen, body: `{"status":${seen}}`, note: 'seed 7, shrunk in 3 step(s)' });
}

describe('causesOf', () => {
  it('counts findings that differ only in the request that showed them as one cause, the first as its representative', () => {
    const evidence = [finding('name-missing (required name removed)', '422'), finding('status-wrong-case ("Sold")', '422'), finding('categoryId-fraction (1.5)', '500')];
    const causes = causesOf(evidence);
    expect(causes.map(({ count, evidence: first }) => [count, first.message.split(':')[0]])).toEqual([[2, 'name-missing (required name removed)'], [1, 'categoryId-fraction (1.5)']]);
  });

  it('names the rules one cause broke, most rules first, leaving causes of a single rule out', () => {
    const rule = (id: string, evidence: Evidence[]) => ({ id, status: 'failed', evidence }) as RuleResult;
    const shared = sharedCauses([rule('CREATE-08', [finding('missing name', '422')]), rule('FUZZ-01', [finding('name-missing', '422'), finding('x', '500')]), rule('ERR-03', [finding('y', '500')]), rule('LIST-06', [finding('z', '418')])]);
    expect(shared).toEqual([
      { statement: 'expected an Error whose status is 400, saw 422', rules: ['CREATE-08', 'FUZZ-01'] },
      { statement: 'expected an Error whose status is 400, saw 500', rules: ['FUZZ-01', 'ERR-03'] },
    ]);
  });
});

describe('a defect with one cause and several symptoms (Error bodies without code)', () => {
  it('is shown as one cause with its rules and a count, in the terminal, summary.md and report.html', async () => {
    const run = await withChildSlot(() => certifyInProcess({ defects: ['errors-without-code'] }, ['--only', 'creating,auth,fuzzing', '--rate-limit-budget', '0', '--fuzz-valid-runs', '0', '--verbose']));
    expect(run.code, run.stderr).toBe(1);
    const statement = 'expected a valid Error body, saw /code must be present';
    const line = new RegExp(`\\n {2}(\\d+) rules: ${statement.replace(/[/]/g, '\\/')}\\n {5}([A-Z0-9, -]+)\\n`);
    const [, count, rules] = line.exec(run.stdout) ?? expect.fail(`no shared cause in:\n${run.stdout.slice(-3000)}`);
    expect(Number(count)).toBeGreaterThanOrEqual(5);
    expect(rules!.split(', ')).toEqual(expect.arrayContaining(['CREATE-08', 'AUTH-01', 'FUZZ-01']));
    // Within FUZZ-01, every mutation met the same missing code: one cause with its count, one representative.
    expect(run.stdout).toMatch(/FAIL FUZZ-01 \[MUST\] [^\n]*\n {5}\d+ findings, one cause: /);
    const summary = readFileSync(join(run.reportDir, 'summary.md'), 'utf8');
    expect(summary).toContain('### One cause, several rules');
    expect(summary).toMatch(/- \d+ rules \(`CREATE-08`, [^\n]*\): expected a valid Error body, saw \/code must be present/);
    const html = readFileSync(join(run.reportDir, 'report.html'), 'utf8');
    expect(html).toMatch(/<ul class="shared-causes"><li>\d+ rules \(<a href="#rule-CREATE-08">CREATE-08<\/a>/);
    expect(html).toMatch(/<p class="cause-count">\d+ findings share this cause/);
  }, 6 * 60_000);
});
