import type { Level } from '../spec/catalog.js';
import type { CauseKey, Evidence, Outcome } from './outcome.js';

/**
 * What each outcome means, stated once. The verdict and every report (terminal, report.html, summary.md,
 * junit.xml, the baseline) ask here, so that "failing" or "to look at" cannot mean one thing in one file
 * and another in the next.
 */
interface Meaning {
  /** The word a report shows: "Failed". */
  label: string;
  /** The four characters a terminal line starts with: "FAIL". */
  mark: string;
  /**
   * The rule did not hold on this target: broken (failed), or the target broke before it could be judged
   * (errored). At a level that decides, it fails the run, and a baseline lists it.
   */
  failing: boolean;
  /** A reader should look at it: listed "to look at", its evidence shown. Failing, or our own bug. */
  problem: boolean;
  /** The suite's own code broke: a bug of petstore-conformance, which says nothing of the target. */
  ourBug: boolean;
  /** Which outcome stands when several checks report on one rule: the higher. Our own bug outweighs the rest. */
  severity: number;
  /** How junit.xml shows it: a dashboard tells a broken rule (failure) from one that could not run (error). */
  junit: JunitKind;
  /** Reports give it a column of its own only in a run that has it: a run without reads as it always has. */
  shownOnlyWhenPresent: boolean;
}

export type JunitKind = 'failure' | 'error' | 'skipped' | 'passed';

const MEANING: Readonly<Record<Outcome, Readonly<Meaning>>> = {
  passed: { label: 'Passed', mark: 'PASS', failing: false, problem: false, ourBug: false, severity: 2, junit: 'passed', shownOnlyWhenPresent: false },
  failed: { label: 'Failed', mark: 'FAIL', failing: true, problem: true, ourBug: false, severity: 4, junit: 'failure', shownOnlyWhenPresent: false },
  errored: { label: 'Errored', mark: 'ERR ', failing: true, problem: true, ourBug: false, severity: 3, junit: 'error', shownOnlyWhenPresent: false },
  skipped: { label: 'Skipped', mark: 'SKIP', failing: false, problem: false, ourBug: false, severity: 0, junit: 'skipped', shownOnlyWhenPresent: false },
  // Not judged either, but no run could have judged it here: it leaves the verdict as it is (cli/policy/verdict.ts).
  'not-applicable': { label: 'Not applicable', mark: 'N/A ', failing: false, problem: false, ourBug: false, severity: 1, junit: 'skipped', shownOnlyWhenPresent: true },
  'suite-error': { label: 'Suite error', mark: 'BUG ', failing: false, problem: true, ourBug: true, severity: 5, junit: 'error', shownOnlyWhenPresent: true },
};

/** The outcomes in the order reports list them. */
export const OUTCOMES: readonly Outcome[] = ['passed', 'failed', 'errored', 'skipped', 'not-applicable', 'suite-error'];

export function outcomeLabel(outcome: Outcome, level?: Level): string {
  return isObservation(outcome, level) ? 'Observed' : MEANING[outcome].label;
}

export function outcomeMark(outcome: Outcome, level?: Level): string {
  return isObservation(outcome, level) ? 'INFO' : MEANING[outcome].mark;
}

/** An INFO rule never fails: when it held, what it recorded is an observation, and reports say so. */
export function isObservation(outcome: Outcome, level: Level | undefined): boolean {
  return level === 'INFO' && outcome === 'passed';
}

export function isFailing(outcome: Outcome): boolean {
  return MEANING[outcome].failing;
}

export function isProblem(outcome: Outcome): boolean {
  return MEANING[outcome].problem;
}

export function isOurBug(outcome: Outcome): boolean {
  return MEANING[outcome].ourBug;
}

export function junitKind(outcome: Outcome): JunitKind {
  return MEANING[outcome].junit;
}

/** Whether `outcome` stands over `other` for a rule that several checks reported on. */
export function outranks(outcome: Outcome, other: Outcome): boolean {
  return MEANING[outcome].severity > MEANING[other].severity;
}

/** MUST rules decide a verdict; SHOULD rules too under --strict; INFO never. */
export function decides(level: Level, strict: boolean): boolean {
  return level === 'MUST' || (strict && level === 'SHOULD');
}

/** A rule that fails this run: failing at a level that decides. What a baseline lists and a verdict refuses. */
export function failsTheRun(rule: { level: Level; status: Outcome }, strict: boolean): boolean {
  return isFailing(rule.status) && decides(rule.level, strict);
}

/** What a run says of its rules, as far as outcome meaning goes. */
interface RunOutcomes {
  rules: readonly { status: Outcome }[];
  /** Errors that broke a suite file or the run outside any check. */
  suiteErrors: readonly string[];
}

/** The suite's own code broke in this run: a check threw a programming error, or a suite file did not load. */
export function suiteBroke(run: RunOutcomes): boolean {
  return run.suiteErrors.length > 0 || run.rules.some((rule) => isOurBug(rule.status));
}

/** The outcomes a counts table shows, in report order: suite-error only in a run where the suite broke, not-applicable only where a rule was. */
export function countedOutcomes(run: RunOutcomes): Outcome[] {
  return OUTCOMES.filter((outcome) => !MEANING[outcome].shownOnlyWhenPresent
    || (isOurBug(outcome) ? suiteBroke(run) : run.rules.some((rule) => rule.status === outcome)));
}

/** A count of 0 for every outcome, in report order. */
export function noOutcomes(): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((outcome) => [outcome, 0])) as Record<Outcome, number>;
}

/** Findings that share one cause: the same expected and seen, whatever request showed them. */
export interface Cause {
  /** The first finding of the group, as the representative. */
  evidence: Evidence;
  /** How many findings share it. */
  count: number;
}

/**
 * Groups a rule's findings by cause. Fuzzing finds one wrong Error.status through a dozen bodies; its
 * findings differ in the request that showed them, not in what was expected and what was seen instead: one
 * cause. A finding that states no cause (an errored check, a report written before findings carried one)
 * is a cause of its own message.
 */
export function causesOf(evidence: readonly Evidence[]): Cause[] {
  const causes = new Map<string, Cause>();
  for (const item of evidence) {
    const key = causeKeyOf(item);
    const cause = causes.get(key);
    if (cause) cause.count += 1;
    else causes.set(key, { evidence: item, count: 1 });
  }
  return [...causes.values()];
}

/** "expected status 400, saw 201": the cause a finding was recorded with, without its case, request or seed. */
export function causeStatement(item: Evidence): string {
  return item.cause ? statementOf(item.cause) : item.message;
}

function statementOf(cause: CauseKey): string {
  return `expected ${cause.expected}, saw ${cause.seen}`;
}

function causeKeyOf(item: Evidence): string {
  return item.cause ? JSON.stringify([item.cause.expected, item.cause.seen]) : JSON.stringify([item.message]);
}

/** One cause behind the failures of several rules: the rules it broke, in catalog order. */
export interface SharedCause {
  statement: string;
  rules: string[];
}

/**
 * Causes that several failed rules share: an Error body without `code` fails a dozen rules (every check that
 * reads an Error body), and the reader should see that it is one fix, not a dozen.
 */
export function sharedCauses(rules: readonly { id: string; status: Outcome; evidence: readonly Evidence[] }[]): SharedCause[] {
  const byKey = new Map<string, SharedCause>();
  for (const rule of rules.filter((candidate) => candidate.status === 'failed')) {
    for (const { evidence } of causesOf(rule.evidence)) {
      const key = causeKeyOf(evidence);
      const shared = byKey.get(key) ?? { statement: causeStatement(evidence), rules: [] };
      if (!shared.rules.includes(rule.id)) shared.rules.push(rule.id);
      byKey.set(key, shared);
    }
  }
  return [...byKey.values()].filter((shared) => shared.rules.length > 1).sort((a, b) => b.rules.length - a.rules.length);
}
