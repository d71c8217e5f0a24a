// Every untouched report folder verifies: the replay judges requests that were in flight together as the live
// run did. A sample of seeds and of the harness's servers, each run and re-judged in this process; the sweep over
// every defect and variant is the same loop, run by hand with more seeds (see the pull request of issue 35).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { verifyReportFolder } from '../../cli/verify.js';
import { sha256Of } from '../../cli/reports/manifest.js';
import type { Report } from '../../cli/reports/report.js';
import { parseJson, stringifyJson } from '../../helpers/json.js';
import { defectById, type DefectId } from '../defects/catalog.js';
import { variantById, type VariantId } from '../variants/catalog.js';
import { certifyInProcess } from '../support/in-process.js';
import { FUZZING_SAMPLE, harnessPlan, withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

/**
 * Servers whose runs judge the order of answers most: rate-limit accounting that is off by one, a pet id
 * allocated by racing writes, a store that shuffles its pages, connections closed after every answer (requests
 * sent again), a sliding window, reads of a write that never shows (read again, with backoff, many at once); and
 * the reference server at the defaults (the whole fuzzing volume).
 */
const SAMPLE: ReadonlyArray<{ defect?: DefectId; variant?: VariantId }> = [
  {},
  { defect: 'rate-remaining-before-count' },
  { defect: 'create-id-max-plus-one-racy' },
  { variant: 'shuffled' },
  { variant: 'connection-close' },
  { variant: 'sliding-window' },
  // GET /pets/{petId} gone: every read of a created pet is read again until --read-lag has passed.
  { defect: 'fetch-removed' },
];
/** Two seeds, taken in turn: each server of the sample is run once, and each seed meets half of them. */
const SEEDS = [3501, 3502];

/** A copy of the folder with one judged rule's status turned, its hash made consistent, as a forger would. */
function forgedCopy(dir: string): { dir: string; rule: string } {
  const copy = scratchDir('petstore-forged-');
  cpSync(dir, copy, { recursive: true });
  const report = parseJson(readFileSync(join(copy, 'report.json'), 'utf8')) as unknown as Report;
  const rule = report.rules.find((candidate) => candidate.level === 'MUST' && (candidate.status === 'passed' || candidate.status === 'failed'))!;
  rule.status = rule.status === 'passed' ? 'failed' : 'passed';
  writeFileSync(join(copy, 'report.json'), stringifyJson(report, 2));
  const manifest = parseJson(readFileSync(join(copy, 'manifest.json'), 'utf8')) as unknown as { files: Array<{ file: string; sha256: string }> };
  for (const entry of manifest.files) if (entry.file === 'report.json') entry.sha256 = sha256Of(join(copy, 'report.json'));
  writeFileSync(join(copy, 'manifest.json'), stringifyJson(manifest, 2));
  return { dir: copy, rule: rule.id };
}

describe.concurrent('the report folder of a run verifies untouched, and is refused once a verdict in it is edited', () => {
  for (const [index, { defect, variant }] of SAMPLE.entries()) {
    const seed = SEEDS[index % SEEDS.length]!;
    const name = defect ? `defect ${defect}` : variant ? `variant ${variant}` : 'the reference server at the defaults';
    it(`${name}, seed ${seed}`, async ({ expect }) => {
      const settings = defect ? defectById(defect).options : variant ? variantById(variant).options : undefined;
      const atDefaults = !defect && !variant;
      const args = ['--strict', '--seed', String(seed), ...(atDefaults ? [] : FUZZING_SAMPLE)];
      const server = { ...(defect ? { defects: [defect] } : {}), ...(variant ? { variants: [variant] } : {}), ...harnessPlan(settings, undefined, !atDefaults) };
      const run = await withChildSlot(() => certifyInProcess(server, args, { timeoutMs: 240_000 }));
      expect(run.report, `the run wrote report.json (exit ${run.code})`).toBeDefined();
      const untouched = await verifyReportFolder(run.reportDir);
      expect(untouched.line).toMatch(/^verified: /);
      const forged = forgedCopy(run.reportDir);
      const refused = await verifyReportFolder(forged.dir);
      expect(refused.line).toMatch(new RegExp(`^not verified: the verdict does not follow from the recorded exchanges: (${forged.rule}: report\\.json says|report\\.json says)`));
    }, 600_000);
  }
});
