import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_BASELINE_STALE, parseBaseline } from '../../cli/policy/baseline.js';
import type { Rule } from '../../helpers/spec/catalog.js';
import { certifyInProcess } from '../support/in-process.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

// A run may first wait for one of the machine's child slots, held by other test files.
const SLOT_WAIT_MS = 5 * 60_000;
// A default page of 10 fails LIST-02 and, with a status filter, LIST-14: two failures of one cause.
const DEFECT = { defects: ['list-default-limit-10' as const] };
const LISTING = ['--only', 'listing'];

function baselineFile(text: string): string {
  const file = join(scratchDir('petstore-baseline-'), 'baseline.txt');
  writeFileSync(file, text);
  return file;
}

const catalog = [
  { id: 'LIST-02', state: 'active' },
  { id: 'LIST-03' },
  { id: 'OLD-01', state: 'retired' },
] as Rule[];

describe('the baseline file', () => {
  it('takes one ID per line; # starts a comment, kept as the entry note; blank lines and CRLF are fine', () => {
    const baseline = parseBaseline('# known failures\r\n\r\nLIST-02   # fix planned for 2.4\r\n  LIST-03\nLIST-02\n', 'b.txt', catalog);
    expect(baseline.entries).toEqual([
      { id: 'LIST-02', note: 'fix planned for 2.4', line: 3 },
      { id: 'LIST-03', note: undefined, line: 4 },
    ]);
  });

  it('refuses a line that is not one rule ID, naming the file and line', () => {
    expect(() => parseBaseline('LIST-02 LIST-03\n', 'b.txt', catalog)).toThrow('baseline b.txt line 1: "LIST-02 LIST-03" is not one rule ID (write one ID per line, e.g. LIST-02; comments start with #)');
  });

  it('refuses an ID the catalog does not know, and one it no longer checks', () => {
    expect(() => parseBaseline('LIST-99\n', 'b.txt', catalog)).toThrow('baseline b.txt line 1: LIST-99 is not a rule of the catalog; remove it');
    expect(() => parseBaseline('\nOLD-01\n', 'b.txt', catalog)).toThrow('baseline b.txt line 2: OLD-01 is retired in the catalog and no longer checked; remove it');
  });
});

describe('--baseline gating', () => {
  it('tolerates a listed rule that still fails: exit 0, reported as a known failure, the verdict unchanged', async () => {
    const file = baselineFile('LIST-02  # default page size is 10\nLIST-14  # the same, with a filter\n');
    const run = await withChildSlot(() => certifyInProcess(DEFECT, [...LISTING, '--baseline', file]));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.report?.verdict).toBe('not-certified');
    expect(run.report?.baseline).toEqual({ file, known: ['LIST-02', 'LIST-14'], nowPassing: [], notJudged: [], unlisted: [] });
    expect(run.stdout).toContain(`  KNOWN 2 failing rules listed in ${file}: LIST-02, LIST-14`);
    expect(run.stdout).not.toMatch(/^ {2}FAIL /m);
    expect(readFileSync(join(run.reportDir, 'summary.md'), 'utf8')).toContain('(known, in baseline)');
    // report.html's list of rules to look at marks them too, not only their cards.
    expect(readFileSync(join(run.reportDir, 'report.html'), 'utf8')).toMatch(/<li><a href="#rule-LIST-02">LIST-02<\/a> MUST failed: [^\n]* <span class="badge outcome-known">known, in baseline<\/span><\/li>/);
  }, SLOT_WAIT_MS);

  it('fails a run whose failure is not listed: exit 1, the regression named', async () => {
    const file = baselineFile('# nothing known\n');
    const run = await withChildSlot(() => certifyInProcess(DEFECT, [...LISTING, '--baseline', file]));
    expect(run.code).toBe(1);
    expect(run.report?.baseline?.unlisted).toEqual(['LIST-02', 'LIST-14']);
    expect(run.stdout).toContain('2 rules did not hold (new: not in the baseline)');
    expect([...run.stdout.matchAll(/^ {2}FAIL (\S+) /gm)].map(([, id]) => id)).toEqual(['LIST-02', 'LIST-14']);
  }, SLOT_WAIT_MS);

  it(`fails the run with exit ${EXIT_BASELINE_STALE} when a listed rule passes now, so the list cannot rot`, async () => {
    const file = baselineFile('LIST-02\n');
    const run = await withChildSlot(() => certifyInProcess({}, [...LISTING, '--baseline', file]));
    expect(run.code).toBe(EXIT_BASELINE_STALE);
    expect(run.report?.exitCode).toBe(EXIT_BASELINE_STALE);
    expect(run.report?.baseline?.nowPassing).toEqual(['LIST-02']);
    expect(run.stdout).toContain(`NOW PASSING, remove from ${file}: LIST-02`);
  }, SLOT_WAIT_MS);

  it('refuses a baseline listing an ID unknown to the catalog: exit 2, a clear message, nothing sent', async () => {
    const file = baselineFile('LIST-02\nLIST-99\n');
    const run = await certifyInProcess(DEFECT, [...LISTING, '--baseline', file]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`petstore-conformance: baseline ${file} line 2: LIST-99 is not a rule of the catalog; remove it (petstore-conformance --list shows the rules)`);
    expect(run.server.stats().requests).toBe(0);
  }, SLOT_WAIT_MS);

  it('refuses a baseline file that does not exist, saying how to make one', async () => {
    const missing = join(tmpdir(), 'petstore-no-such-baseline.txt');
    const run = await certifyInProcess(DEFECT, [...LISTING, '--baseline', missing]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot read baseline ${missing} (no such file): write one with --write-baseline ${missing}`);
  }, SLOT_WAIT_MS);

  it('--write-baseline writes the failing rules; gating on that file passes, and rewriting it keeps its notes', async () => {
    const file = join(scratchDir('petstore-baseline-'), 'baseline.txt');
    const first = await withChildSlot(() => certifyInProcess(DEFECT, [...LISTING, '--write-baseline', file]));
    expect(first.code).toBe(1);
    const written = readFileSync(file, 'utf8');
    expect(written.split('\n').filter((line) => line && !line.startsWith('#'))).toEqual([
      'LIST-02  # MUST return exactly 20 pets when no limit is given and more than 20 exist',
      'LIST-14  # MUST apply the default page size of 20 with a status filter (exactly 20 when more than 20 of that status exist)',
    ]);

    writeFileSync(file, written.replace(/^LIST-02 .*$/m, 'LIST-02  # ticket PET-1'));
    const second = await withChildSlot(() => certifyInProcess(DEFECT, [...LISTING, '--baseline', file, '--write-baseline', file]));
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^LIST-02 {2}# ticket PET-1$/m);
  }, SLOT_WAIT_MS);
});
