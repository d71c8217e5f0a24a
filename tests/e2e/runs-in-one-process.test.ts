// A program that certifies several targets (the mutation harness, a loop over runConformance) keeps one
// suite engine between runs: no run may judge by what an earlier run, or one beside it, left behind.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../cli/reports/report.js';
import { resolveRunOptions } from '../../cli/resolve-options.js';
import { certify as certifyRun } from '../../cli/run.js';
import { proxyRouteFor } from '../../helpers/http/proxy.js';
import { KEY_PLACEHOLDER } from '../../helpers/http/redact.js';
import { AREA_ORDER } from '../../helpers/spec/facts.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { defectById, type DefectId } from '../defects/catalog.js';
import { certify } from '../support/cli.js';
import { diffAgainst, formatDiff, FUZZING_SAMPLE, harnessPlan, isCaught, withChildSlot } from '../support/harness.js';
import { certifyInProcess, runInProcess } from '../support/in-process.js';
import { scratchDir } from '../support/scratch.js';

// Isolation is about the fixtures, caches and probe a run leaves: one fuzzing body of each class is enough of that area.
const ARGS = ['--strict', ...FUZZING_SAMPLE];
// The harness's plan for such runs: their checks fit in one window, so no run waits one out.
const CONFORMING = harnessPlan(undefined, undefined, true);
// A listing defect: the fixtures, caches and 429 probe of the run before it all bear on what it sees. (Not one
// that hides a written pet from its pages: the run would wait out read-after-write backoffs for seconds.)
const DEFECT_ID: DefectId = 'list-limit-off-by-one';
const DEFECT = defectById(DEFECT_ID);
const DEFECTIVE = { ...CONFORMING, defects: [DEFECT_ID] };
const RUN_TIMEOUT_MS = 120_000;

/** Each rule's status, but those a defect's rules may reach by chance (the seed decides): a fact of the seed, not of the run before. */
function statuses(report: Report | undefined): Record<string, string> {
  const bySeed = new Set(DEFECT.byChance ?? []);
  return Object.fromEntries((report?.rules ?? []).filter((rule) => !bySeed.has(rule.id)).map((rule) => [rule.id, rule.status]));
}

function failed(report: Report | undefined): string[] {
  return (report?.rules ?? []).filter((rule) => rule.status === 'failed').map((rule) => rule.id);
}

/** The defect is caught as the harness judges it: every rule it names failed, and nothing else but its byChance rules. */
function expectCaught(report: Report | undefined): void {
  const diff = diffAgainst(DEFECT.rules, report, DEFECT.byChance);
  if (!isCaught(diff)) expect.fail(formatDiff(`defect ${DEFECT_ID}`, diff));
}

describe('certifications in one process', () => {
  it('judge a conforming server, then a defective one, then the first again, as separate runs do', async () => {
    const separate = await withChildSlot(() => certify(DEFECTIVE, ARGS, { timeoutMs: RUN_TIMEOUT_MS }));
    const [first, defective, again] = await withChildSlot(async () => [
      await certifyInProcess(CONFORMING, ARGS, { timeoutMs: RUN_TIMEOUT_MS }),
      await certifyInProcess(DEFECTIVE, ARGS, { timeoutMs: RUN_TIMEOUT_MS }),
      await certifyInProcess(CONFORMING, ARGS, { timeoutMs: RUN_TIMEOUT_MS }),
    ]);
    expect(first!.code, first!.stdout).toBe(0);
    expect(failed(first!.report)).toEqual([]);
    expect(defective!.code).toBe(1);
    expectCaught(defective!.report);
    expect(statuses(defective!.report)).toEqual(statuses(separate.report));
    expect(statuses(again!.report)).toEqual(statuses(first!.report));
  }, 5 * 60_000);

  it('judge a run after a cancelled one, and two runs at once, as if each were alone', async () => {
    const alone = await withChildSlot(() => certifyInProcess(CONFORMING, ARGS, { timeoutMs: RUN_TIMEOUT_MS }));
    // Responses held 50 ms: the run is still sending when it is cancelled, however fast the machine.
    const cancelled = await withChildSlot(() => certifyInProcess({ ...CONFORMING, latencyMs: 50 }, ARGS, { timeoutMs: 1_500 }));
    expect(cancelled.report?.verdict).toBe('incomplete');
    const after = await withChildSlot(() => certifyInProcess(CONFORMING, ARGS, { timeoutMs: RUN_TIMEOUT_MS }));
    expect(statuses(after.report)).toEqual(statuses(alone.report));
    const [conforming, defective] = await Promise.all([
      withChildSlot(() => certifyInProcess(CONFORMING, ARGS, { timeoutMs: RUN_TIMEOUT_MS })),
      withChildSlot(() => certifyInProcess(DEFECTIVE, ARGS, { timeoutMs: RUN_TIMEOUT_MS })),
    ]);
    expect(statuses(conforming.report)).toEqual(statuses(alone.report));
    expectCaught(defective.report);
  }, 5 * 60_000);
});

describe('redaction in one process', () => {
  // A key that is also a word of every report: the status a pet may have, and the catalog names.
  const WORD_KEY = 'available';
  const OTHER_KEY = 'test-key-4f9a1c';
  const STATUSES = 'for each of available, pending and sold';

  it('a run redacts its own key and nothing of another run\'s: after a run with the key "available", the next report.json still holds the status available', async () => {
    const server = await startReferenceServer({ apiKeys: [WORD_KEY, OTHER_KEY] });
    try {
      const args = ['--base-url', server.url, '--only', 'LIST-01'];
      // The options' resolver refuses a key that is a word of the reports: the first run takes it past the resolver,
      // as a program could, since what is at stake here is what its redactor leaves to the next run.
      const first = await withChildSlot(async () => {
        const reportDir = scratchDir('petstore-run-');
        const resolved = resolveRunOptions({ baseUrl: server.url, apiKey: OTHER_KEY, only: ['LIST-01'], reportDir }, {});
        const result = await certifyRun({ ...resolved, apiKey: WORD_KEY });
        return { code: result.exitCode, stderr: '', reportDir };
      });
      const second = await withChildSlot(() => runInProcess(args, OTHER_KEY, { timeoutMs: RUN_TIMEOUT_MS }));
      const reportText = (dir: string) => readFileSync(join(dir, 'report.json'), 'utf8');
      expect(first!.code, first!.stderr).toBe(0);
      expect(reportText(first!.reportDir)).toContain(STATUSES.replace(WORD_KEY, KEY_PLACEHOLDER));
      expect(second!.code, second!.stderr).toBe(0);
      expect(reportText(second!.reportDir)).toContain(STATUSES);
      expect(second!.stdout).not.toContain(KEY_PLACEHOLDER);
    } finally {
      await server.close();
    }
  }, RUN_TIMEOUT_MS);

  it('60 runs leave what a run redacts, and so its cost, as it was for the first', async (ctx) => {
    const server = await startReferenceServer({ apiKeys: Array.from({ length: 60 }, (_, i) => keyOf(i)) });
    const reportDir = scratchDir('petstore-runs-');
    // A proxy of this process's environment would carry loopback traffic; these runs are about redaction.
    if (proxyRouteFor(server.url)) ctx.skip();
    try {
      // Every area deselected: the whole run (options, reports, manifest) but no suite, so 60 of them are cheap.
      const runs = [];
      for (let i = 0; i < 60; i++) {
        runs.push(await certifyRun(resolveRunOptions({ baseUrl: server.url, apiKey: keyOf(i), skip: [...AREA_ORDER], reportDir }, {})));
      }
      const [first, last] = [runs[0]!, runs.at(-1)!];
      expect(runs.map((run) => run.redactor.formCount)).toEqual(runs.map(() => first.redactor.formCount));
      expect(last.redactor.redact(`${keyOf(0)} ${keyOf(59)}`)).toBe(`${keyOf(0)} ${KEY_PLACEHOLDER}`);
      expect(readFileSync(join(reportDir, 'manifest.json'), 'utf8')).not.toContain(keyOf(59));
    } finally {
      await server.close();
      rmSync(reportDir, { recursive: true, force: true });
    }
  }, RUN_TIMEOUT_MS);
});

/** A distinct key per run, long enough to be redacted wherever it occurs. */
function keyOf(run: number): string {
  return `run-key-${String(run).padStart(2, '0')}-7c2e9a`;
}
