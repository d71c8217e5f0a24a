import type { Area, Level, Rule } from '../helpers/catalog.js';
import type { Evidence, Outcome, RuleMeta } from '../helpers/outcome.js';
import type { CheckResult } from './collector.js';
import type { BaselineJudgement } from './reports/baseline.js';

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

export type Verdict = 'certified' | 'not-certified' | 'incomplete';

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
  created: { count: number; ids: string[] };
  /** The suite itself broke: a file that did not load, an unhandled error. */
  suiteErrors: string[];
  /** How the run stands against --baseline, when one was given. */
  baseline?: BaselineJudgement;
  rules: RuleResult[];
}

const OUTCOME_WEIGHT: Record<Outcome, number> = { skipped: 0, passed: 1, errored: 2, failed: 3 };

/** One result per catalog rule: a rule checked by several tests takes its worst outcome; an unchecked one is errored. */
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
      status: worst?.outcome ?? (deselected(rule) ? 'skipped' : 'errored'),
      message: worst ? worst.message : deselected(rule) ?? `no check ran for this rule${suiteErrors.length > 0 ? ` (the suite broke: ${suiteErrors[0]})` : ''}`,
      observations: metas.flatMap((meta) => meta.observations),
      evidence: metas.flatMap((meta) => meta.evidence),
      requests: metas.reduce((sum, meta) => sum + meta.requests, 0),
      durationMs: Math.round(mine.reduce((sum, result) => sum + result.durationMs, 0)),
      created: metas.flatMap((meta) => meta.created),
    };
  });
}

/** MUST rules decide; SHOULD rules too under --strict; a skipped MUST leaves the verdict incomplete. */
export function verdictOf(rules: readonly RuleResult[], strict: boolean): Verdict {
  const gating = (rule: RuleResult) => rule.level === 'MUST' || (strict && rule.level === 'SHOULD');
  if (rules.some((rule) => gating(rule) && (rule.status === 'failed' || rule.status === 'errored'))) return 'not-certified';
  if (rules.some((rule) => rule.level === 'MUST' && rule.status === 'skipped')) return 'incomplete';
  return 'certified';
}

export function countsOf(rules: readonly RuleResult[]): Record<Level, Record<Outcome, number>> {
  const empty = (): Record<Outcome, number> => ({ passed: 0, failed: 0, skipped: 0, errored: 0 });
  const counts: Record<Level, Record<Outcome, number>> = { MUST: empty(), SHOULD: empty(), INFO: empty() };
  for (const rule of rules) counts[rule.level][rule.status] += 1;
  return counts;
}

export function requestsByArea(rules: readonly RuleResult[]): Record<string, number> {
  const byArea: Record<string, number> = {};
  for (const rule of rules) byArea[rule.area] = (byArea[rule.area] ?? 0) + rule.requests;
  return byArea;
}
