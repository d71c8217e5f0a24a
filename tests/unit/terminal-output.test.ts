// What a person reads at the end of a run: by default the verdict, the counts and one headline per failing rule,
// each line one line however many lines the target's body had; --verbose every finding; colour only where asked.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { compactSummaryText, oneLine, summaryText, verdictLine } from '../../cli/terminal.js';
import { paint, wantsColour } from '../../cli/colour.js';
import { countsOf, type Report, type RuleResult } from '../../cli/reports/report.js';
import { activeRules } from '../../helpers/spec/catalog.js';
import { resolveRunOptions } from '../../cli/resolve-options.js';
import { sampleReport } from '../support/sample-report.js';

const HTML_PAGE = '<!DOCTYPE html>\n<html lang="en">\n<head>\n\t<title>Error</title>\n</head>\n<body><pre>Cannot GET /v1/pets/abc</pre></body>\n</html>\n';

/** A report of the real catalog: the first `failing` MUST rules fail, one with an HTML body, one with three findings. */
function catalogReport(failing: number, overrides: Partial<Report> = {}): Report {
  const rules: RuleResult[] = activeRules().map((rule, index) => {
    const fails = rule.level === 'MUST' && activeRules().filter((each) => each.level === 'MUST').indexOf(rule) < failing;
    const findings = fails ? (index % 3 === 0 ? 3 : 1) : 0;
    return {
      id: rule.id, level: rule.level, area: rule.area, summary: rule.summary, section: rule.section, source: rule.source ?? '', words: rule.words,
      status: fails ? 'failed' : 'passed', observations: [], requests: 1, durationMs: 5, created: [],
      evidence: Array.from({ length: findings }, (_, finding) => ({
        message: `case ${finding}: expected an Error body, saw a body that is not JSON: ${HTML_PAGE} (GET /v1/pets/abc → 400)`,
        expected: 'an Error body',
        seen: `a body that is not JSON: ${HTML_PAGE}`,
        cause: { expected: 'an Error body', seen: `not JSON ${finding}` },
        exchanges: [{ exchange: undefined as never, curl: `curl -i -X GET 'http://127.0.0.1:9/v1/pets/abc' -H "Authorization: Bearer $PETSTORE_API_KEY"` }],
      })),
    };
  });
  return sampleReport({ rules, counts: countsOf(rules), verdict: failing > 0 ? 'not-certified' : 'certified', exitCode: failing > 0 ? 1 : 0, ...overrides });
}

describe('the compact summary (the default)', () => {
  it('says a certified run in the verdict, the counts and what it spent: a dozen lines', () => {
    const lines = compactSummaryText(catalogReport(0), 120).split('\n');
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines).toContain('CERTIFIED: http://127.0.0.1:9/v1');
  });

  it('names every failing rule in a headline and its first finding, each one line of at most the width', () => {
    const report = catalogReport(10);
    const text = compactSummaryText(report, 100);
    const failing = report.rules.filter((rule) => rule.status === 'failed').map((rule) => rule.id);
    expect(failing).toHaveLength(10);
    expect([...text.matchAll(/^ {2}FAIL (\S+) /gm)].map(([, id]) => id)).toEqual(failing);
    // One screen (40 rows): the counts, a shared cause, ten headlines with their findings, the heading of each.
    expect(text).toContain('One cause, several rules (fix it once):\n  10 rules: expected an Error body, saw not JSON 0\n');
    expect(text.split('\n').length).toBeLessThanOrEqual(40);
    for (const line of text.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(100);
    // The HTML body is on the finding's line, its line breaks and tabs shown as marks.
    expect(text).toContain('saw a body that is not JSON: <!DOCTYPE html>␤<html lang="en">␤');
    expect(text).not.toContain('\n<html');
  });

  it('keeps "how many more" clear of the cut, so a long body cannot hide that there is more', () => {
    const text = compactSummaryText(catalogReport(10), 80);
    expect(text).toMatch(/…? \(\+2 more findings, 3 causes\)$/m);
  });

  it('shows the failures a baseline lists as known, apart from the new ones, and the listed rules that pass now', () => {
    const report = catalogReport(3);
    const [first, second, third] = report.rules.filter((rule) => rule.status === 'failed').map((rule) => rule.id);
    const text = compactSummaryText({ ...report, baseline: { file: 'known.txt', known: [first!, second!], nowPassing: ['LIST-01'], notJudged: [], unlisted: [third!] } }, 120);
    expect([...text.matchAll(/^ {2}FAIL (\S+) /gm)].map(([, id]) => id)).toEqual([third]);
    expect(text).toContain(`One rule did not hold (new: not in the baseline)`);
    expect(text).toContain(`  KNOWN 2 failing rules listed in known.txt: ${first}, ${second}`);
    expect(text).toMatch(/^ {2}NOW PASSING, remove from known\.txt: LIST-01 /m);
  });
});

describe('the compact summary of rules not judged', () => {
  it('gives a MUST or SHOULD rule the run meant to judge and skipped a line with its reason, and leaves the deselected to the counts', () => {
    const report = catalogReport(0);
    const rules = report.rules.map((rule) => rule.id === 'RATE-11' ? { ...rule, status: 'skipped' as const, message: 'run with --verify-recovery' }
      : rule.id === 'LIST-03' ? { ...rule, status: 'skipped' as const, message: 'skipped by --skip LIST-03' } : rule);
    const text = compactSummaryText({ ...report, rules, options: { ...report.options, skip: ['LIST-03'] } }, 120);
    expect(text).toMatch(/^ {2}SKIP RATE-11 {3}run with --verify-recovery$/m);
    expect(text).not.toContain('LIST-03');
  });

  it('says that a baseline is what lets a run with known failures pass', () => {
    const report = catalogReport(1);
    const failing = report.rules.find((rule) => rule.status === 'failed')!.id;
    const text = compactSummaryText({ ...report, exitCode: 0, baseline: { file: 'known.txt', known: [failing], nowPassing: [], notJudged: [], unlisted: [] } }, 120);
    expect(text).toContain('  every failing rule is in known.txt: the run passes (exit 0)');
    expect(compactSummaryText(report, 120)).not.toContain('the run passes');
  });
});

describe('the verbose summary', () => {
  it('marks a failure the baseline lists KNOWN, and shows every body on one line', () => {
    const report = catalogReport(2);
    const [first, second] = report.rules.filter((rule) => rule.status === 'failed').map((rule) => rule.id);
    const text = summaryText({ ...report, baseline: { file: 'known.txt', known: [first!], nowPassing: [], notJudged: [], unlisted: [second!] } });
    expect(text).toMatch(new RegExp(`^KNOWN ${first} \\[MUST\\]`, 'm'));
    expect(text).toMatch(new RegExp(`^FAIL ${second} \\[MUST\\]`, 'm'));
    expect(text).not.toContain('\n<html');
    expect(text).toContain('seen:     a body that is not JSON: <!DOCTYPE html>␤<html lang="en">␤<head>␤␉<title>');
    expect(text).toContain('reproduce: curl -i -X GET');
  });
});

describe('the verdict line', () => {
  it('is the summary\'s own first line', () => {
    const report = catalogReport(1);
    expect(compactSummaryText(report, 120).split('\n')[1]).toBe(verdictLine(report));
    expect(verdictLine(report)).toBe('NOT CERTIFIED: http://127.0.0.1:9/v1');
  });
});

describe('oneLine', () => {
  it('shows line breaks and tabs as marks and cuts at the width without splitting a character', () => {
    expect(oneLine('a\r\nb\tc')).toBe('a␍␤b␉c');
    expect(oneLine('🐕🐕🐕🐕', 3)).toBe('🐕🐕…');
    expect(oneLine('short', 10)).toBe('short');
  });
});

describe('colour', () => {
  const terminal = { isTTY: true, hasColors: () => true };
  const log = { isTTY: false };

  it('follows --no-color, then FORCE_COLOR, then NO_COLOR, then whether the stream is a terminal with colours', () => {
    expect(wantsColour(terminal, {}, undefined)).toBe(true);
    expect(wantsColour(log, {}, undefined)).toBe(false);
    expect(wantsColour({ isTTY: true, hasColors: () => false }, {}, undefined)).toBe(false);
    expect(wantsColour(terminal, { NO_COLOR: '1' }, undefined)).toBe(false);
    // Empty, it asks for nothing: the terminal decides (which Node's reading, given it, would not).
    expect(wantsColour({ isTTY: true, hasColors: (env) => env === undefined || !('NO_COLOR' in env) }, { NO_COLOR: '' }, undefined)).toBe(true);
    expect(wantsColour(log, { FORCE_COLOR: '1' }, undefined)).toBe(true);
    expect(wantsColour(log, { FORCE_COLOR: '' }, undefined)).toBe(false);
    expect(wantsColour(terminal, { FORCE_COLOR: '0' }, undefined)).toBe(false);
    expect(wantsColour(terminal, { FORCE_COLOR: 'false' }, undefined)).toBe(false);
    expect(wantsColour(log, { FORCE_COLOR: '1', NO_COLOR: '1' }, undefined)).toBe(true);
    expect(wantsColour(terminal, { FORCE_COLOR: '1' }, false)).toBe(false);
  });

  it('colours the mark a line starts with and changes no character of it', () => {
    const lines = ['NOT CERTIFIED: http://x/v1', 'CERTIFIED: http://x/v1', 'INCOMPLETE (MUST rules skipped): http://x/v1', '  FAIL LIST-02   MUST …', '  PASS LIST-01 MUST …', '  KNOWN 2 failing rules', '  … waiting 3 s', '       expected a, saw b'];
    const painted = lines.map(paint);
    expect(painted.map((line) => stripVTControlCharacters(line))).toEqual(lines);
    expect(painted.map((line) => line !== stripVTControlCharacters(line))).toEqual([true, true, true, true, true, true, true, false]);
    expect(painted[0]).toMatch(/^\x1b\[1m\x1b\[31mNOT CERTIFIED\x1b\[39m\x1b\[22m:/);
  });
});

describe('the API\'s detail and width', () => {
  it('are refused when they are not one of the three details, or narrower than a headline', () => {
    expect(() => resolveRunOptions({ detail: 'loud' }, {}, 'api')).toThrow('detail must be one of compact, verbose, quiet, not "loud"');
    expect(() => resolveRunOptions({ width: 12 }, {}, 'api')).toThrow('width must be an integer of at least 40 columns, not 12');
    expect(resolveRunOptions({ detail: 'quiet', width: 80 }, {}, 'api')).toMatchObject({ detail: 'quiet', width: 80 });
  });
});
