import { loadCatalog, type Level } from '../../helpers/spec/catalog.js';
import { AREA_ORDER } from '../../helpers/spec/facts.js';
import type { Evidence, ExchangeEvidence, Outcome } from '../../helpers/judge/outcome.js';
import { causesOf, countedOutcomes, isFailing, isObservation, isOurBug, isProblem, OUTCOMES, outcomeLabel, sharedCauses, suiteBroke } from '../../helpers/judge/outcome-meaning.js';
import { SUITE_BUG_NOTICE, waitsText, type Report, type RuleResult } from './report.js';
import { specSections, specAnchorFor, type SpecSection } from './spec-text.js';
import { CONTENT_SECURITY_POLICY, SCRIPT, STYLE } from './html-assets.js';
import { requestText, responseText } from './http-text.js';
import { headlineOf, headlineText, fullStop } from './headline.js';
import { markdownHtml, markdownInlineHtml, markdownTables, type MarkdownTable } from './markdown.js';
import { quotedParts } from './quoted-words.js';
import { html, trusted, type SafeHtml } from './safe-html.js';

// One piece of evidence can carry hundreds of exchanges (a fuzz run); the first few tell the story,
// exchanges.har has them all.
const EXCHANGES_SHOWN = 5;

const VERDICT_WORD: Record<Report['verdict'], string> = { certified: 'Certified', 'not-certified': 'Not certified', incomplete: 'Incomplete', 'not-judged': 'Not judged' };
const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];

/** report.html: one self-contained page, readable offline, on a phone and on paper. The spec is the shipped one. */
export function toHtml(report: Report, spec: readonly SpecSection[] = specSections()): string {
  const title = `${verdictWord(report)}: ${report.target.baseUrl} · Pet Store conformance`;
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${trusted(STYLE)}</style>
</head>
<body>
<div class="page">
${verdictHeader(report)}
<main>
${diagnosisNotice(report)}
${countsTable(report)}
${baselineNotice(report)}
${suiteErrorNotice(report)}
${toFixList(report)}
${optionsTable(report)}
${filters(report)}
${areaSections(report, spec)}
${specAppendix(report, spec)}
</main>
<footer>${report.tool.name} ${report.tool.version} · run ${report.runId} · every request of the run is in exchanges.har, every detail in report.json</footer>
</div>
<script>${trusted(SCRIPT)}</script>
</body>
</html>
`;
  return page.markup;
}

function verdictHeader(report: Report): SafeHtml {
  const facts: Array<[string, string]> = [
    ['Date', `${report.startedAt.slice(0, 19).replace('T', ' ')} UTC`],
    ['Duration', `${(report.durationMs / 1000).toFixed(1)} s`],
    ['Suite', `${report.tool.name} ${report.tool.version}`],
    ['Specification', `Pet Store interface ${report.specVersion}`],
    ['Requests', String(report.requests.total)],
    ['Pets created', `${report.created.count}${report.created.reused ? ` (${report.created.reused.length} ${report.created.reused.length === 1 ? 'ID' : 'IDs'} given to more than one create)` : ''}`],
    ['Run', report.runId],
  ];
  if (report.rateLimitWaits && report.rateLimitWaits.count > 0) facts.push(['Rate-limit waits', waitsText(report).replace(/^, /, '')]);
  if (report.options.seed !== undefined) facts.push(['Fuzzing seed', String(report.options.seed)]);
  return html`<header class="verdict verdict-${report.verdict}">
<p class="verdict-word" id="verdict">${verdictWord(report)}</p>
<p class="verdict-why">${verdictReason(report)}</p>
<h1 class="target">${report.target.baseUrl}${report.target.embedded ? ' (bundled reference server)' : ''}</h1>
<dl class="facts">${facts.map(([name, value]) => html`<div><dt>${name}</dt><dd>${value}</dd></div>`)}</dl>
</header>`;
}

/** The verdict in a word or two: a cancelled run says so, not only that it is incomplete. */
export function verdictWord(report: Report): string {
  return report.cancelled ? `Incomplete: cancelled (${report.cancelled})` : VERDICT_WORD[report.verdict];
}

/** The verdict in one sentence a vendor can act on. */
export function verdictReason(report: Report): string {
  const strict = report.options.strict === true;
  const count = (level: Level, outcome: Outcome) => report.counts[level][outcome];
  const failing = (level: Level) => OUTCOMES.filter(isFailing).reduce((sum, outcome) => sum + count(level, outcome), 0);
  const rules = (n: number) => `${n} ${n === 1 ? 'rule' : 'rules'}`;
  if (report.verdict === 'certified') {
    const outOfReach = count('MUST', 'not-applicable');
    const beside = outOfReach > 0 ? `; ${rules(outOfReach)} no run could judge on this target, each with the reason` : '';
    return `Every MUST rule${strict ? ' and every SHOULD rule' : ''} checked holds (${rules(count('MUST', 'passed'))} passed${beside}).`;
  }
  if (report.verdict === 'not-judged') {
    return `The target cannot be judged: ${report.diagnosis?.problem ?? 'its answers show a wrong base URL or key'}.`;
  }
  if (report.cancelled) {
    const failed = count('MUST', 'failed');
    const before = failed > 0 ? `; ${failed} MUST ${failed === 1 ? 'rule' : 'rules'} had failed by then` : '';
    return `The run was cancelled (${report.cancelled}) before it judged every rule, so it cannot certify the server: ${rules(count('MUST', 'skipped'))} at MUST level were not judged${before}.`;
  }
  if (report.verdict === 'incomplete' && suiteBroke(report)) {
    return 'No MUST rule failed, but the suite itself broke, so this run cannot certify the server.';
  }
  if (report.verdict === 'incomplete') {
    return `No MUST rule failed, but ${rules(count('MUST', 'skipped'))} at MUST level were skipped, so this run cannot certify the server.`;
  }
  const parts = [`${count('MUST', 'failed')} MUST ${count('MUST', 'failed') === 1 ? 'rule' : 'rules'} failed`];
  if (count('MUST', 'errored') > 0) parts.push(`${rules(count('MUST', 'errored'))} at MUST level could not be judged`);
  if (strict && failing('SHOULD') > 0) parts.push(`${rules(failing('SHOULD'))} at SHOULD level did not hold (--strict)`);
  if (report.suiteErrors.length > 0) parts.push('the suite itself broke');
  return `${parts.join('; ')}.`;
}

function countsTable(report: Report): SafeHtml {
  const outcomes = countedOutcomes(report);
  return html`<table class="counts" aria-label="Rules by level and outcome">
<thead><tr><th>Level</th>${outcomes.map((outcome) => html`<th>${outcomeLabel(outcome)}</th>`)}</tr></thead>
<tbody>${LEVELS.map((level) => html`<tr><td>${level}</td>${outcomes.map((outcome) => html`<td>${report.counts[level][outcome]}</td>`)}</tr>`)}</tbody>
</table>`;
}

/** Why the run stopped before judging, and what to change: above everything else. */
function diagnosisNotice(report: Report): SafeHtml | undefined {
  const diagnosis = report.diagnosis;
  if (!diagnosis) return undefined;
  return html`<section class="notice diagnosis" id="diagnosis"><h2>The target cannot be judged</h2>
<p>${diagnosis.problem}.</p>
<p><strong>What to change:</strong> ${diagnosis.hint}</p>
${diagnosis.exchange ? exchangeBlock(diagnosis.exchange) : ''}
</section>`;
}

function baselineNotice(report: Report): SafeHtml | undefined {
  const baseline = report.baseline;
  if (!baseline) return undefined;
  const ids = (list: string[]) => list.map((id, i) => html`${i > 0 ? ', ' : ''}<a href="#rule-${id}">${id}</a>`);
  return html`<section class="notice baseline"><h2>Baseline ${baseline.file}</h2><ul>
<li>${baseline.known.length} known failure(s) tolerated${baseline.known.length > 0 ? html`: ${ids(baseline.known)}` : ''}</li>
${baseline.unlisted.length > 0 ? html`<li><strong>New failures, not in the baseline:</strong> ${ids(baseline.unlisted)}</li>` : ''}
${baseline.nowPassing.length > 0 ? html`<li><strong>Now passing, remove them from the baseline:</strong> ${ids(baseline.nowPassing)}</li>` : ''}
${baseline.notJudged.length > 0 ? html`<li>Not judged in this run: ${ids(baseline.notJudged)}</li>` : ''}
</ul></section>`;
}

function suiteErrorNotice(report: Report): SafeHtml | undefined {
  if (!suiteBroke(report)) return undefined;
  const broken = report.rules.filter((rule) => isOurBug(rule.status));
  return html`<section class="notice suite-errors"><h2>The suite itself broke</h2><p>${SUITE_BUG_NOTICE}</p><ul>${broken.map((rule) => html`<li><a href="#rule-${rule.id}">${rule.id}</a>: <code>${rule.message ?? ''}</code></li>`)}${report.suiteErrors.map((error) => html`<li><code>${error}</code></li>`)}</ul></section>`;
}

function toFixList(report: Report): SafeHtml | undefined {
  const problems = report.rules.filter((rule) => isProblem(rule.status));
  if (problems.length === 0) return undefined;
  const shared = sharedCauses(report.rules);
  // A failure the baseline lists is marked where it is listed, as on its own card: new ones stand apart from it.
  const known = new Set(report.baseline?.known ?? []);
  return html`<section class="notice to-fix"><h2>${problems.length} ${problems.length === 1 ? 'rule' : 'rules'} to look at</h2>
${shared.length > 0 ? html`<h3>One cause, several rules</h3><ul class="shared-causes">${shared.map((cause) => html`<li>${cause.rules.length} rules (${cause.rules.map((id, i) => html`${i > 0 ? ', ' : ''}<a href="#rule-${id}">${id}</a>`)}): ${cause.statement}</li>`)}</ul><h3>By rule</h3>` : ''}<ul class="by-rule">
${problems.map((rule) => html`<li><a href="#rule-${rule.id}">${rule.id}</a> ${rule.level} ${outcomeLabel(rule.status).toLowerCase()}: ${headlineText(headlineOf(rule))}${known.has(rule.id) ? html` <span class="badge outcome-known">known, in baseline</span>` : ''}</li>`)}
</ul></section>`;
}

function optionsTable(report: Report): SafeHtml {
  const rows = Object.entries(report.options).filter(([, value]) => value !== undefined);
  return html`<details class="options"><summary>Options of the run</summary><table>
${rows.map(([name, value]) => html`<tr><th>${name}</th><td><code>${optionValue(value)}</code></td></tr>`)}
</table></details>`;
}

function optionValue(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.join(', ');
  if (value === null) return '(none)';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function filters(report: Report): SafeHtml {
  const count = (predicate: (rule: RuleResult) => boolean) => report.rules.filter(predicate).length;
  const choices: Array<[string, string, number]> = [
    ['all', 'All', report.rules.length],
    ['failed', 'Failed or errored', count((rule) => isProblem(rule.status))],
    ['skipped', outcomeLabel('skipped'), count((rule) => rule.status === 'skipped')],
    ['passed', outcomeLabel('passed'), count((rule) => rule.status === 'passed')],
    // Only in a run that has one: a filter of nothing is noise.
    ...(report.rules.some((rule) => rule.status === 'not-applicable') ? [['not-applicable', outcomeLabel('not-applicable'), count((rule) => rule.status === 'not-applicable')] as [string, string, number]] : []),
  ];
  return html`<form class="filters" aria-label="Filter the rules">
<fieldset><legend>Show</legend>${choices.map(([value, label, n], index) => html`<label><input type="radio" name="show" value="${value}"${index === 0 ? trusted(' checked') : ''}> ${label} (${n})</label>`)}</fieldset>
<fieldset><legend>Level</legend>${LEVELS.map((level) => html`<label><input type="checkbox" name="level" value="${level}" checked> ${level}</label>`)}</fieldset>
<output></output>
</form>`;
}

function areaSections(report: Report, spec: readonly SpecSection[]): SafeHtml[] {
  const titles = loadCatalog().areas as Record<string, string>;
  const present = [...new Set(report.rules.map((rule) => rule.area))];
  const tables = new Map(spec.map((section) => [section.anchor, markdownTables(section.text)]));
  const ordered = [...AREA_ORDER.filter((area) => present.includes(area)), ...present.filter((area) => !AREA_ORDER.includes(area))];
  return ordered.map((area) => html`<section class="area" id="area-${area}">
<h2>${titles[area] ?? area} <span class="area-key">${area}</span></h2>
${report.rules.filter((rule) => rule.area === area).map((rule) => ruleArticle(rule, report, spec, tables))}
</section>`);
}

function ruleArticle(rule: RuleResult, report: Report, spec: readonly SpecSection[], tables: ReadonlyMap<string, MarkdownTable[]>): SafeHtml {
  const known = report.baseline?.known.includes(rule.id) ?? false;
  const outcomeClass = isObservation(rule.status, rule.level) ? 'info' : rule.status;
  const outcomeWord = outcomeLabel(rule.status, rule.level);
  // A rule to look at leads with its headline; a skipped one states its reason as it always has.
  const showMessage = rule.message && rule.status !== 'passed' && !isProblem(rule.status);
  return html`<article class="rule" id="rule-${rule.id}" data-status="${rule.status}" data-level="${rule.level}">
<div class="rule-head"><span class="badge outcome-${outcomeClass}">${outcomeWord}</span><span class="badge level">${rule.level}</span>${known ? html`<span class="badge outcome-known">known, in baseline</span>` : ''}<code class="rule-id">${rule.id}</code><span class="rule-summary">${rule.summary}</span></div>
${isProblem(rule.status) ? headlineParagraph(rule) : ''}${showMessage ? html`<p class="message">${rule.message}</p>` : ''}
${rule.observations.length > 0 ? html`<ul class="observations">${rule.observations.map((note) => html`<li>${note}</li>`)}</ul>` : ''}
<blockquote class="words">${quotedWords(rule, spec, tables)}<cite>${sectionLink(rule, spec)} · ${rule.source}</cite></blockquote>
${rule.evidence.length > 0 && isProblem(rule.status) ? evidenceDetails(rule) : ''}
${rule.requests > 0 ? html`<p class="meta">${rule.requests} ${rule.requests === 1 ? 'request' : 'requests'}, ${rule.durationMs} ms</p>` : ''}
</article>`;
}

/** What a failing rule leads with: what was expected and what was seen, in one sentence; the evidence follows folded. */
function headlineParagraph(rule: RuleResult): SafeHtml {
  const { statement, more } = headlineOf(rule);
  return html`<p class="headline">${statement}${more ? html`<span class="more-findings">; ${more}</span>` : ''}${fullStop(more ?? statement)}</p>`;
}

/**
 * The spec's words the rule quotes: a passage as a quotation, and a quoted row of a spec table as a small table under
 * the spec's own header, rather than its cells strung together with pipes.
 */
function quotedWords(rule: RuleResult, spec: readonly SpecSection[], tables: ReadonlyMap<string, MarkdownTable[]>): SafeHtml {
  const own = specAnchorFor(rule.section, spec);
  const ordered = [...(own ? tables.get(own) ?? [] : []), ...[...tables].filter(([anchor]) => anchor !== own).flatMap(([, list]) => list)];
  const parts = quotedParts(rule.words, ordered);
  if (parts.length === 1 && parts[0]!.kind === 'passage') return html`“${parts[0]!.text}”`;
  return html`${parts.map((part) => part.kind === 'passage'
    ? html`<p>“${part.text}”</p>`
    : html`<table class="quoted-table"><thead><tr>${part.header.map((cell) => html`<th>${cell}</th>`)}</tr></thead><tbody>${part.rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table>`)}`;
}

/** A rule's findings by cause: one representative each, with how many findings share it. */
function evidenceDetails(rule: RuleResult): SafeHtml {
  const exchanges = rule.evidence.reduce((sum, evidence) => sum + evidence.exchanges.length, 0);
  const causes = causesOf(rule.evidence);
  const findings = rule.evidence.length === 1 ? 'one finding' : `${rule.evidence.length} findings`;
  const byCause = rule.evidence.length > 1 ? `, ${causes.length === 1 ? 'one cause' : `${causes.length} causes`}` : '';
  const label = `Evidence: ${findings}${byCause}${exchanges > 0 ? `, ${exchanges} ${exchanges === 1 ? 'exchange' : 'exchanges'}` : ''}`;
  return html`<details class="evidence"><summary>${label}</summary>
${causes.map(({ evidence, count }) => html`${count > 1 ? html`<p class="cause-count">${count} findings share this cause (same expected, same seen); the first is shown, every exchange is in exchanges.har.</p>` : ''}${evidenceItem(evidence)}`)}
</details>`;
}

/** One cause's representative in full: its whole message (the case, the exchanges), since the headline shortens it. */
function evidenceItem(evidence: Evidence): SafeHtml {
  const shown = evidence.exchanges.slice(0, EXCHANGES_SHOWN);
  const hidden = evidence.exchanges.slice(EXCHANGES_SHOWN);
  const example = evidence.counterexample;
  return html`<div class="evidence-item">
<p>${evidence.message}</p>
${evidence.expected !== undefined || evidence.seen !== undefined ? html`<dl class="expected-seen">
<dt>Expected</dt><dd><pre>${evidence.expected ?? '(not stated)'}</pre></dd>
<dt>Seen</dt><dd><pre>${evidence.seen ?? '(not stated)'}</pre></dd>
</dl>` : ''}
${example ? html`<div class="counterexample">
<p class="exchange-part">Fuzzing seed <strong>${example.seed}</strong>${example.mutation ? html`, ${example.script === undefined ? 'mutation ' : ''}<code>${example.mutation}</code>` : ''}${example.path ? html` (fast-check counterexample path <code>${example.path}</code>)` : ''}. ${example.script === undefined ? 'Shrunk body:' : 'Shrunk command sequence:'}</p>
<pre>${example.body}</pre>
<p class="exchange-part">Replay</p>
<pre>${example.replay}</pre>
${example.script === undefined ? '' : html`<p class="exchange-part">Replay script (one curl line per command, the key left as $PETSTORE_API_KEY)</p>
<pre class="replay-script">${example.script}</pre>`}
</div>` : ''}
${shown.map(exchangeBlock)}
${hidden.length > 0 ? html`<p class="more">${hidden.length} more ${hidden.length === 1 ? 'exchange' : 'exchanges'} (requests ${hidden.map((item) => `#${item.exchange.seq}`).join(', ')}) in exchanges.har.</p>` : ''}
</div>`;
}

function exchangeBlock({ exchange, curl }: ExchangeEvidence): SafeHtml {
  const url = safeUrl(exchange.request.url);
  const outcome = exchange.response ? String(exchange.response.status) : `no response (${exchange.error ?? 'unknown'})`;
  return html`<div class="exchange">
<h4>Request #${exchange.seq}: ${exchange.request.method} ${url} → ${outcome} <span class="more">${exchange.durationMs} ms</span></h4>
<p class="exchange-part">Request</p>
<pre class="http-request">${requestText(exchange.request)}</pre>
<p class="exchange-part">Response</p>
<pre class="http-response">${exchange.response ? responseText(exchange.response) : `(none: ${exchange.error ?? 'unknown'})`}</pre>
<p class="exchange-part">Reproduce (export PETSTORE_API_KEY first)</p>
<pre class="curl">${curl}</pre>
</div>`;
}

/** The rule's section, linked to its place in the specification printed at the end of the page. */
function sectionLink(rule: RuleResult, spec: readonly SpecSection[]): SafeHtml | string {
  const anchor = specAnchorFor(rule.section, spec);
  return anchor ? html`<a href="#${anchor}">${rule.section}</a>` : rule.section;
}

/** The specification the rules cite, rendered from its Markdown, so each rule's section link lands on the text itself, offline. */
function specAppendix(report: Report, spec: readonly SpecSection[]): SafeHtml | undefined {
  if (spec.length === 0) return undefined;
  return html`<section class="spec" id="spec"><h2>The specification: Pet Store interface ${report.specVersion}</h2>
${spec.map((section) => html`<div class="spec-section" id="${section.anchor}"><h3>${section.path.map((part, i) => html`${i > 0 ? ' › ' : ''}${markdownInlineHtml(part)}`)}</h3>${section.text.trim() ? html`<div class="spec-text">${markdownHtml(section.text)}</div>` : ''}</div>`)}
</section>`;
}

function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}
