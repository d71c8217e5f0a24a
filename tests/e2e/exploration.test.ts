// The stateful exploration (FUZZ-03) against the reference server: a failure reads as a replayable script
// without the key, the conforming server passes within the default budget, the same seed sends the same
// requests, --read-only creates nothing, and shrinking stays within its bound.
//
// The CLI runs from the built dist/:  npm run build && npx vitest run tests/e2e/exploration.test.ts
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTag } from '../../helpers/fixtures/names.js';
import { parseJson } from '../../helpers/json.js';
import type { Report, RuleResult } from '../../cli/reports/report.js';
import { certify, type CliRun } from '../support/cli.js';
import { certifyInProcess } from '../support/in-process.js';
import { withChildSlot } from '../support/harness.js';

const TIMEOUT_MS = 10 * 60_000;
// A limit no run here reaches: pacing is not the subject.
const NO_LIMIT = { rateLimit: { limit: 1_000_000, windowMs: 60_000 } };
/** The default exploration: three fixed sequences of 17 requests and 4 pets, two generated of at most 8 requests and 3 pets each. */
const DEFAULT_BUDGET = { requests: 17 + 2 * 8, pets: 4 + 2 * 3 };
/** What shrinking may add, for the whole rule. */
const SHRINK_BUDGET = { requests: 60, pets: 16 };

function fuzz03(report: Report | undefined): RuleResult {
  const rule = report?.rules.find((candidate) => candidate.id === 'FUZZ-03');
  if (!rule) throw new Error('FUZZ-03 is not in the report');
  return rule;
}

/** Every request the run sent, as exchanges.har records it: method, URL, body. */
function requestsOf(run: CliRun): Array<{ method: string; url: string; body?: string }> {
  const har = parseJson(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as unknown as { log: { entries: Array<{ request: { method: string; url: string; postData?: { text: string } } }> } };
  return har.log.entries.map(({ request }) => ({ method: request.method, url: request.url, body: request.postData?.text }));
}

describe('the stateful exploration (FUZZ-03)', () => {
  it('FUZZ-03 reports a failure with the seed, the shrunk commands and a curl script per command, the key in no report', async () => {
    // REPLACE INTO under a unique name key: the second "rex" deletes the first, which a GET had served.
    const run = await withChildSlot(() => certify({ defects: ['create-replace-into-by-name'], ...NO_LIMIT }, ['--only', 'FUZZ-03', '--seed', '4242', '--verbose'], { timeoutMs: TIMEOUT_MS }));
    expect(run.code).toBe(1);
    const rule = fuzz03(run.report);
    expect(rule.status).toBe('failed');
    const evidence = rule.evidence.find((candidate) => candidate.counterexample?.mutation === 'sequence repeated-name')!;
    expect(evidence.message).toMatch(/breaks CONS-09/);
    const example = evidence.counterexample!;
    expect(example.breaks?.[0]).toBe('CONS-09');
    expect(example.seed).toBe(4242);
    expect(example.path).not.toBe('');
    // Shrunk to the four commands that show it: the list before and after are left out.
    expect(example.body.split('\n')).toEqual([
      expect.stringMatching(/^1\. create a: name "rex", .* → 201 id \d+$/),
      expect.stringMatching(/^2\. fetch pet a \(id \d+\) → 200$/),
      expect.stringMatching(/^3\. create b: name "rex", .* → 201 id \d+$/),
      expect.stringMatching(/^4\. fetch pet a \(id \d+\) → 404$/),
    ]);
    const curls = example.script!.split('\n').filter((line) => line.startsWith('curl '));
    expect(curls).toHaveLength(4);
    expect(curls.every((line) => line.includes('"Authorization: Bearer $PETSTORE_API_KEY"'))).toBe(true);
    expect(example.script).toContain('seed 4242');
    expect(example.replay).toMatch(/--only FUZZ-03 --seed 4242 --explore-runs 2$/);
    // As a person reads it at the terminal.
    expect(run.stdout).toMatch(/seed 4242, fast-check path [0-9:]+, shrunk sequence:\n {9}1\. create a: name "rex"/);
    expect(run.stdout).toMatch(/ {7}script:\n {9}# FUZZ-03, sequence repeated-name/);
    expect(run.stdout).toMatch(/\n {9}curl -i -X GET '[^']+\/pets\/\d+' [^\n]*Bearer \$PETSTORE_API_KEY/);
    expect(readFileSync(join(run.reportDir, 'report.html'), 'utf8')).toContain('Replay script');
    const key = run.server.apiKey;
    expect(run.stdout + run.stderr).not.toContain(key);
    for (const file of readdirSync(run.reportDir)) expect(readFileSync(join(run.reportDir, file), 'utf8'), file).not.toContain(key);
  }, TIMEOUT_MS);

  it('FUZZ-03 passes on the reference server whatever the seed, within its default budget', async () => {
    for (const seed of ['1', '2', '3']) {
      const run = await withChildSlot(() => certifyInProcess(NO_LIMIT, ['--only', 'FUZZ-03', '--seed', seed, '--reporter', 'json'], { timeoutMs: TIMEOUT_MS }));
      const rule = fuzz03(run.report);
      expect({ seed, status: rule.status, message: rule.message }).toEqual({ seed, status: 'passed', message: undefined });
      expect(rule.requests).toBeGreaterThanOrEqual(17);
      expect(rule.requests).toBeLessThanOrEqual(DEFAULT_BUDGET.requests);
      expect(rule.created.length).toBeGreaterThanOrEqual(4);
      expect(rule.created.length).toBeLessThanOrEqual(DEFAULT_BUDGET.pets);
    }
  }, TIMEOUT_MS);

  it('FUZZ-03 sends the same requests for the same seed, so --seed replays it', async () => {
    // One request in flight: the lanes run side by side, and with several in flight which lane's create reaches the
    // server first (and so which pet gets which id, and which ids the GETs ask for) is the scheduler's choice.
    // Under a loaded npm test one GET in 33 asked for pet 5 instead of 6.
    const runOnce = () => withChildSlot(() => certifyInProcess(NO_LIMIT, ['--only', 'FUZZ-03', '--seed', '77', '--concurrency', '1', '--reporter', 'json,har'], { timeoutMs: TIMEOUT_MS }));
    const [first, second] = [await runOnce(), await runOnce()];
    // Names carry the run ID, which every run draws anew; the rest is the seed's.
    const sent = (run: CliRun) => requestsOf(run).map((request) => `${request.method} ${new URL(request.url).pathname}${new URL(request.url).search} ${(request.body ?? '').replaceAll(runTag(run.report!.runId), '<run>')}`).sort();
    expect(sent(second)).toEqual(sent(first));
  }, TIMEOUT_MS);

  it('FUZZ-03 sends no create with --read-only, and judges its lists and fetches', async () => {
    const run = await withChildSlot(() => certifyInProcess({ preload: 12, ...NO_LIMIT }, ['--only', 'FUZZ-03', '--read-only', '--reporter', 'json,har'], { timeoutMs: TIMEOUT_MS }));
    expect(fuzz03(run.report).status).toBe('passed');
    expect(fuzz03(run.report).observations.join(' ')).toMatch(/--read-only: no create was sent/);
    expect(requestsOf(run).filter((request) => request.method !== 'GET')).toEqual([]);
    expect(run.report!.created.count).toBe(0);
  }, TIMEOUT_MS);

  it('FUZZ-03 shrinks within its bound of requests and pets on a server that breaks every sequence', async () => {
    // Every page one pet too many: each sequence that lists fails, and each failure is shrunk.
    const run = await withChildSlot(() => certifyInProcess({ defects: ['list-limit-off-by-one'], preload: 30, ...NO_LIMIT }, ['--only', 'FUZZ-03', '--explore-runs', '6', '--reporter', 'json'], { timeoutMs: TIMEOUT_MS }));
    const rule = fuzz03(run.report);
    expect(rule.status).toBe('failed');
    expect(rule.requests).toBeLessThanOrEqual(17 + 6 * 8 + SHRINK_BUDGET.requests);
    expect(rule.created.length).toBeLessThanOrEqual(4 + 6 * 3 + SHRINK_BUDGET.pets);
    expect(rule.evidence.every((evidence) => /breaks CONS-04/.test(evidence.message))).toBe(true);
  }, TIMEOUT_MS);
});
