import type { Area, Level, Rule } from '../../helpers/spec/catalog.js';
import type { Evidence, ExchangeEvidence, Outcome, RuleMeta } from '../../helpers/judge/outcome.js';
import { noOutcomes, outranks } from '../../helpers/judge/outcome-meaning.js';
import type { Diagnosis } from '../../helpers/http/diagnosis.js';
import type { CheckResult } from '../../helpers/engine/events.js';
import { SPEC_VERSION } from '../../helpers/spec/facts.js';

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
  /** Every rate-limit wait the run sat through, announced or too short to be, with why. */
  rateLimitWaits?: { count: number; totalMs: number; reasons?: Array<{ reason: string; count: number; totalMs: number }> };
  /** The suite itself broke: a file that did not load, an unhandled error. */
  suiteErrors: string[];
  /** How the run stands against --baseline, when one was given. */
  baseline?: BaselineJudgement;
  rules: RuleResult[];
}

/**
 * One result per catalog rule: a rule checked by several tests takes its worst outcome. A rule no check
 * reported on is a suite-error when a suite file broke, else errored.
 */
export function ruleResults(rules: readonly Rule[], results: readonly CheckResult[], suiteErrors: readonly string[], deselected: (rule: Rule) => string | undefined): RuleResult[] {
  return rules.map((rule) => {
    const mine = results.filter((result) => result.meta.ruleId === rule.id);
    const metas = mine.map((result) => result.meta);
    const worst = metas.reduce<RuleMeta | undefined>((a, b) => (!a || outranks(b.outcome, a.outcome) ? b : a), undefined);
    return {
      id: rule.id,
      level: rule.level,
      area: rule.area,
      summary: rule.summary,
      section: rule.section,
      source: rule.source ?? `Pet Store interface specification ${SPEC_VERSION}`,
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
  const counts: Record<Level, Record<Outcome, number>> = { MUST: noOutcomes(), SHOULD: noOutcomes(), INFO: noOutcomes() };
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
  return rules.map((rule) => ({ ...rule, status: 'skipped', message: `not judged: the target cannot be judged (${diagnosis.problem})`, observations: [], evidence: [] }));
}

/** What every report says when the suite broke: whose bug it is, and what to send. */
export const SUITE_BUG_NOTICE = 'This is a bug of petstore-conformance itself, not of the target, and the run exits 4. '
  + 'Please report it to the petstore-conformance maintainers with report.json of this run (it holds each error and where it was thrown) and the command you ran.';

/** "12 pets created": distinct IDs, so one ID handed out twice counts once. */
export function createdText(report: Report): string {
  return `${report.created.count} ${report.created.count === 1 ? 'pet' : 'pets'} created`;
}

/** "1 request", "1032 requests": how many the run sent. */
export function requestsText(report: Report): string {
  return `${report.requests.total} ${report.requests.total === 1 ? 'request' : 'requests'}`;
}

/** ", 3 rate-limit waits (41.0 s)": where the time of a slow run went. */
export function waitsText(report: Report): string {
  const waits = report.rateLimitWaits;
  if (!waits || waits.count === 0) return '';
  return `, ${waits.count} rate-limit ${waits.count === 1 ? 'wait' : 'waits'} (${(waits.totalMs / 1000).toFixed(1)} s)`;
}
