import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headlineOf, headlineText } from '../../cli/reports/headline.js';
import { toHtml, verdictReason } from '../../cli/reports/html.js';
import { readable } from '../../cli/reports/http-text.js';
import { markdownTables } from '../../cli/reports/markdown.js';
import { quotedParts } from '../../cli/reports/quoted-words.js';
import { evidenceOf } from '../../helpers/judge/outcome.js';
import { specSections } from '../../cli/reports/spec-text.js';
import { HOSTILE_BODY, HOSTILE_SPEC_MARKDOWN, sampleReport } from '../support/sample-report.js';
import { scratchDir } from '../support/scratch.js';

/** The sections of a specification written to a file of its own, as report.html reads the shipped one. */
function specFrom(markdown: string) {
  const file = join(scratchDir('petstore-spec-'), 'spec.md');
  writeFileSync(file, markdown);
  return specSections(file);
}

describe('report.html', () => {
  const page = toHtml(sampleReport());

  it('loads nothing from the network: no external URL in any src, href or stylesheet link', () => {
    const tags = page.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.filter((tag) => /\s(?:src|href|action|srcset)\s*=\s*(?!["']?#)/i.test(tag))).toEqual([]);
    expect(page).not.toMatch(/<link\b/i);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`);
  });

  it('has exactly its own one <script>: markup from the server never becomes an element', () => {
    expect(page.match(/<script\b/gi)).toHaveLength(1);
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<b>exactly</b>');
    expect(page).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(page).toContain('&quot;&gt;&lt;script&gt;window.__pwned=3');
  });

  it('shows control characters and bidi overrides as visible symbols', () => {
    expect(page).not.toMatch(/[\u0007\u202e]/);
    expect(page).toContain('[U+202E]evil\u2407');
  });

  it('masks the date header but keeps the other response headers', () => {
    expect(page).not.toContain('Fri, 02 Jan 2026 03:04:05 GMT');
    expect(page).toMatch(/date: ‹masked: varies per request›/);
    expect(page).toContain('content-type: application/json');
  });

  it('shows a fuzz failure with its seed, shrunk body and replay line', () => {
    expect(page).toContain('Fuzzing seed <strong>424242</strong>');
    expect(page).toContain('{&quot;name&quot;:&quot;a&quot;,&quot;categoryId&quot;:&quot;1&quot;}');
    expect(page).toContain('petstore-conformance --only FUZZ-01 --seed 424242');
  });

  it('shows a failing sequence with its seed, its shrunk commands and its replay script, markup in them escaped', () => {
    const report = sampleReport();
    const fuzz = report.rules.find((rule) => rule.id === 'FUZZ-01')!;
    const script = '# FUZZ-03, sequence repeated-name\ncurl -i -X GET \'http://127.0.0.1:9/v1/pets/5\' -H "Authorization: Bearer $PETSTORE_API_KEY"';
    const counterexample = { seed: 77, path: '0:2', mutation: 'sequence repeated-name', body: '1. create a: name "<b>rex</b>" → 201 id 5\n2. fetch pet a (id 5) → 404', replay: 'petstore-conformance --only FUZZ-03 --seed 77', script };
    const sequence = { ...fuzz, id: 'FUZZ-03', evidence: [{ ...fuzz.evidence[0]!, counterexample }] };
    const withSequence = toHtml({ ...report, rules: [...report.rules, sequence] });
    expect(withSequence).toContain('Fuzzing seed <strong>77</strong>');
    expect(withSequence).toContain('Shrunk command sequence:');
    expect(withSequence).toContain('1. create a: name &quot;&lt;b&gt;rex&lt;/b&gt;&quot; → 201 id 5');
    expect(withSequence).toContain('Replay script');
    expect(withSequence).toContain('-H &quot;Authorization: Bearer $PETSTORE_API_KEY&quot;');
    // A single fuzzed body keeps its own wording.
    expect(page).not.toContain('Replay script');
  });

  it('states each verdict in words, with the reason', () => {
    expect(toHtml(sampleReport({ verdict: 'certified' }))).toContain('<p class="verdict-word" id="verdict">Certified</p>');
    expect(toHtml(sampleReport({ verdict: 'incomplete' }))).toContain('<p class="verdict-word" id="verdict">Incomplete</p>');
    expect(verdictReason(sampleReport())).toBe('2 MUST rules failed.');
    expect(verdictReason(sampleReport({ verdict: 'incomplete' }))).toMatch(/1 rule at MUST level were skipped, so this run cannot certify/);
  });
});

describe('the specification in report.html', () => {
  const page = toHtml(sampleReport());
  const appendix = page.slice(page.indexOf('<section class="spec" id="spec">'));

  it('is rendered from its Markdown: its tables are HTML tables, and no Markdown table row is left', () => {
    expect(appendix).toMatch(/<div class="spec-section" id="spec-resources-and-their-fields-newpet[^"]*"><h3>[^<]*<\/h3><div class="spec-text"><table>\s*<thead>\s*<tr>\s*<th>Field<\/th>/);
    expect(appendix.match(/<table>/g)?.length).toBeGreaterThanOrEqual(5);
    expect(page).not.toMatch(/^\s*\|.*\|\s*$/m);
    expect(page).not.toContain('<pre class="spec-text">');
    // Inline code stays code, and no cell carries a style attribute the page's CSP would refuse.
    expect(appendix).toContain('<code>/v1</code>');
    expect(appendix).not.toMatch(/\sstyle=/);
  });

  it('runs and loads nothing its text holds: a <script>, a javascript: link, an image, an event handler', () => {
    const hostile = toHtml(sampleReport(), specFrom(HOSTILE_SPEC_MARKDOWN));
    const spec = hostile.slice(hostile.indexOf('<section class="spec" id="spec">'));
    expect(hostile.match(/<script\b/gi)).toHaveLength(1);
    expect(spec).toContain('&lt;script&gt;window.__pwned=4&lt;/script&gt;');
    expect(spec).not.toMatch(/href\s*=\s*["']?\s*(javascript|data):/i);
    expect(spec).not.toMatch(/<img\b/i);
    expect(spec).toContain('&lt;img src=x onerror=&quot;window.__pwned=8&quot;&gt;');
    expect(spec).toMatch(/<table>[\s\S]*<th class="align-right">Type<\/th>/);
    expect(spec).toContain('<h3>Endpoints › GET /pets (<code>listPets</code>) &lt;script&gt;window.__pwned=9&lt;/script&gt;</h3>');
  });
});

describe('the headline a failing rule leads with', () => {
  const finding = (what: string, expected: string, seen: string) => evidenceOf({ what, expected, seen, body: '{"message":"limit must be an integer"}' });

  it('states one finding as what was expected and what was seen, without its case, body or request', () => {
    const headline = headlineOf({ evidence: [finding('limit=0', 'a 4xx', '500')] });
    expect(headlineText(headline)).toBe('Expected a 4xx; saw 500.');
  });

  it('states the cause most findings share, and counts the rest instead of joining them', () => {
    const evidence = [finding('limit=0', 'a 4xx', '500'), finding('limit=-1', 'a valid Error body', '/code must be present'), finding('limit=abc', 'a valid Error body', '/code must be present')];
    expect(headlineText(headlineOf({ evidence }))).toBe('Expected a valid Error body; saw /code must be present; and 2 more findings (2 causes in all).');
    expect(headlineText(headlineOf({ evidence: evidence.slice(1) }))).toBe('Expected a valid Error body; saw /code must be present; and 1 more finding (one cause in all).');
  });

  it('reads as the message where no cause was recorded (a check that could not be judged), and cuts a long one', () => {
    expect(headlineText(headlineOf({ message: 'no response (connection reset by the server)', evidence: [] }))).toBe('no response (connection reset by the server).');
    const body = `{"pets":[${'{"id":1,"name":"Rex"},'.repeat(40)}]}`;
    const headline = headlineText(headlineOf({ evidence: [finding('', 'a JSON array of Pet', body)] }));
    expect(headline.length).toBeLessThan(130);
    expect(headline).toMatch(/^Expected a JSON array of Pet; saw \{"pets":\[\{"id":1,.*…$/);
  });

  it('shows in report.html in place of the joined findings, the evidence beneath it in full', () => {
    const report = sampleReport();
    const fuzz = report.rules.find((rule) => rule.id === 'FUZZ-01')!;
    fuzz.evidence = [finding('name-missing', 'a 4xx', '201'), finding('name-null', 'a 4xx', '201')];
    fuzz.message = `2 violations: ${fuzz.evidence.map((item) => item.message).join('; ')}`;
    const page = toHtml(report);
    const article = page.slice(page.indexOf('<article class="rule" id="rule-FUZZ-01"'), page.indexOf('</article>', page.indexOf('id="rule-FUZZ-01"')));
    expect(article).toContain('<p class="headline">Expected a 4xx; saw 201<span class="more-findings">; and 1 more finding (one cause in all)</span>.</p>');
    expect(article).not.toContain('2 violations');
    expect(article).toMatch(/<details class="evidence">[\s\S]*<p>name-missing: expected a 4xx, saw 201<\/p>/);
    expect(page).toContain('<a href="#rule-FUZZ-01">FUZZ-01</a> MUST failed: Expected a 4xx; saw 201; and 1 more finding (one cause in all).</li>');
  });
});

describe('the spec\'s words a rule quotes', () => {
  const tables = markdownTables('| Query parameter | Type | Required | Rules |\n| --- | --- | --- | --- |\n| limit | integer | no | Minimum 1, maximum 100, default 20. Maximum number of animals returned. |\n\n| Status | Body |\n| --- | --- |\n| 201 | Pet, including the assigned `id`. |\n| 400 | Error. |\n');

  it('reads a quoted row of a spec table as a row under the spec\'s header, and the rest as passages', () => {
    expect(quotedParts('Request and response bodies are application/json. | 201 | Pet, including the assigned id. | 400 | Error.', tables)).toEqual([
      { kind: 'passage', text: 'Request and response bodies are application/json.' },
      { kind: 'table', header: ['Status', 'Body'], rows: [['201', 'Pet, including the assigned id.'], ['400', 'Error.']] },
    ]);
  });

  it('keeps as many columns as the quote gives, and a quote that stops inside a cell', () => {
    expect(quotedParts('limit | integer | no', tables)).toEqual([{ kind: 'table', header: ['Query parameter', 'Type', 'Required'], rows: [['limit', 'integer', 'no']] }]);
    expect(quotedParts('limit | integer | no | Minimum 1, maximum 100, default 20.', tables)).toEqual([
      { kind: 'table', header: ['Query parameter', 'Type', 'Required', 'Rules'], rows: [['limit', 'integer', 'no', 'Minimum 1, maximum 100, default 20.']] },
    ]);
  });

  it('leaves words that quote no table as they are', () => {
    expect(quotedParts('Every endpoint requires authentication.', tables)).toEqual([{ kind: 'passage', text: 'Every endpoint requires authentication.' }]);
    expect(quotedParts('limit | Error.', tables)).toEqual([{ kind: 'passage', text: 'limit' }, { kind: 'passage', text: 'Error.' }]);
  });

  it('shows in report.html as a table under the spec\'s header, without a pipe', () => {
    const page = toHtml(sampleReport({ rules: sampleReport().rules.map((rule) => ({ ...rule, section: 'Endpoints › GET /pets', words: 'limit | integer | no | Minimum 1, maximum 100, default 20. Maximum number of animals returned.' })) }));
    const quotes = [...page.matchAll(/<blockquote class="words">([\s\S]*?)<cite>/g)].map(([, quote]) => quote);
    expect(quotes.length).toBeGreaterThan(0);
    for (const quote of quotes) {
      expect(quote).not.toContain('|');
      expect(quote).toContain('<th>Query parameter</th>');
    }
  });
});

describe('a cancelled run in report.html', () => {
  const cancelled = sampleReport({ verdict: 'incomplete', exitCode: 143, cancelled: 'SIGTERM' });

  it('is named cancelled in the header and the title, with the signal, not only incomplete', () => {
    const page = toHtml(cancelled);
    expect(page).toContain('<p class="verdict-word" id="verdict">Incomplete: cancelled (SIGTERM)</p>');
    expect(page).toMatch(/<title>Incomplete: cancelled \(SIGTERM\): /);
    expect(verdictReason(cancelled)).toBe('The run was cancelled (SIGTERM) before it judged every rule, so it cannot certify the server: 1 rule at MUST level were not judged; 2 MUST rules had failed by then.');
  });
});

describe('readable bodies', () => {
  it('indents one-line JSON without changing a single token: int64 and 1.0 stay as sent', () => {
    const body = '{"id":9223372036854775807,"w":1.0,"s":"a,{b}:\\"[c]","e":{},"l":[]}';
    const shown = readable(body);
    expect(shown).toBe('{\n  "id": 9223372036854775807,\n  "w": 1.0,\n  "s": "a,{b}:\\"[c]",\n  "e": {},\n  "l": []\n}');
    expect(shown.replace(/\s+/g, '')).toBe(body.replace(/\s+/g, ''));
  });

  it('leaves anything that is not JSON exactly as it came', () => {
    expect(readable(HOSTILE_BODY.slice(0, 20))).toBe(HOSTILE_BODY.slice(0, 20));
    expect(readable('<html>oops</html>')).toBe('<html>oops</html>');
  });
});
