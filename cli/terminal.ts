import type { CheckResult } from '../helpers/engine/events.js';
import { createdText, requestsText, SUITE_BUG_NOTICE, waitsText, type Report, type RuleResult } from './reports/report.js';
import { activeRules, deselectionReason, getRule } from '../helpers/spec/catalog.js';
import type { Counterexample, Evidence } from '../helpers/judge/outcome.js';
import { causesOf, countedOutcomes, isFailing, isProblem, outcomeMark, sharedCauses, suiteBroke, type SharedCause } from '../helpers/judge/outcome-meaning.js';
import { EXIT } from './policy/verdict.js';
import { visibleControls } from './reports/safe-text.js';
import { announcedWaitMs } from '../helpers/http/pacing.js';

/** The mark of a failing rule a baseline lists: reported, and it does not fail the run. */
const KNOWN_MARK = 'KNOWN';

/** One progress line per finished check (--verbose); a failure the baseline lists is marked known. */
export function progressLine(result: CheckResult, known = false): string {
  const rule = getRule(result.meta.ruleId);
  const mark = known && isFailing(result.meta.outcome) ? KNOWN_MARK : outcomeMark(result.meta.outcome, rule.level);
  const note = result.meta.outcome === 'passed' ? result.meta.observations[0] : result.meta.evidence.length > 1 ? byCause(result.meta.evidence) : result.meta.message;
  return `  ${mark} ${rule.id.padEnd(9)} ${rule.summary}${note ? `\n         ${oneLine(note)}` : ''}`;
}

/** The verdict in one line: what --quiet prints, and what every summary starts with. */
export function verdictLine(report: Report): string {
  const broke = suiteBroke(report);
  const incomplete = report.cancelled ? `INCOMPLETE (cancelled by ${report.cancelled})` : broke ? 'INCOMPLETE (the suite itself broke)' : 'INCOMPLETE (MUST rules skipped)';
  const verdict = { certified: 'CERTIFIED', 'not-certified': 'NOT CERTIFIED', incomplete, 'not-judged': 'NOT JUDGED' }[report.verdict];
  return `${verdict}: ${report.target.baseUrl}${report.target.embedded ? ' (bundled reference server)' : ''}`;
}

/** The closing summary of --verbose: the verdict and counts, then each failure by cause, expected vs seen, with its curl line. */
export function summaryText(report: Report): string {
  const lines = headLines(report);
  const known = knownFailures(report);
  const problems = report.rules.filter((rule) => isProblem(rule.status));
  const shared = sharedCauses(report.rules);
  if (shared.length > 0) lines.push('', 'One cause, several rules (fix it once):');
  for (const cause of shared) lines.push(...sharedCauseLines(cause));
  if (problems.length > 0) lines.push('');
  for (const rule of problems) {
    lines.push(`${known.has(rule.id) ? KNOWN_MARK : outcomeMark(rule.status, rule.level)} ${rule.id} [${rule.level}] ${rule.summary}`);
    const causes = causesOf(rule.evidence);
    for (const { evidence, count } of causes.slice(0, 3)) {
      lines.push(`     ${count > 1 ? `${count} findings, one cause: ` : ''}${oneLine(evidence.message)}`);
      if (evidence.expected) lines.push(`       expected: ${oneLine(evidence.expected)}`);
      if (evidence.seen) lines.push(`       seen:     ${oneLine(evidence.seen)}`);
      if (evidence.counterexample) lines.push(...counterexampleLines(evidence.counterexample));
      const curl = evidence.exchanges[0]?.curl;
      if (curl) lines.push(`       reproduce: ${curl}`);
    }
    if (causes.length > 3) lines.push(`     … ${causes.length - 3} more causes in report.html`);
    if (rule.evidence.length === 0 && rule.message) lines.push(`     ${oneLine(rule.message)}`);
  }
  lines.push(...suiteErrorLines(report));
  return lines.join('\n');
}

/**
 * The closing summary by default: the verdict and counts, then each failing rule as one headline and its first
 * finding, each line cut to `width`. The evidence, the other findings and the curl lines are in report.html
 * (--verbose prints them here). A failure the baseline lists is counted as known, apart from the new ones.
 */
export function compactSummaryText(report: Report, width: number): string {
  const lines = headLines(report, width);
  const known = knownFailures(report);
  const problems = report.rules.filter((rule) => isProblem(rule.status));
  const fresh = problems.filter((rule) => !known.has(rule.id));
  lines.push(...skippedLines(report, width));
  // Several rules broken by one cause are fixed once: said before the rules, a line each, as report.html does.
  const shared = sharedCauses(report.rules.filter((rule) => !known.has(rule.id)));
  if (shared.length > 0) lines.push('', 'One cause, several rules (fix it once):');
  for (const cause of shared.slice(0, SHARED_CAUSES_SHOWN)) lines.push(...sharedCauseLines(cause, width));
  if (shared.length > SHARED_CAUSES_SHOWN) lines.push(`  … ${shared.length - SHARED_CAUSES_SHOWN} more in report.html`);
  if (fresh.length > 0) {
    const what = fresh.length === 1 ? 'One rule did not hold' : `${fresh.length} rules did not hold`;
    lines.push('', `${what}${report.baseline ? ' (new: not in the baseline)' : ''}; report.html has the evidence and a curl line for each:`);
    for (const rule of fresh) lines.push(cut(`  ${outcomeMark(rule.status, rule.level)} ${rule.id.padEnd(9)} ${rule.summary}`, width), `       ${firstFinding(rule, width - 7)}`);
  }
  if (known.size > 0) lines.push('', cut(`  ${KNOWN_MARK} ${known.size === 1 ? 'one failing rule' : `${known.size} failing rules`} listed in ${report.baseline!.file}: ${[...known].join(', ')}`, width));
  const baseline = report.baseline;
  // A red NOT CERTIFIED over exit 0 reads as a failed gate: say that the baseline is what lets it pass.
  if (known.size > 0 && fresh.length === 0 && report.exitCode === 0) lines.push(`  every failing rule is in ${baseline!.file}: the run passes (exit 0)`);
  if (baseline && baseline.nowPassing.length > 0) lines.push(cut(`  NOW PASSING, remove from ${baseline.file}: ${baseline.nowPassing.join(', ')} (exit ${report.exitCode} until they are removed)`, width));
  lines.push(...suiteErrorLines(report));
  return lines.join('\n');
}

/** One cause several rules share, in two lines: the cause, then the rules it broke; each cut to `width`. */
function sharedCauseLines(cause: SharedCause, width = Infinity): string[] {
  return [cut(`  ${cause.rules.length} rules: ${oneLine(cause.statement)}`, width), cut(`     ${cause.rules.join(', ')}`, width)];
}

/** How many shared causes the compact summary names; report.html has them all. */
const SHARED_CAUSES_SHOWN = 3;
/** How many skipped rules the compact summary gives a line of their own, with the reason; more are named in one line. */
const SKIPPED_SHOWN = 3;

/**
 * The MUST and SHOULD rules the run meant to judge and could not, with why (a run of a certified server that
 * skipped one says which, and what would judge it); the rules --only or --skip left out are only counted.
 */
function skippedLines(report: Report, width: number): string[] {
  const catalog = new Map(activeRules().map((rule) => [rule.id, rule]));
  const selection = { only: stringsOf(report.options.only), skip: stringsOf(report.options.skip) };
  const skipped = report.rules.filter((rule) => rule.status === 'skipped' && rule.level !== 'INFO')
    .filter((rule) => !catalog.has(rule.id) || deselectionReason(catalog.get(rule.id)!, selection) === undefined);
  if (skipped.length === 0 || report.diagnosis) return [];
  if (skipped.length > SKIPPED_SHOWN) return ['', cut(`  SKIP ${skipped.length} rules not judged, each with its reason in report.html: ${skipped.map((rule) => rule.id).join(', ')}`, width)];
  return ['', ...skipped.map((rule) => cut(`  SKIP ${rule.id.padEnd(9)} ${oneLine(rule.message ?? 'not judged')}`, width))];
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The lines both summaries open with: the verdict, why a run is incomplete or unjudged, the counts, what the run spent. */
function headLines(report: Report, width = Infinity): string[] {
  const lines: string[] = ['', verdictLine(report)];
  if (report.exitCode === EXIT.incomplete) {
    const unjudged = report.rules.filter((rule) => rule.level === 'MUST' && rule.status === 'skipped').length;
    lines.push(`  --require-complete: ${unjudged} MUST rule(s) were not judged, so the run fails (exit ${EXIT.incomplete}); the reports give each one's reason.`);
  }
  const outOfReach = report.rules.filter((rule) => rule.level === 'MUST' && rule.status === 'not-applicable').map((rule) => rule.id);
  if (outOfReach.length > 0) {
    lines.push(`  ${outOfReach.length === 1 ? 'one MUST rule' : `${outOfReach.length} MUST rules`} no run could judge on this target (N/A: ${outOfReach.join(', ')}); the reports say what the target showed, and what target would judge ${outOfReach.length === 1 ? 'it' : 'them'}.`);
  }
  if (report.diagnosis) {
    lines.push('', `  The target cannot be judged: ${report.diagnosis.problem}.`, `  What to change: ${report.diagnosis.hint}`);
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
  // The fuzzing seed replays the run's generated requests exactly (--seed): said whenever a fuzzing rule sent any.
  const fuzzed = report.options.seed !== undefined && report.rules.some((rule) => rule.area === 'fuzzing' && rule.requests > 0);
  lines.push(`  ${requestsText(report)}, ${createdText(report)}, ${(report.durationMs / 1000).toFixed(1)} s${waitsText(report)}${fuzzed ? `, fuzzing seed ${String(report.options.seed)}` : ''}`);
  if (report.created.reused) lines.push(cut(`  the target gave ${report.created.reused.length === 1 ? 'one ID' : `${report.created.reused.length} IDs`} to more than one created pet: ${report.created.reused.slice(0, 5).join(', ')}${report.created.reused.length > 5 ? ', …' : ''}`, width));
  return lines;
}

function suiteErrorLines(report: Report): string[] {
  const lines = report.suiteErrors.map((error) => `SUITE ERROR ${error}`);
  if (suiteBroke(report)) lines.push('', `The suite itself broke. ${SUITE_BUG_NOTICE}`);
  return lines;
}

/** The failing rules the run's baseline lists: reported as known, and they do not fail the run. */
function knownFailures(report: Report): Set<string> {
  return new Set(report.baseline?.known ?? []);
}

/**
 * A rule's first finding, expected vs seen ("expected a 4xx, saw 500"; its message where it states neither, as an
 * errored check's), and how many more there are: the case, the request and the rest are in the reports.
 */
function firstFinding(rule: RuleResult, width: number): string {
  const causes = causesOf(rule.evidence);
  const first = causes[0]?.evidence;
  if (!first) return oneLine(rule.message ?? '', width);
  const sentence = first.expected && first.seen ? `expected ${first.expected}, saw ${first.seen}` : first.message;
  const more = rule.evidence.length - 1;
  if (more === 0) return oneLine(sentence, width);
  // Kept clear of the cut, so that a long body cannot hide that there is more.
  const suffix = ` (+${more} more finding${more === 1 ? '' : 's'}${causes.length > 1 ? `, ${causes.length} causes` : ''})`;
  return `${oneLine(sentence, Math.max(20, width - suffix.length))}${suffix}`;
}

/** A status line for the terminal while the run works: how many rules are judged, how many failed, which came last. */
export function statusLine(judged: number, total: number, failing: number, last: string): string {
  return `  … ${judged} of ${total} ${total === 1 ? 'rule' : 'rules'} judged${failing > 0 ? `, ${failing} failing` : ''} (${last})`;
}

/**
 * A fuzz counterexample: the seed and the shrunk body, or, for a sequence (FUZZ-03), the seed, its shrunk
 * commands and its replay script, one curl line per command; then the command line that replays the run.
 */
function counterexampleLines(example: Counterexample): string[] {
  if (example.script === undefined) return [`       seed ${example.seed}, counterexample: ${oneLine(example.body)}`, `       replay: ${example.replay}`];
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

  /**
   * `printProgress`: without a status line, a long phase's progress is printed every few seconds (--verbose); the
   * compact terminal leaves a quiet CI log to the heartbeat instead.
   */
  constructor(private readonly print: (line: string) => void, private readonly status?: (line: string | undefined) => void, private readonly now: () => number = Date.now, private readonly printProgress = true) {}

  line(text: string): void {
    if (text.startsWith(STOPPING)) this.stopped = true;
    const waitMs = announcedWaitMs(text);
    if (waitMs !== undefined) {
      this.waits.count += 1;
      this.waits.totalMs += waitMs;
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
    if (this.status) return this.standing(`  … ${text}`);
    if (!this.printProgress || now - Math.max(this.phaseStartedAt, this.lastPrintedAt) < PROGRESS_EVERY_MS) return;
    this.lastPrintedAt = now;
    this.print(`  … ${text}`);
  }

  /** The status line, where there is one, says where the run stands until the next line or progress step. */
  standing(text: string): void {
    if (!this.status) return;
    this.status(text);
    this.statusShown = true;
  }

  private clearStatus(): void {
    if (!this.statusShown) return;
    this.status?.(undefined);
    this.statusShown = false;
  }
}

/** A target's text on one line: its line breaks and tabs shown as marks (a body of HTML keeps the indentation), cut at `width` characters. */
export function oneLine(text: string, width = 300): string {
  return cut(visibleControls(text, { lineBreaks: false, tabs: false }), width);
}

/** The text cut to `width` characters (code points, so that no emoji is split), the cut marked with an ellipsis. */
function cut(text: string, width: number): string {
  if (text.length <= width) return text;
  const chars = Array.from(text);
  return chars.length <= width ? text : `${chars.slice(0, Math.max(1, width - 1)).join('')}…`;
}
