import type { Diagnosis } from '../../helpers/http/diagnosis.js';
import { failsTheRun, suiteBroke } from '../../helpers/judge/outcome-meaning.js';
import type { BaselineJudgement, RuleResult, Verdict } from '../reports/report.js';
import { EXIT_BASELINE_STALE, judgeBaseline, type Baseline } from './baseline.js';

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
  /** With --require-complete: no rule failed, but MUST rules were not judged (skipped by --only, a budget, the target). */
  incomplete: 6,
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
  /** --require-complete: a run that left MUST rules unjudged fails the gate (exit 6) instead of passing it. */
  requireComplete?: boolean;
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
  // With a baseline, listed failures make the verdict "not certified" and still exit 0: what the gate must
  // refuse is the MUST rules left unjudged, whatever the verdict says first.
  const refuseIncomplete = findings.requireComplete === true && (verdict === 'incomplete' || rules.some(mustSkipped));
  return { verdict, exitCode: exitCodeOf(verdict, { suiteBroke: broke, baseline, cancelledBy, refuseIncomplete }), ...(baseline ? { baseline } : {}) };
}

/**
 * MUST rules decide; SHOULD rules too under --strict. A MUST rule skipped, or a suite that broke, leaves the
 * verdict incomplete: a rule our own code could not judge says nothing of the target.
 */
function verdictOf(rules: readonly RuleResult[], strict: boolean, broke: boolean): Verdict {
  if (rules.some((rule) => failsTheRun(rule, strict))) return 'not-certified';
  if (broke || rules.some(mustSkipped)) return 'incomplete';
  return 'certified';
}

function mustSkipped(rule: RuleResult): boolean {
  return rule.level === 'MUST' && rule.status === 'skipped';
}

/**
 * Cancelled: the signal's code. Not judged: 3. The suite broke: 4, so that our bug is never taken for the
 * target's. A failure the gate must see (1) comes before an incomplete run refused by --require-complete (6),
 * which comes before a stale baseline (5). With a baseline: 1 when a rule not listed fails (a regression).
 * Without: 1 when not certified.
 */
function exitCodeOf(verdict: Verdict, run: { suiteBroke: boolean; baseline?: BaselineJudgement; cancelledBy?: string; refuseIncomplete: boolean }): number {
  if (run.cancelledBy) return cancelledExitCode(run.cancelledBy);
  if (verdict === 'not-judged') return EXIT.notJudged;
  if (run.suiteBroke) return EXIT.suiteBroke;
  const failed = run.baseline ? run.baseline.unlisted.length > 0 : verdict === 'not-certified';
  if (failed) return EXIT.notCertified;
  if (run.refuseIncomplete) return EXIT.incomplete;
  return run.baseline && run.baseline.nowPassing.length > 0 ? EXIT.baselineStale : EXIT.certified;
}

/** The shell's convention: 128 + the signal's number (SIGINT 130, SIGTERM 143). */
export function cancelledExitCode(reason: string): number {
  return reason === 'SIGTERM' ? 143 : 130;
}
