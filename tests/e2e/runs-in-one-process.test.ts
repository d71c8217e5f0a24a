// A program that certifies several targets (the mutation harness, a loop over runConformance) keeps one
// suite engine between runs: no run may judge by what an earlier run, or one beside it, left behind.
import { describe, expect, it } from 'vitest';
import type { Report } from '../../cli/report.js';
import { defectById, type DefectId } from '../../server/defects.js';
import { certify } from '../support/cli.js';
import { withChildSlot } from '../support/harness.js';
import { certifyInProcess } from '../support/in-process.js';

const CONFORMING = { rateLimit: { limit: 300, windowMs: 60_000 } };
// A listing defect: the fixtures, caches and 429 probe of the run before it all bear on what it sees.
const DEFECT_ID: DefectId = 'list-limit-ignored';
const DEFECT = defectById(DEFECT_ID);
const DEFECTIVE = { ...CONFORMING, defects: [DEFECT_ID] };
const ARGS = ['--strict'];
const RUN_TIMEOUT_MS = 120_000;

function statuses(report: Report | undefined): Record<string, string> {
  return Object.fromEntries((report?.rules ?? []).map((rule) => [rule.id, rule.status]));
}

function failed(report: Report | undefined): string[] {
  return (report?.rules ?? []).filter((rule) => rule.status === 'failed').map((rule) => rule.id);
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
    expect(failed(defective!.report)).toEqual(DEFECT.rules);
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
    expect(failed(defective.report)).toEqual(DEFECT.rules);
  }, 5 * 60_000);
});
