import { createHash } from 'node:crypto';
import { isProblem, OUTCOMES } from '../../helpers/judge/outcome-meaning.js';

// The page's only CSS and script. The Content-Security-Policy admits exactly these by hash, so even
// markup that slipped past escaping could neither run a script nor load anything from the network.

export const STYLE = `
:root {
  --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --line: #d1d9e0;
  --pass: #1a7f37; --fail: #cf222e; --error: #9a3412; --skip: #59636e; --info: #0969da;
  --pass-bg: #dafbe1; --fail-bg: #ffebe9; --error-bg: #fff1e5; --skip-bg: #eff2f5; --info-bg: #ddf4ff;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --line: #3d444d;
    --pass: #3fb950; --fail: #f85149; --error: #f0883e; --skip: #9198a1; --info: #58a6ff;
    --pass-bg: #12261e; --fail-bg: #2d1214; --error-bg: #2b1a0e; --skip-bg: #1f242c; --info-bg: #0c2d4a;
  }
}
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.page { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1, h2, h3, h4 { line-height: 1.25; }
code, pre, .rule-id { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.875rem; }
pre { margin: 0.25rem 0 0.75rem; padding: 0.75rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 32rem; overflow: auto; }
a { color: var(--info); }

.verdict { border-left: 0.5rem solid var(--skip); background: var(--skip-bg); padding: 1rem 1.25rem; border-radius: 6px; }
.verdict-certified { border-color: var(--pass); background: var(--pass-bg); }
.verdict-not-certified { border-color: var(--fail); background: var(--fail-bg); }
.verdict-incomplete { border-color: var(--error); background: var(--error-bg); }
.verdict-not-judged { border-color: var(--error); background: var(--error-bg); }
.verdict-word { margin: 0; font-size: 2rem; font-weight: 700; }
.verdict-certified .verdict-word { color: var(--pass); }
.verdict-not-certified .verdict-word { color: var(--fail); }
.verdict-incomplete .verdict-word { color: var(--error); }
.verdict-not-judged .verdict-word { color: var(--error); }
.verdict-why { margin: 0.25rem 0 0.75rem; }
.target { margin: 0 0 0.75rem; font-size: 1.125rem; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); gap: 0.25rem 1.5rem; margin: 0; }
.facts div { min-width: 0; }
.facts dt { color: var(--muted); font-size: 0.8125rem; }
.facts dd { margin: 0; overflow-wrap: anywhere; }

.counts { border-collapse: collapse; margin: 1.5rem 0 1rem; font-variant-numeric: tabular-nums; }
.counts th, .counts td { padding: 0.25rem 0.75rem; border-bottom: 1px solid var(--line); text-align: right; }
.counts th:first-child, .counts td:first-child { text-align: left; }
.notice { padding: 0.75rem 1rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); margin: 1rem 0; }
.notice h2 { font-size: 1rem; margin: 0 0 0.5rem; }
.notice ul { margin: 0; padding-left: 1.25rem; }
/* A headline quotes what a server sent (a URL, a JSON body): it breaks anywhere rather than widen the page. */
.notice li { overflow-wrap: anywhere; }
.to-fix a { font-family: ui-monospace, Menlo, Consolas, monospace; white-space: nowrap; }
.to-fix h3 { font-size: 0.875rem; margin: 0.5rem 0 0.25rem; }
.notice.diagnosis { border-color: var(--error); background: var(--error-bg); }
.cause-count { font-weight: 600; margin: 0.5rem 0 0; }
.spec-section h3 { font-size: 0.9375rem; margin: 1rem 0 0.25rem; }
.spec-text p, .spec-text ul, .spec-text ol { margin: 0.25rem 0 0.75rem; }
/* A wide table scrolls inside itself, so a phone's page never does. */
.spec-text table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; margin: 0.25rem 0 0.75rem; }
.spec-text th, .spec-text td { border: 1px solid var(--line); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
.spec-text th { background: var(--panel); }
.spec-text .align-center { text-align: center; }
.spec-text .align-right { text-align: right; }

details.options > summary, details.evidence > summary { cursor: pointer; color: var(--info); }
.options table { border-collapse: collapse; margin: 0.5rem 0; }
.options th, .options td { text-align: left; padding: 0.125rem 1rem 0.125rem 0; vertical-align: top; overflow-wrap: anywhere; }
.options th { font-weight: 600; white-space: nowrap; }

.filters { display: none; position: sticky; top: 0; z-index: 1; background: var(--bg); border-bottom: 1px solid var(--line);
  padding: 0.5rem 0; margin: 1rem 0; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; }
.js .filters { display: flex; }
.filters fieldset { border: 0; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; align-items: center; }
.filters legend { float: left; margin-right: 0.5rem; color: var(--muted); font-size: 0.875rem; }
.filters label { white-space: nowrap; }
.filters output { color: var(--muted); font-size: 0.875rem; }

.area h2 { margin: 2rem 0 0.5rem; padding-bottom: 0.25rem; border-bottom: 2px solid var(--line); font-size: 1.25rem; }
.area-key { color: var(--muted); font-weight: 400; font-size: 0.875rem; }
.rule { padding: 0.75rem 0; border-bottom: 1px solid var(--line); scroll-margin-top: 4rem; }
.rule-head { display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; align-items: baseline; }
.rule-id { font-weight: 700; }
.rule-summary { flex: 1 1 20rem; min-width: 0; }
.badge { display: inline-block; padding: 0 0.5rem; border-radius: 1rem; font-size: 0.75rem; font-weight: 600; letter-spacing: 0.02em; text-transform: uppercase; border: 1px solid currentColor; white-space: nowrap; }
.outcome-passed { color: var(--pass); background: var(--pass-bg); }
.outcome-failed { color: var(--fail); background: var(--fail-bg); }
.outcome-errored, .outcome-suite-error { color: var(--error); background: var(--error-bg); }
.outcome-skipped, .outcome-not-applicable { color: var(--skip); background: var(--skip-bg); }
.outcome-info { color: var(--info); background: var(--info-bg); }
.outcome-known { color: var(--muted); background: var(--panel); }
.level { color: var(--muted); background: transparent; }
.message { margin: 0.375rem 0; overflow-wrap: anywhere; }
.headline { margin: 0.375rem 0; font-weight: 600; overflow-wrap: anywhere; }
.rule[data-status=failed] .headline { border-left: 3px solid var(--fail); padding-left: 0.5rem; }
.rule[data-status=errored] .headline, .rule[data-status=suite-error] .headline { border-left: 3px solid var(--error); padding-left: 0.5rem; }
.more-findings { font-weight: 400; color: var(--muted); }
.words { margin: 0.375rem 0; padding: 0 0 0 0.75rem; border-left: 3px solid var(--line); color: var(--muted); font-size: 0.9375rem; overflow-wrap: anywhere; }
.words p { margin: 0 0 0.25rem; }
/* A quoted row of a spec table, under the spec's header; on a phone it scrolls inside itself. */
.quoted-table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; margin: 0.25rem 0; font-size: 0.875rem; }
.quoted-table th, .quoted-table td { border: 1px solid var(--line); padding: 0.125rem 0.5rem; text-align: left; vertical-align: top; }
.quoted-table th { font-weight: 600; }
.words cite { display: block; font-style: normal; font-size: 0.8125rem; }
.observations { margin: 0.375rem 0; padding-left: 1.25rem; color: var(--muted); font-size: 0.9375rem; overflow-wrap: anywhere; }
.evidence { margin-top: 0.5rem; }
.evidence-item { margin: 0.5rem 0 1rem; padding-left: 0.75rem; border-left: 3px solid var(--fail); }
.rule[data-status=errored] .evidence-item, .rule[data-status=suite-error] .evidence-item { border-left-color: var(--error); }
.evidence-item > p { margin: 0.25rem 0; font-weight: 600; overflow-wrap: anywhere; }
.expected-seen { display: grid; grid-template-columns: max-content 1fr; gap: 0.125rem 0.75rem; margin: 0.5rem 0; }
.expected-seen dt { color: var(--muted); }
.expected-seen dd { margin: 0; min-width: 0; }
.expected-seen pre { margin: 0; padding: 0.25rem 0.5rem; max-height: 12rem; }
.exchange h4 { margin: 0.75rem 0 0.25rem; font-size: 0.9375rem; overflow-wrap: anywhere; }
.exchange-part { margin: 0.5rem 0 0; color: var(--muted); font-size: 0.8125rem; }
.more { color: var(--muted); font-size: 0.875rem; }
.meta { color: var(--muted); font-size: 0.8125rem; margin: 0.25rem 0 0; }
footer { margin: 2rem 0 1rem; color: var(--muted); font-size: 0.8125rem; }

@media (max-width: 40rem) {
  .page { padding: 0.75rem; }
  .verdict-word { font-size: 1.5rem; }
  .facts { grid-template-columns: 1fr 1fr; }
  .counts { width: 100%; font-size: 0.875rem; }
  .counts th, .counts td { padding: 0.25rem 0.25rem; }
  .facts dd { font-size: 0.9375rem; }
  /* Two wrapped lines of sticky filters would cover a third of a phone screen. */
  .filters { position: static; }
  pre { font-size: 0.8125rem; padding: 0.5rem; }
  .expected-seen { grid-template-columns: 1fr; }
}
@media print {
  :root { --fg: #000; --bg: #fff; --panel: #fff; color-scheme: light; }
  body { font-size: 11pt; }
  .page { max-width: none; padding: 0; }
  .filters, .to-fix { display: none !important; }
  details::details-content { content-visibility: visible; display: block; }
  details > summary, details.options > summary, details.evidence > summary { list-style: none; color: var(--fg); font-weight: 600; }
  pre { max-height: none; overflow: visible; border-color: #999; }
  .rule-head, .exchange h4 { break-after: avoid; }
  .verdict, .badge { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
`;

export const SCRIPT = `
(() => {
  document.documentElement.classList.add('js');
  const form = document.querySelector('.filters');
  const rules = [...document.querySelectorAll('.rule')];
  const areas = [...document.querySelectorAll('.area')];
  const problems = new Set([${OUTCOMES.filter(isProblem).map((outcome) => `'${outcome}'`).join(', ')}]);
  function apply() {
    const show = form.elements.show.value;
    const levels = new Set([...form.querySelectorAll('input[name=level]:checked')].map((input) => input.value));
    let shown = 0;
    for (const rule of rules) {
      const status = rule.dataset.status;
      const byOutcome = show === 'all' || (show === 'failed' ? problems.has(status) : status === show);
      rule.hidden = !(byOutcome && levels.has(rule.dataset.level));
      if (!rule.hidden) shown += 1;
    }
    for (const area of areas) area.hidden = !area.querySelector('.rule:not([hidden])');
    form.querySelector('output').textContent = shown + ' of ' + rules.length + ' rules shown';
  }
  form.addEventListener('change', apply);
  form.addEventListener('submit', (event) => event.preventDefault());
  // A link to a rule (from the "to fix" list, or shared as a URL) shows it with its evidence open.
  function openLinkedRule() {
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target || !target.classList.contains('rule')) return;
    if (target.hidden) { form.reset(); apply(); }
    const evidence = target.querySelector('details.evidence');
    if (evidence) evidence.open = true;
    target.scrollIntoView();
  }
  window.addEventListener('hashchange', openLinkedRule);
  // Printing shows every piece of evidence; the reader's open/closed choices come back afterwards.
  let closed = [];
  window.addEventListener('beforeprint', () => {
    closed = [...document.querySelectorAll('details:not([open])')];
    for (const details of closed) details.open = true;
  });
  window.addEventListener('afterprint', () => {
    for (const details of closed) details.open = false;
  });
  apply();
  openLinkedRule();
})();
`;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src '${sha256(STYLE)}'`,
  `script-src '${sha256(SCRIPT)}'`,
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}
