import type { Area, Level, Rule } from '../helpers/spec/catalog.js';
import { OUTCOMES, type Evidence, type ExchangeEvidence, type Outcome, type RuleMeta } from '../helpers/judge/outcome.js';
import type { Diagnosis } from '../helpers/http/diagnosis.js';
import type { CheckResult } from './collector.js';

export interface RuleResult {
  id: string;
  level: Level;
  area: Area;
  summary: string;
  section: string;
  source: string;
  words: string;
  status: Outcome;
  message?: string;
  observations: string[];
  evidence: Evidence[];
  requests: number;
  durationMs: number;
  created: string[];
}

/** What a run says about its baseline; it sits in report.json under `baseline`. */
export interface BaselineJudgement {
  file: string;
  /** Listed rules that fail again: reported, and they do not fail the run. */
  known: string[];
  /** Listed rules that pass now: the run fails until they are taken out of the list. */
  nowPassing: string[];
  /** Listed rules this run did not judge (skipped, deselected): neither tolerated nor stale. */
  notJudged: string[];
  /** Rules that fail the run and are not listed: the regressions. */
  unlisted: string[];
}

/** not-judged: the first answers showed a wrong base URL or a refused key, and the run stopped (exit 3). */
export type Verdict = 'certified' | 'not-certified' | 'incomplete' | 'not-judged';

export interface Report {
  tool: { name: string; version: string };
  specVersion: string;
  runId: string;
  /** The signal that cancelled the run (SIGINT, SIGTERM): the verdict is then incomplete. */
  cancelled?: string;
  /** `proxy`: the proxy the requests went through, without its credentials. */
  target: { baseUrl: string; embedded: boolean; proxy?: string };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** The options of the run, the key redacted. */
  options: Record<string, unknown>;
  verdict: Verdict;
  exitCode: number;
  counts: Record<Level, Record<Outcome, number>>;
  requests: { total: number; byArea: Record<string, number> };
  /** Distinct pet IDs created; `reused` lists IDs the target gave to more than one create. */
  created: { count: number; ids: string[]; reused?: string[] };
  /** Why the run stopped before judging, when verdict is not-judged. */
  diagnosis?: Diagnosis & { exchange?: ExchangeEvidence };
  /** Rate-limit waits the run sat through, as announced. */
  rateLimitWaits?: { count: number; totalMs: number };
  /** The suite itself broke: a file that did not load, an unhandled error. */
  suiteErrors: string[];
  /** How the run stands against --baseline, when one was given. */
  baseline?: BaselineJudgement;
  rules: RuleResult[];
}

// A check of our own that broke outweighs the rest: the run must say so, whatever the other checks found.
const OUTCOME_WEIGHT: Record<Outcome, number> = { skipped: 0, passed: 1, errored: 2, failed: 3, 'suite-error': 4 };

/**
 * One result per catalog rule: a rule checked by several tests takes its worst outcome. A rule no check
 * reported on is a suite-error when a suite file broke, else errored.
 */
export function ruleResults(rules: readonly Rule[], results: readonly CheckResult[], suiteErrors: readonly string[], deselected: (rule: Rule) => string | undefined): RuleResult[] {
  return rules.map((rule) => {
    const mine = results.filter((result) => result.meta.ruleId === rule.id);
    const metas = mine.map((result) => result.meta);
    const worst = metas.reduce<RuleMeta | undefined>((a, b) => (!a || OUTCOME_WEIGHT[b.outcome] > OUTCOME_WEIGHT[a.outcome] ? b : a), undefined);
    return {
      id: rule.id,
      level: rule.level,
      area: rule.area,
      summary: rule.summary,
      section: rule.section,
      source: rule.source ?? 'Pet Store interface specification 1.0.0',
      words: rule.words,
      status: worst?.outcome ?? (deselected(rule) ? 'skipped' : suiteErrors.length > 0 ? 'suite-error' : 'errored'),
      message: worst ? worst.message : deselected(rule) ?? `no check ran for this rule${suiteErrors.length > 0 ? ` (the suite broke: ${suiteErrors[0]})` : ''}`,
      observations: metas.flatMap((meta) => meta.observations),
      evidence: metas.flatMap((meta) => meta.evidence),
      requests: metas.reduce((sum, meta) => sum + meta.requests, 0),
      durationMs: Math.round(mine.reduce((sum, result) => sum + result.durationMs, 0)),
      created: metas.flatMap((meta) => meta.created),
    };
  });
}

export function countsOf(rules: readonly RuleResult[]): Record<Level, Record<Outcome, number>> {
  const empty = (): Record<Outcome, number> => ({ passed: 0, failed: 0, skipped: 0, errored: 0, 'suite-error': 0 });
  const counts: Record<Level, Record<Outcome, number>> = { MUST: empty(), SHOULD: empty(), INFO: empty() };
  for (const rule of rules) counts[rule.level][rule.status] += 1;
  return counts;
}

export function requestsByArea(rules: readonly RuleResult[]): Record<string, number> {
  const byArea: Record<string, number> = {};
  for (const rule of rules) byArea[rule.area] = (byArea[rule.area] ?? 0) + rule.requests;
  return byArea;
}

/** Pets created, each ID once: a target that hands one ID to several creates has created one pet, not several. */
export function distinctCreated(ids: readonly string[]): Report['created'] {
  const distinct = [...new Set(ids)];
  const reused = distinct.filter((id) => ids.indexOf(id) !== ids.lastIndexOf(id));
  return { count: distinct.length, ids: distinct, ...(reused.length > 0 ? { reused } : {}) };
}

/**
 * After a diagnosis no rule is judged: what the checks saw before it came from the wrong address or with a
 * refused key, and says nothing of the server. Every rule is reported skipped with the one cause.
 */
export function withoutUnjudged(rules: readonly RuleResult[], diagnosis: NonNullable<Report['diagnosis']>): RuleResult[] {
  return rules.map((rule) => ({ ...rule, status: 'skipped', message: `not judged: the run stopped at its first answers (${diagnosis.problem})`, observations: [], evidence: [] }));
}

/** The suite's own code broke in this run: a check threw a programming error, or a suite file did not load. */
export function suiteBroke(report: Pick<Report, 'rules' | 'suiteErrors'>): boolean {
  return report.suiteErrors.length > 0 || report.rules.some((rule) => rule.status === 'suite-error');
}

/** The outcomes a counts table shows, in report order: suite-error only in a run where the suite broke. */
export function countedOutcomes(report: Pick<Report, 'rules' | 'suiteErrors'>): Outcome[] {
  return OUTCOMES.filter((outcome) => outcome !== 'suite-error' || suiteBroke(report));
}

/** What every report says when the suite broke: whose bug it is, and what to send. */
export const SUITE_BUG_NOTICE = 'This is a bug of petstore-conformance itself, not of the target, and the run exits 4. '
  + 'Please report it to the petstore-conformance maintainers with report.json of this run (it holds each error and where it was thrown) and the command you ran.';

/** Findings that share one cause: the same expected and seen, whatever request showed them. */
export interface Cause {
  /** The first finding of the group, as the representative. */
  evidence: Evidence;
  /** How many findings share it. */
  count: number;
}

/**
 * Groups a rule's findings by cause. Fuzzing finds one wrong Error.status through a dozen bodies; its
 * findings differ in the request that showed them (the context a message starts with, the exchange it ends
 * with, the body echoed in `seen`), not in what was expected and what was seen instead: one cause.
 */
export function causesOf(evidence: readonly Evidence[]): Cause[] {
  const causes = new Map<string, Cause>();
  for (const item of evidence) {
    const key = causeKey(item);
    const cause = causes.get(key);
    if (cause) cause.count += 1;
    else causes.set(key, { evidence: item, count: 1 });
  }
  return [...causes.values()];
}

/** "expected status 400, saw 201", from "invalid name (…): expected status 400, saw 201 (POST /v1/pets → 201); seed 7, …". */
export function causeStatement(item: Evidence): string {
  const stated = /expected [\s\S]*$/.exec(item.message)?.[0] ?? item.message;
  return stated.replace(/ \([A-Z]+ \S+ → [^)]*\)/g, '').replace(/; seed \d+[\s\S]*$/, '').trim();
}

function causeKey(item: Evidence): string {
  return `${item.expected ?? ''}\u0000${causeStatement(item)}`;
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
export function sharedCauses(rules: readonly RuleResult[]): SharedCause[] {
  const byKey = new Map<string, SharedCause>();
  for (const rule of rules.filter((candidate) => candidate.status === 'failed')) {
    for (const { evidence } of causesOf(rule.evidence)) {
      const key = causeKey(evidence);
      const shared = byKey.get(key) ?? { statement: causeStatement(evidence), rules: [] };
      if (!shared.rules.includes(rule.id)) shared.rules.push(rule.id);
      byKey.set(key, shared);
    }
  }
  return [...byKey.values()].filter((shared) => shared.rules.length > 1).sort((a, b) => b.rules.length - a.rules.length);
}
