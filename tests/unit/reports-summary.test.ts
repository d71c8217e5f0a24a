import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { toSummaryMarkdown } from '../../cli/reports/summary-md.js';
import { sampleReport } from '../support/sample-report.js';

describe('summary.md', () => {
  it('puts each failed and each errored rule on one line with its ID', () => {
    const lines = toSummaryMarkdown(sampleReport()).split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toEqual([
      '- `CREATE-03` MUST do what CREATE-03 says: name was not echoed \\<b\\>exactly\\</b\\>',
      '- `FUZZ-01` MUST do what FUZZ-01 says: an invalid body was accepted with 201',
      '- `AUTH-06` SHOULD do what AUTH-06 says: no response (connection reset by the server)',
    ]);
  });

  it('neutralises Markdown and HTML a server put in a message, and keeps it on one line', () => {
    const report = sampleReport();
    report.rules[1]!.message = 'saw `x` | *y* [link](http://evil.example)\n<img src=x>';
    const line = toSummaryMarkdown(report).split('\n').find((candidate) => candidate.startsWith('- `CREATE-03`'))!;
    expect(line).toBe('- `CREATE-03` MUST do what CREATE-03 says: saw \\`x\\` \\| \\*y\\* \\[link\\](http://evil.example) \\<img src=x\\>');
  });

  it('keeps the spaces of a finding about spaces, as the rendered page shows them', () => {
    // A name whose spaces the server changed: two leading spaces and a double space inside, stored as one each.
    const report = sampleReport();
    report.rules[1]!.message = 'name: expected "  Rex  the  dog", saw " Rex the dog"';
    const line = toSummaryMarkdown(report).split('\n').find((candidate) => candidate.startsWith('- `CREATE-03`'))!;
    // What a reader sees: the HTML Markdown gives, with its runs of plain spaces shown as one, as a browser shows them.
    const shown = new MarkdownIt().renderInline(line).replace(/<[^>]+>/g, '').replace(/&quot;/g, '"')
      .replace(/ +/g, ' ').replace(/\u00a0|&nbsp;/g, ' ');
    expect(shown).toContain('expected "  Rex  the  dog", saw " Rex the dog"');
  });

  it('marks failures the baseline knows, and says what the baseline asks for', () => {
    const summary = toSummaryMarkdown(sampleReport({ baseline: { file: 'b.txt', known: ['CREATE-03'], nowPassing: ['LIST-01'], notJudged: [], unlisted: ['FUZZ-01'] } }));
    expect(summary).toContain('- `CREATE-03` MUST do what CREATE-03 says: name was not echoed \\<b\\>exactly\\</b\\> _(known, in baseline)_');
    expect(summary).toContain('**New failures** (not in the baseline): `FUZZ-01`.');
    expect(summary).toContain('**Now passing**, remove from the baseline: `LIST-01`.');
  });

  it('opens with the verdict, for each verdict', () => {
    expect(toSummaryMarkdown(sampleReport({ verdict: 'certified' }))).toMatch(/^## ✅ Certified: `http:\/\/127\.0\.0\.1:9\/v1`\n/);
    expect(toSummaryMarkdown(sampleReport({ verdict: 'incomplete' }))).toMatch(/^## ⚠️ Incomplete: MUST rules were skipped: `/);
  });

  it('names a cancelled run as cancelled, with the signal', () => {
    const summary = toSummaryMarkdown(sampleReport({ verdict: 'incomplete', exitCode: 143, cancelled: 'SIGINT' }));
    expect(summary).toMatch(/^## ⚠️ Incomplete: the run was cancelled \(SIGINT\) before it judged every rule: `http:\/\/127\.0\.0\.1:9\/v1`\n/);
  });
});
