import type { Diagnosis } from '../helpers/http/diagnosis.js';
import { failsTheRun, suiteBroke } from '../helpers/judge/outcome-meaning.js';
import type { BaselineJudgement, RuleResult, Verdict } from './report.js';
import { EXIT_BASELINE_STALE, judgeBaseline, type Baseline } from './reports/baseline.js';

/** The exit codes of a run, as --help lists them. */
export const EXIT = {
  certified: 0,
  notCertified: 1,
  usage: 2,
  /** The target cannot be judged: unreachable, or its first answers show a wrong --base-url or a refused key. */
  notJudged: 3,
  /** The suite itself broke: a bug of petstore-conformance, whatever the target did. */
  suiteBroke: 4,
  baselineStale: EXIT_BASELINE_STALE,
} as const;

/** Everything a run's verdict depends on, once every check has finished. */
export interface RunFindings {
  rules: readonly RuleResult[];
  strict: boolean;
  /** Errors that broke a suite file or the run outside any check. */
  suiteErrors: readonly string[];
  /** The client found the target cannot be judged (a wrong base URL, a refused key). */
  diagnosis?: Diagnosis;
  /** The signal that cancelled the run. */
  cancelledBy?: string;
  baseline?: Baseline;
}

export interface RunJudgement {
  verdict: Verdict;
  exitCode: number;
  /** How the run stands against the baseline, when one was given. */
  baseline?: BaselineJudgement;
}

/** The one place a run's results become its verdict and exit code. */
export function judgeRun(findings: RunFindings): RunJudgement {
  const { rules, strict, diagnosis, cancelledBy } = findings;
  const baseline = findings.baseline && judgeBaseline(rules, findings.baseline, strict);
  const broke = suiteBroke(findings);
  // A cancelled run did not reach every rule: whatever it judged, it is no verdict on the whole target.
  const verdict = diagnosis ? 'not-judged' : cancelledBy ? 'incomplete' : verdictOf(rules, strict, broke);
  return { verdict, exitCode: exitCodeOf(verdict, { suiteBroke: broke, baseline, cancelledBy }), ...(baseline ? { baseline } : {}) };
}

/**
 * MUST rules decide; SHOULD rules too under --strict. A MUST rule skipped, or a suite that broke, leaves the
 * verdict incomplete: a rule our own code could not judge says nothing of the target.
 */
function verdictOf(rules: readonly RuleResult[], strict: boolean, broke: boolean): Verdict {
  if (rules.some((rule) => failsTheRun(rule, strict))) return 'not-certified';
  if (broke || rules.some((rule) => rule.level === 'MUST' && rule.status === 'skipped')) return 'incomplete';
  return 'certified';
}

/**
 * Cancelled: the signal's code. Not judged: 3. The suite broke: 4, so that our bug is never taken for the
 * target's. With a baseline: 1 when a rule not listed fails (a regression), else 5 when a listed rule passes
 * again, else 0. Without: 1 when not certified.
 */
function exitCodeOf(verdict: Verdict, run: { suiteBroke: boolean; baseline?: BaselineJudgement; cancelledBy?: string }): number {
  if (run.cancelledBy) return cancelledExitCode(run.cancelledBy);
  if (verdict === 'not-judged') return EXIT.notJudged;
  if (run.suiteBroke) return EXIT.suiteBroke;
  if (!run.baseline) return verdict === 'not-certified' ? EXIT.notCertified : EXIT.certified;
  if (run.baseline.unlisted.length > 0) return EXIT.notCertified;
  return run.baseline.nowPassing.length > 0 ? EXIT.baselineStale : EXIT.certified;
}

/** The shell's convention: 128 + the signal's number (SIGINT 130, SIGTERM 143). */
export function cancelledExitCode(reason: string): number {
  return reason === 'SIGTERM' ? 143 : 130;
}
