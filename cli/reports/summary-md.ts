import type { Level } from '../../helpers/spec/catalog.js';
import type { Outcome } from '../../helpers/judge/outcome.js';
import { causesOf, countedOutcomes, isProblem, OUTCOMES, outcomeLabel, sharedCauses, suiteBroke } from '../../helpers/judge/outcome-meaning.js';
import { createdText, requestsText, SUITE_BUG_NOTICE, waitsText, type Report, type RuleResult } from './report.js';
import { visibleControls } from './safe-text.js';

// A step summary is capped (1 MiB on GitHub) and a pull-request comment is read by people: a long
// list of failures is cut, and report.html holds the rest.
const MAX_LISTED = 50;
const MAX_MESSAGE = 240;

// The title of a list of rules to look at, where the outcome's label says too little; which outcomes are
// listed, and in which order, is outcome-meaning's.
const LIST_TITLE: Partial<Record<Outcome, string>> = {
  errored: 'Could not be judged (errored)',
  'suite-error': 'Not judged: the suite itself broke (suite-error)',
};

const HEADLINE: Record<Report['verdict'], string> = {
  certified: '✅ Certified',
  'not-certified': '❌ Not certified',
  incomplete: '⚠️ Incomplete: MUST rules were skipped',
  'not-judged': '⛔ Not judged: the target\'s answers show a wrong base URL or key',
};

/** A short Markdown summary for $GITHUB_STEP_SUMMARY or a pull-request comment. */
export function toSummaryMarkdown(report: Report): string {
  const lines: string[] = [];
  const headline = headlineOf(report);
  lines.push(`## ${headline}: ${code(report.target.baseUrl)}${report.target.embedded ? ' (bundled reference server)' : ''}`);
  lines.push('');
  lines.push([
    `Pet Store interface ${report.specVersion}`,
    `${report.tool.name} ${report.tool.version}`,
    `${report.startedAt.slice(0, 16).replace('T', ' ')} UTC`,
    requestsText(report),
    createdText(report),
    `${(report.durationMs / 1000).toFixed(1)} s${waitsText(report)}`,
  ].join(' · '));
  lines.push('');
  if (report.diagnosis) {
    lines.push(`**The target cannot be judged:** ${text(report.diagnosis.problem)}.`, '', `**What to change:** ${text(report.diagnosis.hint)}`, '');
  }
  if (report.created.reused) lines.push(`The target gave one ID to more than one created pet: ${report.created.reused.slice(0, 5).map(code).join(', ')}.`, '');
  lines.push(...countsTable(report));
  if (report.baseline) lines.push('', ...baselineParagraph(report));
  const known = new Set(report.baseline?.known ?? []);
  const shared = sharedCauses(report.rules);
  if (shared.length > 0) {
    lines.push('', '### One cause, several rules', '');
    for (const cause of shared.slice(0, MAX_LISTED)) lines.push(`- ${cause.rules.length} rules (${cause.rules.map(code).join(', ')}): ${text(cause.statement)}`);
  }
  for (const outcome of OUTCOMES.filter(isProblem)) {
    lines.push(...ruleList(LIST_TITLE[outcome] ?? outcomeLabel(outcome), report.rules.filter((rule) => rule.status === outcome), known));
  }
  if (suiteBroke(report)) {
    lines.push('', '### The suite itself broke', '', text(SUITE_BUG_NOTICE));
    if (report.suiteErrors.length > 0) lines.push('');
    for (const error of report.suiteErrors.slice(0, MAX_LISTED)) lines.push(`- ${text(error)}`);
  }
  lines.push('', 'Evidence for every rule (requests, responses, curl lines) is in `report.html` and `exchanges.har` of the report directory.');
  return `${lines.join('\n')}\n`;
}

/** The verdict, and what made an incomplete run incomplete: a cancellation, a broken suite, or skipped rules. */
function headlineOf(report: Report): string {
  if (report.cancelled) return `⚠️ Incomplete: the run was cancelled (${report.cancelled}) before it judged every rule`;
  if (report.verdict === 'incomplete' && suiteBroke(report)) return '⚠️ Incomplete: the suite itself broke';
  return HEADLINE[report.verdict];
}

function countsTable(report: Report): string[] {
  const outcomes = countedOutcomes(report);
  const levels: Level[] = ['MUST', 'SHOULD', 'INFO'];
  return [
    `| Level | ${outcomes.map((outcome) => outcomeLabel(outcome)).join(' | ')} |`,
    `| --- |${outcomes.map(() => ' ---: |').join('')}`,
    ...levels.map((level) => `| ${level} | ${outcomes.map((outcome) => report.counts[level][outcome]).join(' | ')} |`),
  ];
}

function baselineParagraph(report: Report): string[] {
  const b = report.baseline!;
  const lines = [`**Baseline** ${code(b.file)}: ${b.known.length} known failure(s) tolerated.`];
  if (b.unlisted.length > 0) lines.push(`**New failures** (not in the baseline): ${b.unlisted.map(code).join(', ')}.`);
  if (b.nowPassing.length > 0) lines.push(`**Now passing**, remove from the baseline: ${b.nowPassing.map(code).join(', ')}.`);
  if (b.notJudged.length > 0) lines.push(`Not judged in this run: ${b.notJudged.map(code).join(', ')}.`);
  return lines.flatMap((line) => [line, '']).slice(0, -1);
}

function ruleList(title: string, rules: readonly RuleResult[], known: ReadonlySet<string>): string[] {
  if (rules.length === 0) return [];
  const lines = ['', `### ${title} (${rules.length})`, ''];
  for (const rule of rules.slice(0, MAX_LISTED)) {
    const tag = known.has(rule.id) ? ' _(known, in baseline)_' : '';
    const message = rule.evidence.length > 1 ? `: ${byCause(rule)}` : rule.message ? `: ${text(rule.message)}` : '';
    lines.push(`- ${code(rule.id)} ${text(rule.summary)}${message}${tag}`);
  }
  if (rules.length > MAX_LISTED) lines.push(`- … and ${rules.length - MAX_LISTED} more in report.html`);
  return lines;
}

/** Several findings read by cause: "13 findings, one cause: …", not thirteen messages. */
function byCause(rule: RuleResult): string {
  const causes = causesOf(rule.evidence);
  const shown = causes.slice(0, 3).map(({ evidence, count }) => `${count > 1 ? `${count} findings, one cause: ` : ''}${text(evidence.message)}`);
  return `${shown.join('; ')}${causes.length > 3 ? `; and ${causes.length - 3} more causes in report.html` : ''}`;
}

/**
 * Server bytes reach messages: one line, cut, with Markdown and HTML neutralised. Runs of spaces are kept as they
 * are: a finding about spaces ("  Rex" stored as " Rex") must read with them, and Markdown, as HTML, shows a run
 * of spaces as one, so each space after the first of a run is a non-breaking one.
 */
function text(value: string): string {
  const line = visibleControls(value.replace(/[\r\n\t\f\v]+/g, ' ').trim());
  const cut = line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
  return keepSpaces(cut.replace(/[\\`*_[\]<>|~&]/g, '\\$&'));
}

/** Each space after the first of a run as &nbsp;, which Markdown and HTML show as it is. */
function keepSpaces(escaped: string): string {
  return escaped.replace(/ {2,}/g, (run) => ` ${'&nbsp;'.repeat(run.length - 1)}`);
}

/** A code span that no backtick inside the value can close early. */
function code(value: string): string {
  const clean = visibleControls(value.replace(/[\r\n\t\f\v]+/g, ' '));
  const longestRun = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = clean.startsWith('`') || clean.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${clean}${pad}${fence}`;
}
