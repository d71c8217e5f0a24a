// One outcome model: every "could not judge" error says what it means (skipped or errored), a programming
// error of our own is the suite's bug (suite-error, exit 4), never the target's, and one function turns the
// rules into the verdict and the exit code.
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report, RuleResult } from '../../cli/reports/report.js';
import type { Baseline } from '../../cli/policy/baseline.js';
import { judgeRun, type RunFindings } from '../../cli/policy/verdict.js';
import { RunCancelled } from '../../helpers/http/cancellation.js';
import { BudgetExhausted, StillRateLimited, TransportError } from '../../helpers/http/client.js';
import { parseJson } from '../../helpers/json.js';
import { outcomeOfThrown, SkipCheck } from '../../helpers/judge/outcome.js';
import { packagePath } from '../../helpers/package-root.js';
import { RateLimitWaitTooLong } from '../../helpers/http/pacing.js';
import { SetupError } from '../../helpers/fixtures/pets.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

describe('what a thrown error comes to', () => {
  it.each([
    ['SkipCheck', new SkipCheck('needs --rate-limit-budget'), 'skipped'],
    ['RunCancelled', new RunCancelled('cancelled'), 'skipped'],
    ['BudgetExhausted', new BudgetExhausted('--max-requests spent'), 'skipped'],
    ['RateLimitWaitTooLong', new RateLimitWaitTooLong('the window ends in 3600 s'), 'skipped'],
    ['TransportError', new TransportError('connection reset by the server'), 'errored'],
    ['StillRateLimited', new StillRateLimited('429 to 5 attempts in a row'), 'errored'],
    ['SetupError', new SetupError('setup could not create a pet'), 'errored'],
    ['a plain Error (the target broke a step of ours)', new Error('no pets'), 'errored'],
    ['a thrown string', 'something', 'errored'],
    ['TypeError', new TypeError("Cannot read properties of undefined (reading 'id')"), 'suite-error'],
    ['ReferenceError', new ReferenceError('pet is not defined'), 'suite-error'],
    ['RangeError', new RangeError('Invalid array length'), 'suite-error'],
    ['SyntaxError', new SyntaxError('Invalid regular expression'), 'suite-error'],
  ])('%s is %s', (_name, error, outcome) => {
    expect(outcomeOfThrown(error)).toBe(outcome);
  });
});

describe('judgeRun', () => {
  const rule = (id: string, level: RuleResult['level'], status: RuleResult['status']): RuleResult => ({
    id, level, status, area: 'listing', summary: '', section: '', source: '', words: '', observations: [], evidence: [], requests: 0, durationMs: 0, created: [],
  });
  const passing = [rule('LIST-01', 'MUST', 'passed'), rule('LIST-05', 'SHOULD', 'failed')];
  const run = (findings: Partial<RunFindings>): RunFindings => ({ rules: passing, strict: false, suiteErrors: [], ...findings });
  const baseline = (...ids: string[]): Baseline => ({ file: 'baseline.txt', entries: ids.map((id, line) => ({ id, line })) });
  const diagnosis = { problem: 'GET /pets answered 404', hint: 'check --base-url', seq: 1 } as unknown as RunFindings['diagnosis'];

  it.each<[string, Partial<RunFindings>, Report['verdict'], number]>([
    ['every MUST rule passes', {}, 'certified', 0],
    ['a SHOULD rule fails under --strict', { strict: true }, 'not-certified', 1],
    ['a MUST rule errored', { rules: [...passing, rule('LIST-02', 'MUST', 'errored')] }, 'not-certified', 1],
    ['a MUST rule skipped', { rules: [...passing, rule('LIST-02', 'MUST', 'skipped')] }, 'incomplete', 0],
    ['a check of ours broke', { rules: [...passing, rule('LIST-02', 'SHOULD', 'suite-error')] }, 'incomplete', 4],
    ['a check of ours broke beside a failed MUST rule', { rules: [rule('LIST-01', 'MUST', 'failed'), rule('LIST-02', 'MUST', 'suite-error')] }, 'not-certified', 4],
    ['a suite file did not load', { suiteErrors: ['listing.test.js: SyntaxError'] }, 'incomplete', 4],
    ['the target cannot be judged', { diagnosis }, 'not-judged', 3],
    ['the run was cancelled by SIGINT', { cancelledBy: 'SIGINT' }, 'incomplete', 130],
    ['the run was cancelled by SIGTERM', { cancelledBy: 'SIGTERM', rules: [rule('LIST-01', 'MUST', 'failed')] }, 'incomplete', 143],
    ['a listed rule passes now', { baseline: baseline('LIST-01') }, 'certified', 5],
    ['a failure the baseline lists', { rules: [rule('LIST-01', 'MUST', 'failed')], baseline: baseline('LIST-01') }, 'not-certified', 0],
    ['a failure the baseline does not list', { rules: [rule('LIST-01', 'MUST', 'failed')], baseline: baseline('LIST-05') }, 'not-certified', 1],
    ['a check of ours broke, with a baseline', { rules: [rule('LIST-01', 'MUST', 'failed'), rule('LIST-02', 'MUST', 'suite-error')], baseline: baseline('LIST-01') }, 'not-certified', 4],
    ['--require-complete, every MUST rule judged', { requireComplete: true }, 'certified', 0],
    ['--require-complete, a MUST rule skipped', { requireComplete: true, rules: [...passing, rule('LIST-02', 'MUST', 'skipped')] }, 'incomplete', 6],
    ['--require-complete, only a SHOULD rule skipped', { requireComplete: true, rules: [...passing, rule('LIST-06', 'SHOULD', 'skipped')] }, 'certified', 0],
    ['--require-complete, a MUST rule failed beside a skipped one', { requireComplete: true, rules: [rule('LIST-01', 'MUST', 'failed'), rule('LIST-02', 'MUST', 'skipped')] }, 'not-certified', 1],
    ['--require-complete, a listed failure beside a skipped MUST rule', { requireComplete: true, rules: [rule('LIST-01', 'MUST', 'failed'), rule('LIST-02', 'MUST', 'skipped')], baseline: baseline('LIST-01') }, 'not-certified', 6],
    ['--require-complete, a stale baseline beside a skipped MUST rule', { requireComplete: true, rules: [...passing, rule('LIST-02', 'MUST', 'skipped')], baseline: baseline('LIST-01') }, 'incomplete', 6],
    ['--require-complete, the run cancelled', { requireComplete: true, cancelledBy: 'SIGTERM' }, 'incomplete', 143],
    ['--require-complete, a check of ours broke', { requireComplete: true, rules: [...passing, rule('LIST-02', 'SHOULD', 'suite-error')] }, 'incomplete', 4],
  ])('%s: %s, exit %d', (_case, findings, verdict, exitCode) => {
    expect(judgeRun(run(findings))).toMatchObject({ verdict, exitCode });
  });
});

describe('a check that throws a TypeError', () => {
  // A copy of the built package with one check broken as a slip of ours would break it; the product carries
  // no switch for this.
  const copy = scratchDir('petstore-broken-suite-');
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('ends the run with exit 4, and every report says it is a bug of petstore-conformance, not of the target', async () => {
    for (const part of ['dist', 'spec', 'package.json']) cpSync(packagePath(part), join(copy, part), { recursive: true });
    symlinkSync(packagePath('node_modules'), join(copy, 'node_modules'));
    const suite = join(copy, 'dist', 'suites', 'listing.js');
    const opening = "check('LIST-01', async (ctx) => {";
    const source = readFileSync(suite, 'utf8');
    expect(source, 'the check to break').toContain(opening);
    writeFileSync(suite, source.replace(opening, `${opening} const pet = undefined; pet.id;`));

    const reportDir = join(copy, 'reports');
    const run = await withChildSlot(() => new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      execFile(process.execPath, [join(copy, 'dist', 'cli', 'main.js'), '--only', 'LIST-01,LIST-02', '--report-dir', reportDir], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        timeout: 60_000,
      }, (error, stdout, stderr) => (error && typeof error.code !== 'number' ? reject(error) : resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr })));
    }));

    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout).toMatch(/BUG {2}LIST-01 .*\n\s+TypeError: Cannot read properties of undefined \(reading 'id'\)/);
    expect(run.stdout).toContain('INCOMPLETE (the suite itself broke)');
    expect(run.stdout).toContain('This is a bug of petstore-conformance itself, not of the target');
    const report = parseJson(readFileSync(join(reportDir, 'report.json'), 'utf8')) as unknown as Report;
    expect(report).toMatchObject({ verdict: 'incomplete', exitCode: 4 });
    const statusOf = (id: string) => report.rules.find((rule) => rule.id === id);
    // Where our code threw, as a maintainer reads it in the file: the broken check's line of listing.js.
    const brokenLine = source.slice(0, source.indexOf(opening)).split('\n').length;
    expect(statusOf('LIST-01')).toMatchObject({ status: 'suite-error', message: expect.stringMatching(new RegExp(`^TypeError: .*\\(at .*listing\\.js:${brokenLine}:\\d+\\)$`)) });
    // The other checks still judge the target as they would have.
    expect(statusOf('LIST-02')?.status).toBe('passed');
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toMatch(/<error message="suite error, a bug of petstore-conformance: TypeError: [^"]*" type="suite-error">/);
    expect(readFileSync(join(reportDir, 'summary.md'), 'utf8')).toContain('| Level | Passed | Failed | Errored | Skipped | Suite error |');
  }, 90_000);
});
