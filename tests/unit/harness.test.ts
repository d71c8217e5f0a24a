// The judge of the mutation harness and the gallery, on hand-made reports: what counts as caught,
// what counts as a surprise. If this judge were lenient, the mutation score would mean nothing.
import { describe, expect, it } from 'vitest';
import type { Report, RuleResult } from '../../cli/reports/report.js';
import { brokenRules, diffAgainst, formatDiff, isCaught, unexplainedFuzzing } from '../support/harness.js';

function reportOf(rows: Array<Pick<RuleResult, 'id' | 'level' | 'status'> & { message?: string }>): Report {
  return { rules: rows.map((row) => ({ ...row, area: 'listing', observations: [], evidence: [] })) } as unknown as Report;
}

describe('judging a defect run', () => {
  it('catches a defect when exactly its rules failed, whatever INFO rules say', () => {
    const report = reportOf([
      { id: 'LIST-02', level: 'MUST', status: 'failed' },
      { id: 'AUTH-08', level: 'SHOULD', status: 'failed' },
      { id: 'LIST-08', level: 'INFO', status: 'errored' },
      { id: 'LIST-01', level: 'MUST', status: 'passed' },
      { id: 'RATE-11', level: 'SHOULD', status: 'skipped' },
    ]);
    const diff = diffAgainst(['LIST-02', 'AUTH-08'], report);
    expect(diff).toEqual({ missing: [], unexpected: [] });
    expect(isCaught(diff)).toBe(true);
  });

  it('counts a named rule that errored, passed, was skipped or is absent as missing', () => {
    const report = reportOf([
      { id: 'LIST-02', level: 'MUST', status: 'errored', message: 'SetupError: no pets' },
      { id: 'LIST-03', level: 'MUST', status: 'passed' },
      { id: 'RATE-11', level: 'SHOULD', status: 'skipped' },
    ]);
    const diff = diffAgainst(['LIST-02', 'LIST-03', 'RATE-11', 'LIST-99'], report);
    expect(diff.missing.map((line) => `${line.id} ${line.status}`)).toEqual(['LIST-02 errored', 'LIST-03 passed', 'RATE-11 skipped', 'LIST-99 absent from the report']);
    expect(diff.unexpected).toEqual([]);
    expect(isCaught(diff)).toBe(false);
  });

  it('lets a by-chance rule fail or pass without a verdict on the defect, but never counts it as the catch', () => {
    const fuzzFailed = reportOf([
      { id: 'CREATE-03', level: 'MUST', status: 'failed' },
      { id: 'FUZZ-02', level: 'MUST', status: 'failed' },
    ]);
    expect(diffAgainst(['CREATE-03'], fuzzFailed, ['FUZZ-02'])).toEqual({ missing: [], unexpected: [] });
    expect(diffAgainst(['CREATE-03'], fuzzFailed).unexpected.map((line) => line.id)).toEqual(['FUZZ-02']);
    const onlyByChance = reportOf([{ id: 'CREATE-03', level: 'MUST', status: 'passed' }, { id: 'FUZZ-02', level: 'MUST', status: 'failed' }]);
    expect(isCaught(diffAgainst(['CREATE-03'], onlyByChance, ['FUZZ-02']))).toBe(false);
  });

  it('lets the exploration fail when all it found breaks rules the defect names, and only then', () => {
    // One failing sequence per list: the rules its last answer broke, as its counterexample names them.
    const exploration = (...sequences: Array<string[] | undefined>) => ({
      rules: [
        ...reportOf([{ id: 'LIST-14', level: 'MUST', status: 'failed' }, { id: 'CONS-04', level: 'MUST', status: 'failed' }]).rules,
        {
          id: 'FUZZ-03', level: 'MUST', status: 'failed', area: 'fuzzing', observations: [],
          evidence: sequences.map((breaks) => ({ message: 'sequence …', exchanges: [], counterexample: { seed: 7, path: '', body: '', replay: '', ...(breaks ? { breaks } : {}) } })),
        },
      ],
    }) as unknown as Report;
    expect(diffAgainst(['LIST-14', 'CONS-04'], exploration(['CONS-04']))).toEqual({ missing: [], unexpected: [] });
    expect(diffAgainst(['LIST-14', 'CONS-04'], exploration(['CONS-04', 'CONS-10'])).unexpected.map((line) => line.id)).toEqual(['FUZZ-03']);
    expect(diffAgainst(['LIST-14', 'CONS-04'], exploration(['CONS-04'], ['ERR-04'])).unexpected.map((line) => line.id)).toEqual(['FUZZ-03']);
    expect(diffAgainst(['LIST-14', 'CONS-04'], exploration(undefined)).unexpected.map((line) => line.id)).toEqual(['FUZZ-03']);
    expect(diffAgainst(['LIST-14', 'CONS-04'], exploration()).unexpected.map((line) => line.id)).toEqual(['FUZZ-03']);
    // Never the catch: a defect that names FUZZ-03 still needs it failed.
    expect(isCaught(diffAgainst(['LIST-14', 'CONS-04', 'FUZZ-03'], reportOf([{ id: 'LIST-14', level: 'MUST', status: 'failed' }, { id: 'CONS-04', level: 'MUST', status: 'failed' }])))).toBe(false);
  });

  it('counts an unnamed MUST or SHOULD rule that failed or errored as unexpected', () => {
    const report = reportOf([
      { id: 'LIST-02', level: 'MUST', status: 'failed' },
      { id: 'ERR-04', level: 'MUST', status: 'failed', message: 'expected no 5xx, saw 500\n(GET /v1/pets)' },
      { id: 'AUTH-09', level: 'SHOULD', status: 'errored', message: 'no check ran for this rule' },
    ]);
    const diff = diffAgainst(['LIST-02'], report);
    expect(diff.missing).toEqual([]);
    expect(diff.unexpected.map((line) => line.id)).toEqual(['ERR-04', 'AUTH-09']);
    expect(brokenRules(report).map((rule) => rule.id)).toEqual(['LIST-02', 'ERR-04', 'AUTH-09']);
  });

  it('prints each mismatched ID with its level, status and the first line of its message', () => {
    const report = reportOf([
      { id: 'LIST-02', level: 'MUST', status: 'passed' },
      { id: 'ERR-04', level: 'MUST', status: 'failed', message: 'expected no 5xx, saw 500\n(GET /v1/pets)' },
    ]);
    expect(formatDiff('defect x', diffAgainst(['LIST-02'], report))).toBe([
      'defect x',
      '  missing (named, but not reported failed):',
      '    LIST-02 [MUST] passed',
      '  unexpected (reported failed or errored, but not named):',
      '    ERR-04 [MUST] failed: expected no 5xx, saw 500',
    ].join('\n'));
  });

  it('misses every named rule of a run that wrote no report', () => {
    const diff = diffAgainst(['LIST-02'], undefined);
    expect(diff.missing.map((line) => line.id)).toEqual(['LIST-02']);
    expect(isCaught(diff)).toBe(false);
  });
});

describe('judging how a fuzzing failure explains itself', () => {
  const replay = 'npx petstore-conformance --only fuzzing --seed 42';
  const runOf = (counterexample: Record<string, unknown> | undefined, stdout = `       replay: ${replay}\n`) => ({
    stdout,
    report: {
      options: { seed: 42 },
      rules: [
        { id: 'FUZZ-01', level: 'MUST', status: 'failed', evidence: [{ message: 'x', exchanges: [], ...(counterexample ? { counterexample } : {}) }] },
        { id: 'FUZZ-02', level: 'MUST', status: 'passed', evidence: [] },
      ],
    } as unknown as Report,
  });

  it('accepts a counterexample under the run\'s seed whose replay line the terminal shows', () => {
    expect(unexplainedFuzzing(runOf({ seed: 42, path: '0:1', body: '{}', replay }))).toEqual([]);
  });

  it('names a failure without a counterexample, under another seed, without --seed, or off the terminal', () => {
    expect(unexplainedFuzzing(runOf(undefined))).toEqual(['FUZZ-01 failed without a counterexample']);
    expect(unexplainedFuzzing(runOf({ seed: 7, path: '', body: '{}', replay }))).toEqual(['FUZZ-01: a counterexample under seed 7, the run\'s is 42']);
    expect(unexplainedFuzzing(runOf({ seed: 42, path: '', body: '{}', replay: 'npx petstore-conformance' }, '       replay: npx petstore-conformance\n')))
      .toEqual(['FUZZ-01: a replay line without --seed 42: npx petstore-conformance']);
    expect(unexplainedFuzzing(runOf({ seed: 42, path: '', body: '{}', replay }, ''))).toEqual(['FUZZ-01: the terminal shows no replay line']);
  });
});
