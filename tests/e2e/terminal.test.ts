// What the CLI prints, as a person or a CI log sees it (stdout a pipe): the compact default, --verbose, --quiet,
// and colour by the conventions (FORCE_COLOR, NO_COLOR, --no-color).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';
import { certify, runCli } from '../support/cli.js';
import { withChildSlot } from '../support/harness.js';

const SLOT_WAIT_MS = 5 * 60_000;
const ESCAPE = '\x1b[';

describe('the default terminal', () => {
  it('prints a certified run of the bundled server in at most 15 lines: no rule listed, the verdict, the counts, where the reports are', async () => {
    const run = await withChildSlot(() => runCli([]));
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.length, run.stdout).toBeLessThanOrEqual(15);
    expect(lines).toContain(`CERTIFIED: ${run.report!.target.baseUrl} (bundled reference server)`);
    expect(run.stdout).not.toMatch(/^ {2}(PASS|INFO) [A-Z]+-\d+ /m);
    // The one rule a default run does not judge is named, with what would judge it.
    expect([...run.stdout.matchAll(/^ {2}SKIP (\S+) +(.*)$/gm)].map(([, id, why]) => [id, why])).toEqual([['RATE-11', expect.stringContaining('--verify-recovery')]]);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}\d+ requests, \d+ pets created, \d+\.\d s, fuzzing seed \d+$/));
    expect(lines.at(-1)).toBe(`Reports: ${run.reportDir}`);
    expect(run.stdout).not.toContain(ESCAPE);
  }, SLOT_WAIT_MS);
});

/**
 * The example under the README's "What a run prints", as patterns: its figures, port and reports folder stand for
 * any; every other character must be what a run prints. Its first line is the command, which the test runs.
 */
function readmeExample(): { args: string[]; lines: RegExp[] } {
  const readme = readFileSync(packagePath('README.md'), 'utf8');
  const block = /## What a run prints\n[^]*?```console\n([^]*?)```/.exec(readme)?.[1] ?? expect.fail('no example under "What a run prints" in README.md');
  const [command, ...printed] = block.trimEnd().split('\n');
  const args = command!.replace(/^\$ npm start -- /, '').split(' ').filter((arg, index, all) => arg !== '--base-url' && all[index - 1] !== '--base-url');
  const lines = printed.map((line) => line.startsWith('Reports: ')
    ? /^Reports: \S+$/
    : new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace(/\d+(\\\.\d+)?/g, '\\d+(?:\\.\\d+)?')}$`));
  return { args, lines };
}

describe('the README', () => {
  it('shows what a run prints: its example, run against a server whose default page is 10 pets, line for line', async () => {
    const example = readmeExample();
    const run = await withChildSlot(() => certify({ defects: ['list-default-limit-10'] }, example.args));
    const printed = run.stdout.trimEnd().split('\n');
    expect(printed.length, run.stdout).toBe(example.lines.length);
    printed.forEach((line, index) => expect(line).toMatch(example.lines[index]!));
    // Every failing rule named in a headline, in the order of the catalog.
    expect(run.code).toBe(1);
    expect([...run.stdout.matchAll(/^ {2}FAIL (\S+) /gm)].map(([, id]) => id)).toEqual(run.report!.rules.filter((rule) => rule.status === 'failed').map((rule) => rule.id));
  }, SLOT_WAIT_MS);
});

describe('--quiet', () => {
  it('prints the verdict line alone', async () => {
    const run = await withChildSlot(() => certify({ defects: ['list-default-limit-10'] }, ['--only', 'listing', '--quiet']));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(`NOT CERTIFIED: ${run.report!.target.baseUrl}\n`);
  }, SLOT_WAIT_MS);

  it('and --verbose together are refused before anything is sent, naming where each came from', async () => {
    const run = await runCli(['--quiet'], { env: { PETSTORE_VERBOSE: 'true' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--verbose and --quiet ask for opposite things: give one (--verbose from PETSTORE_VERBOSE, --quiet from the command line)');
  });
});

describe('--verbose', () => {
  it('lists every rule judged, and counts the rules of the area that --only left out in one line', async () => {
    const run = await withChildSlot(() => runCli(['--only', 'CREATE-03', '--verbose']));
    expect(run.stdout).toMatch(/^ {2}PASS CREATE-03 MUST echo name/m);
    expect(run.stdout).not.toContain('SKIP CREATE-01');
    const areaRules = run.report!.rules.filter((rule) => rule.area === 'creating').length;
    expect(run.stdout).toContain(`  ${areaRules - 1} more rules of these areas not selected: --only CREATE-03`);
  }, SLOT_WAIT_MS);
});

describe('colour', () => {
  it('is on with FORCE_COLOR even in a pipe, and off with --no-color', async () => {
    // NO_COLOR and a terminal's own colours are held by tests/unit/terminal-output.test.ts; here, what reaches stdout.
    const [forced, flagged] = await Promise.all([
      withChildSlot(() => runCli(['--only', 'LIST-01', '--verbose'], { env: { FORCE_COLOR: '1' } })),
      withChildSlot(() => runCli(['--only', 'LIST-01', '--no-color'], { env: { FORCE_COLOR: '1' } })),
    ]);
    expect(forced.stdout).toContain(`${ESCAPE}1m${ESCAPE}33mINCOMPLETE (MUST rules skipped)${ESCAPE}39m${ESCAPE}22m:`);
    expect(forced.stdout).toContain(`  ${ESCAPE}32mPASS${ESCAPE}39m LIST-01 `);
    expect(flagged.stdout).not.toContain(ESCAPE);
  }, SLOT_WAIT_MS);
});
