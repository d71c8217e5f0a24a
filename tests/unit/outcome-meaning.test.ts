// What an outcome means is stated once (helpers/judge/outcome-meaning.ts): its place in the order, its label,
// whether it fails a rule, whether a reader should look at it. These tests pin that meaning, then hold every
// report and the verdict to it, so a renderer that decided "failing" or "to look at" on its own would show here.
import { describe, expect, it } from 'vitest';
import type { RuleResult } from '../../cli/reports/report.js';
import { summaryText } from '../../cli/terminal.js';
import { judgeRun } from '../../cli/policy/verdict.js';
import { toHtml } from '../../cli/reports/html.js';
import { toJunit } from '../../cli/reports/junit.js';
import { toSummaryMarkdown } from '../../cli/reports/summary-md.js';
import { failingRules, judgeBaseline } from '../../cli/policy/baseline.js';
import { evidenceOf, type Evidence, type Outcome } from '../../helpers/judge/outcome.js';
import {
  causesOf, causeStatement, countedOutcomes, failsTheRun, isFailing, isObservation, isOurBug, isProblem, junitKind,
  OUTCOMES, outcomeLabel, outcomeMark, outranks, sharedCauses,
} from '../../helpers/judge/outcome-meaning.js';
import { everyOutcomeReport } from '../support/sample-report.js';

// Every outcome the type allows, once: adding one to `Outcome` fails to compile here until it is given a meaning.
const EVERY_OUTCOME: Record<Outcome, true> = { passed: true, failed: true, errored: true, skipped: true, 'not-applicable': true, 'suite-error': true };

describe('the meaning of each outcome', () => {
  it('lists the outcomes in report order, each once, and no other', () => {
    expect(OUTCOMES).toEqual(['passed', 'failed', 'errored', 'skipped', 'not-applicable', 'suite-error']);
    expect(new Set(OUTCOMES).size).toBe(OUTCOMES.length);
    expect([...OUTCOMES].sort()).toEqual(Object.keys(EVERY_OUTCOME).sort());
  });

  it('gives each outcome one label and one terminal mark, none shared', () => {
    expect(OUTCOMES.map((outcome) => [outcome, outcomeLabel(outcome), outcomeMark(outcome)])).toEqual([
      ['passed', 'Passed', 'PASS'],
      ['failed', 'Failed', 'FAIL'],
      ['errored', 'Errored', 'ERR '],
      ['skipped', 'Skipped', 'SKIP'],
      ['not-applicable', 'Not applicable', 'N/A '],
      ['suite-error', 'Suite error', 'BUG '],
    ]);
    expect(new Set(OUTCOMES.map((outcome) => outcomeLabel(outcome))).size).toBe(OUTCOMES.length);
    expect(new Set(OUTCOMES.map((outcome) => outcomeMark(outcome))).size).toBe(OUTCOMES.length);
  });

  it('shows an INFO rule that held as observed, and nothing else', () => {
    const observed = (['MUST', 'SHOULD', 'INFO'] as const).flatMap((level) => OUTCOMES.filter((outcome) => isObservation(outcome, level)).map((outcome) => `${level} ${outcome}`));
    expect(observed).toEqual(['INFO passed']);
    expect([outcomeLabel('passed', 'INFO'), outcomeMark('passed', 'INFO')]).toEqual(['Observed', 'INFO']);
    expect([outcomeLabel('failed', 'INFO'), outcomeLabel('passed', 'MUST')]).toEqual(['Failed', 'Passed']);
  });

  it('puts each outcome in exactly one of five meanings: held, failing, not judged, out of every run\'s reach, our own bug', () => {
    const meaningOf = (outcome: Outcome) => [
      outcome === 'passed' && 'held',
      isFailing(outcome) && 'failing',
      outcome === 'skipped' && 'not judged',
      outcome === 'not-applicable' && 'out of reach',
      isOurBug(outcome) && 'our bug',
    ].filter(Boolean);
    expect(OUTCOMES.map((outcome) => [outcome, ...meaningOf(outcome)])).toEqual([
      ['passed', 'held'], ['failed', 'failing'], ['errored', 'failing'], ['skipped', 'not judged'], ['not-applicable', 'out of reach'], ['suite-error', 'our bug'],
    ]);
  });

  it('asks a reader to look at exactly the failing outcomes and our own bugs', () => {
    expect(OUTCOMES.filter(isProblem)).toEqual(['failed', 'errored', 'suite-error']);
    for (const outcome of OUTCOMES) expect(isProblem(outcome)).toBe(isFailing(outcome) || isOurBug(outcome));
  });

  it('ranks the outcomes strictly, our own bug above all, so the worst of several checks is one outcome', () => {
    const ranked = [...OUTCOMES].sort((a, b) => (outranks(a, b) ? 1 : outranks(b, a) ? -1 : 0));
    expect(ranked).toEqual(['skipped', 'not-applicable', 'passed', 'errored', 'failed', 'suite-error']);
    for (const a of OUTCOMES) for (const b of OUTCOMES) if (a !== b) expect(outranks(a, b)).not.toBe(outranks(b, a));
  });

  it('shows each outcome in junit.xml as one kind: a broken rule a failure, one that could not run an error', () => {
    expect(OUTCOMES.map((outcome) => [outcome, junitKind(outcome)])).toEqual([
      ['passed', 'passed'], ['failed', 'failure'], ['errored', 'error'], ['skipped', 'skipped'], ['not-applicable', 'skipped'], ['suite-error', 'error'],
    ]);
  });

  it('fails the run on a failing MUST rule, and on a failing SHOULD rule only under --strict, never on INFO', () => {
    const report = everyOutcomeReport();
    expect(report.rules.filter((rule) => failsTheRun(rule, false)).map((rule) => rule.id)).toEqual(['MUST-failed', 'MUST-errored']);
    expect(report.rules.filter((rule) => failsTheRun(rule, true)).map((rule) => rule.id)).toEqual(['MUST-failed', 'MUST-errored', 'SHOULD-failed', 'SHOULD-errored']);
  });
});

describe('the verdict and every report ask the one meaning', () => {
  const report = everyOutcomeReport();
  const problems = report.rules.filter((rule) => isProblem(rule.status));

  it('the verdict: a failing MUST rule refuses, a skipped one or our own bug leaves it incomplete, one no run could judge leaves it be', () => {
    const run = (rule: RuleResult, strict = false) => {
      const { verdict, exitCode } = judgeRun({ rules: [rule], strict, suiteErrors: [] });
      return `${verdict} ${exitCode}`;
    };
    const must = report.rules.filter((rule) => rule.level === 'MUST');
    expect(must.map((rule) => [rule.status, run(rule)])).toEqual([
      ['passed', 'certified 0'], ['failed', 'not-certified 1'], ['errored', 'not-certified 1'], ['skipped', 'incomplete 0'], ['not-applicable', 'certified 0'], ['suite-error', 'incomplete 4'],
    ]);
    for (const rule of report.rules.filter((candidate) => candidate.level === 'SHOULD')) {
      expect(run(rule, true).startsWith('not-certified'), rule.id).toBe(isFailing(rule.status));
    }
  });

  it('the baseline: a listed rule is known when failing, now passing when passed; unlisted failing rules are regressions', () => {
    const listed = { file: 'b.txt', entries: report.rules.filter((rule) => rule.level === 'MUST').map((rule, index) => ({ id: rule.id, line: index + 1 })) };
    expect(judgeBaseline(report.rules, listed, true)).toEqual({
      file: 'b.txt', known: ['MUST-failed', 'MUST-errored'], nowPassing: ['MUST-passed'], notJudged: ['MUST-skipped', 'MUST-not-applicable', 'MUST-suite-error'], unlisted: ['SHOULD-failed', 'SHOULD-errored'],
    });
    expect(failingRules({ ...report, options: { strict: true } }).map((rule) => rule.id)).toEqual(report.rules.filter((rule) => failsTheRun(rule, true)).map((rule) => rule.id));
  });

  it('the terminal: its counts columns, and the rules to look at with their marks', () => {
    const text = summaryText(report);
    expect(text.split('\n').find((line) => /^ +passed /.test(line))?.trim().split(/ +/)).toEqual(countedOutcomes(report));
    const listed = [...text.matchAll(/^(.{4}) (\S+) \[(?:MUST|SHOULD|INFO)\] /gm)].map(([, mark, id]) => [mark, id]);
    expect(listed).toEqual(problems.map((rule) => [outcomeMark(rule.status, rule.level), rule.id]));
  });

  it('report.html: its counts table, the rules to look at, the filter, each rule\'s badge and which rules open their evidence', () => {
    const page = toHtml(report);
    const head = /<table class="counts"[^>]*>\s*<thead><tr><th>Level<\/th>(.*?)<\/tr><\/thead>/s.exec(page)?.[1] ?? '';
    expect([...head.matchAll(/<th>([^<]+)<\/th>/g)].map(([, label]) => label)).toEqual(countedOutcomes(report).map((outcome) => outcomeLabel(outcome)));
    const toFix = /<section class="notice to-fix">(.*?)<\/section>/s.exec(page)?.[1] ?? '';
    expect([...toFix.matchAll(/<li><a href="#rule-([^"]+)">[^<]+<\/a> (\S+) ([a-z ]+): /g)].map(([, id, level, word]) => [id, level, word]))
      .toEqual(problems.map((rule) => [rule.id, rule.level, outcomeLabel(rule.status).toLowerCase()]));
    expect(page).toContain(`Failed or errored (${problems.length})`);
    const articles = page.split('<article class="rule" id="rule-').slice(1);
    expect(articles.map((article) => [article.slice(0, article.indexOf('"')), /<span class="badge outcome-[^"]+">([^<]+)<\/span>/.exec(article)?.[1]]))
      .toEqual(report.rules.map((rule) => [rule.id, outcomeLabel(rule.status, rule.level)]));
    expect(articles.filter((article) => article.includes('<details class="evidence">')).map((article) => article.slice(0, article.indexOf('"'))))
      .toEqual(problems.map((rule) => rule.id));
  });

  it('summary.md: its counts table and one line for each rule to look at, grouped by outcome in report order', () => {
    const summary = toSummaryMarkdown(report);
    expect(summary.split('\n').find((line) => line.startsWith('| Level |'))).toBe(`| Level | ${countedOutcomes(report).map((outcome) => outcomeLabel(outcome)).join(' | ')} |`);
    const listed = summary.split('\n').filter((line) => line.startsWith('- `')).map((line) => /^- `([^`]+)`/.exec(line)?.[1]);
    expect(listed).toEqual(OUTCOMES.filter(isProblem).flatMap((outcome) => problems.filter((rule) => rule.status === outcome).map((rule) => rule.id)));
  });

  it('junit.xml: each rule as its outcome\'s kind, and the totals of each kind', () => {
    const xml = toJunit(report);
    const kinds = [...xml.matchAll(/<testcase [^>]*name="(\S+) [^"]*"[^>]*?(\/>|>\s*<(\w+))/g)].map(([, id, , child]) => [id, child === 'failure' || child === 'error' || child === 'skipped' ? child : 'passed']);
    expect(kinds).toEqual(report.rules.map((rule) => [rule.id, junitKind(rule.status)]));
    const total = (kind: string) => report.rules.filter((rule) => junitKind(rule.status) === kind).length;
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*tests="${report.rules.length}" failures="${total('failure')}" errors="${total('error')}" skipped="${total('skipped')}"`));
  });
});

describe('the cause of a finding', () => {
  const finding = (what: string, expected: string, seen: string) => evidenceOf({ what, expected, seen, body: `{"what":"${what}"}` });

  it('is recorded with it as data: what was expected and what was seen, without the case or the body', () => {
    expect(finding('limit=0', 'a 4xx', '500').cause).toEqual({ expected: 'a 4xx', seen: '500' });
    expect(causeStatement(finding('limit=0', 'a 4xx', '500'))).toBe('expected a 4xx, saw 500');
  });

  it('groups findings by that key, never by their text: one statement may read alike for two causes', () => {
    // The case here reads like a statement of its own; a reader of the text would take the wrong one.
    const tricky = finding('expected x, saw y', 'a 4xx', '500');
    const plain = finding('limit=0', 'a 4xx', '500');
    expect(causesOf([tricky, plain]).map(({ count }) => count)).toEqual([2]);
    const sameText: Evidence = { ...plain, cause: { expected: 'a 4xx', seen: '502' } };
    expect(causesOf([plain, sameText]).map(({ count }) => count)).toEqual([1, 1]);
  });

  it('reads a finding that states no cause (an errored check, an older report) as a cause of its own message', () => {
    const errored: Evidence = { message: 'no response (connection reset)', exchanges: [] };
    expect(causesOf([errored, { ...errored }, plainOld()]).map(({ count }) => count)).toEqual([2, 1]);
    expect(causeStatement(errored)).toBe('no response (connection reset)');
  });

  it('names the rules that share one cause across failed rules only', () => {
    const rule = (id: string, status: Outcome) => ({ id, status, evidence: [finding(id, 'an Error body with code', 'none')] });
    expect(sharedCauses([rule('CREATE-08', 'failed'), rule('AUTH-01', 'failed'), rule('ERR-03', 'errored')])).toEqual([
      { statement: 'expected an Error body with code, saw none', rules: ['CREATE-08', 'AUTH-01'] },
    ]);
  });
});

function plainOld(): Evidence {
  return { message: 'limit=0: expected a 4xx, saw 500 (GET /v1/pets?limit=0 → 500)', expected: 'a 4xx', seen: '500', exchanges: [] };
}
