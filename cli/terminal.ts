import type { CheckResult } from '../helpers/engine/events.js';
import { createdText, requestsText, SUITE_BUG_NOTICE, waitsText, type Report } from './reports/report.js';
import { getRule } from '../helpers/spec/catalog.js';
import type { Counterexample, Evidence } from '../helpers/judge/outcome.js';
import { causesOf, countedOutcomes, isProblem, outcomeMark, sharedCauses, suiteBroke } from '../helpers/judge/outcome-meaning.js';
import { EXIT } from './policy/verdict.js';

/** One progress line per finished check. */
export function progressLine(result: CheckResult): string {
  const rule = getRule(result.meta.ruleId);
  const mark = outcomeMark(result.meta.outcome, rule.level);
  const note = result.meta.outcome === 'passed' ? result.meta.observations[0] : result.meta.evidence.length > 1 ? byCause(result.meta.evidence) : result.meta.message;
  return `  ${mark} ${rule.id.padEnd(9)} ${rule.summary}${note ? `\n         ${firstLine(note)}` : ''}`;
}

/** The closing summary: verdict, counts by level and outcome, then each failure by cause, expected vs seen. */
export function summaryText(report: Report): string {
  const lines: string[] = [''];
  const broke = suiteBroke(report);
  const incomplete = report.cancelled ? `INCOMPLETE (cancelled by ${report.cancelled})` : broke ? 'INCOMPLETE (the suite itself broke)' : 'INCOMPLETE (MUST rules skipped)';
  const verdict = { certified: 'CERTIFIED', 'not-certified': 'NOT CERTIFIED', incomplete, 'not-judged': 'NOT JUDGED' }[report.verdict];
  lines.push(`${verdict}: ${report.target.baseUrl}${report.target.embedded ? ' (bundled reference server)' : ''}`);
  if (report.exitCode === EXIT.incomplete) {
    const unjudged = report.rules.filter((rule) => rule.level === 'MUST' && rule.status === 'skipped').length;
    lines.push(`  --require-complete: ${unjudged} MUST rule(s) were not judged, so the run fails (exit ${EXIT.incomplete}); the reports give each one's reason.`);
  }
  const outOfReach = report.rules.filter((rule) => rule.level === 'MUST' && rule.status === 'not-applicable').map((rule) => rule.id);
  if (outOfReach.length > 0) {
    lines.push(`  ${outOfReach.length === 1 ? 'one MUST rule' : `${outOfReach.length} MUST rules`} no run could judge on this target (N/A: ${outOfReach.join(', ')}); the reports say what the target showed, and what target would judge ${outOfReach.length === 1 ? 'it' : 'them'}.`);
  }
  if (report.diagnosis) {
    lines.push('', `  The run stopped at its first answers: ${report.diagnosis.problem}.`, `  What to change: ${report.diagnosis.hint}`);
    if (report.diagnosis.exchange) lines.push(`  reproduce: ${report.diagnosis.exchange.curl}`);
  }
  lines.push('');
  // The suite-error column only when there is one: a run without a bug of ours reads as it always has.
  const columns = countedOutcomes(report);
  lines.push(`        ${columns.map((outcome) => `  ${outcome.padStart(Math.max(6, outcome.length))}`).join('')}`);
  for (const level of ['MUST', 'SHOULD', 'INFO'] as const) {
    lines.push(`  ${level.padEnd(6)}${columns.map((outcome) => `  ${String(report.counts[level][outcome] ?? 0).padStart(Math.max(6, outcome.length))}`).join('')}`);
  }
  lines.push('');
  lines.push(`  ${requestsText(report)}, ${createdText(report)}, ${(report.durationMs / 1000).toFixed(1)} s${waitsText(report)}`);
  if (report.created.reused) lines.push(`  the target gave ${report.created.reused.length === 1 ? 'one ID' : `${report.created.reused.length} IDs`} to more than one created pet: ${report.created.reused.slice(0, 5).join(', ')}${report.created.reused.length > 5 ? ', …' : ''}`);
  const problems = report.rules.filter((rule) => isProblem(rule.status));
  const shared = sharedCauses(report.rules);
  if (shared.length > 0) lines.push('', 'One cause, several rules (fix it once):');
  for (const cause of shared) lines.push(`  ${cause.rules.length} rules: ${firstLine(cause.statement)}`, `     ${cause.rules.join(', ')}`);
  if (problems.length > 0) lines.push('');
  for (const rule of problems) {
    lines.push(`${outcomeMark(rule.status, rule.level)} ${rule.id} [${rule.level}] ${rule.summary}`);
    const causes = causesOf(rule.evidence);
    for (const { evidence, count } of causes.slice(0, 3)) {
      lines.push(`     ${count > 1 ? `${count} findings, one cause: ` : ''}${evidence.message}`);
      if (evidence.expected) lines.push(`       expected: ${firstLine(evidence.expected)}`);
      if (evidence.seen) lines.push(`       seen:     ${firstLine(evidence.seen)}`);
      if (evidence.counterexample) lines.push(...counterexampleLines(evidence.counterexample));
      const curl = evidence.exchanges[0]?.curl;
      if (curl) lines.push(`       reproduce: ${curl}`);
    }
    if (causes.length > 3) lines.push(`     … ${causes.length - 3} more causes in report.html`);
    if (rule.evidence.length === 0 && rule.message) lines.push(`     ${rule.message}`);
  }
  for (const error of report.suiteErrors) lines.push(`SUITE ERROR ${error}`);
  if (broke) lines.push('', `The suite itself broke. ${SUITE_BUG_NOTICE}`);
  return lines.join('\n');
}

/**
 * A fuzz counterexample: the seed and the shrunk body, or, for a sequence (FUZZ-03), the seed, its shrunk
 * commands and its replay script, one curl line per command; then the command line that replays the run.
 */
function counterexampleLines(example: Counterexample): string[] {
  if (example.script === undefined) return [`       seed ${example.seed}, counterexample: ${firstLine(example.body)}`, `       replay: ${example.replay}`];
  return [
    `       seed ${example.seed}, fast-check path ${example.path || 'none'}, shrunk sequence:`,
    ...example.body.split('\n').map((line) => `         ${line}`),
    `       replay: ${example.replay}`,
    '       script:',
    ...example.script.split('\n').map((line) => `         ${line}`),
  ];
}

/** "13 findings, one cause: expected …": many findings of one rule, read by cause. */
function byCause(evidence: readonly Evidence[]): string {
  const causes = causesOf(evidence);
  return `${evidence.length} findings, ${causes.length === 1 ? 'one cause' : `${causes.length} causes`}: ${causes[0]!.evidence.message}`;
}

// Without a terminal to rewrite a line in (a CI log), a long phase says how far it is this often.
const PROGRESS_EVERY_MS = 5_000;
const STOPPING = 'stopping: ';
const WAIT_LINE = /^waiting (\d+(?:\.\d+)?) s\b/;

/**
 * Routes what the run tells the person watching: notices (rate-limit waits are shown as they start and totalled);
 * progress of a long phase rewrites one status line on a terminal, or is printed every few seconds.
 */
export class LogRouter {
  readonly waits = { count: 0, totalMs: 0 };
  /** The client found the target cannot be judged: the checks' own lines would only repeat it. */
  stopped = false;
  private phaseStartedAt: number | undefined;
  private lastPrintedAt = 0;
  private statusShown = false;

  constructor(private readonly print: (line: string) => void, private readonly status?: (line: string | undefined) => void, private readonly now: () => number = Date.now) {}

  line(text: string): void {
    if (text.startsWith(STOPPING)) this.stopped = true;
    const wait = WAIT_LINE.exec(text);
    if (wait) {
      this.waits.count += 1;
      this.waits.totalMs += Math.round(Number(wait[1]) * 1000);
    }
    this.clearStatus();
    this.print(`  … ${text}`);
  }

  /** A check finished: its phase is over, and the status line gives way to the result. */
  endPhase(): void {
    this.clearStatus();
    this.phaseStartedAt = undefined;
  }

  progress(text: string): void {
    const now = this.now();
    this.phaseStartedAt ??= now;
    if (this.status) {
      this.status(`  … ${text}`);
      this.statusShown = true;
      return;
    }
    if (now - Math.max(this.phaseStartedAt, this.lastPrintedAt) < PROGRESS_EVERY_MS) return;
    this.lastPrintedAt = now;
    this.print(`  … ${text}`);
  }

  private clearStatus(): void {
    if (!this.statusShown) return;
    this.status?.(undefined);
    this.statusShown = false;
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
