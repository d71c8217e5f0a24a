// The mutation harness: every defect of the reference server must be caught by a certification, and by
// exactly the rules the defect names. This is what proves each check can fail. A fuzzing rule's failure
// must also explain itself: a shrunk counterexample under the run's seed, and the line that replays it.
//
// As a mutation tool runs only the tests that cover a mutant, a defect's run selects the areas that cover
// it: the area it lives in, the area of every rule it names, and any other whose requests meet it (`alsoMetIn`),
// through `--only`. No rule of those areas may fail unless named. The gallery keeps whole runs: a false alarm on a conforming server may come from any area.
//
// The harness runs in parts, one a file (tests/mutation/mutation-<n>.test.ts); the defects are dealt among the
// files there are, so a part added or removed leaves no defect out.
//
// One defect by hand:  npm run build && npx vitest run tests/mutation -t list-limit-ignored
import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { getRule } from '../../helpers/spec/catalog.js';
import { AREA_ORDER } from '../../helpers/spec/facts.js';
import { defectById, DEFECTS, type DefectSpec } from '../defects/catalog.js';
import type { CliRun } from '../support/cli.js';
import type { RunningReferenceServer } from '../../server/reference-server.js';
import { certifyInProcess } from '../support/in-process.js';
import { diffAgainst, formatDiff, FUZZING_KINDS, FUZZING_SAMPLE, harnessPlan, isCaught, outputTail, timedInChildSlot, unexplainedFuzzing, type RuleDiff } from '../support/harness.js';
import { falseReasons } from '../support/skip-claims.js';
import { unreproduced } from '../support/reproduce.js';
import { runWordingProblems } from '../support/wording.js';

// --strict makes a SHOULD failure turn the verdict too, so exit code 1 is the user-visible proof
// that a defect was caught whether it breaks a MUST or only a SHOULD rule.
// --verbose: the reproduce harness runs every curl line the terminal printed.
const CLI_ARGS = ['--strict', '--verbose'];

/**
 * How long a read may lag a write before the run calls the write lost: 2 s, not the default 5 s. A defect that loses
 * or hides writes (create-not-stored, fetch-removed) has each chain of reads wait the lag out, and at 5 s those runs
 * held a slot for 10 to 16 s. No defect shows a write late by design but the one that sets its own --read-lag.
 */
const READ_LAG = ['--read-lag', '2000'];
const RUN_TIMEOUT_MS = 4 * 60_000;
// A test also waits for a free child slot (shared with the gallery and other people's runs).
const TEST_TIMEOUT_MS = 15 * 60_000;

interface DefectOutcome {
  caught: boolean;
  /** Server start to server stop, slot wait excluded. */
  wallMs: number;
  /** The run as report.json times it: from the CLI's start to its reports, vitest start-up included. */
  reportMs?: number;
}

/** The areas whose checks cover a defect, in the order a run takes them: its own, its rules', and where else it is met. */
function areasCovering(defect: DefectSpec): string[] {
  const covering = new Set<string>([defect.area, ...defect.rules.map((id) => getRule(id).area), ...(defect.alsoMetIn ?? [])]);
  return AREA_ORDER.filter((area) => covering.has(area));
}

/**
 * The options that size a defect's fuzzing. A defect that FUZZ-01 or FUZZ-02 names mishandles every body of one kind
 * (its `mishandlesEvery`, which tests/e2e/fuzzing.test.ts proves over 300 seeds), so one body of each kind
 * (FUZZING_SAMPLE) catches it whatever the seed, as a user's run at the defaults does, which sends at least one body
 * of each kind. A defect they name with no such kind meets them at the defaults (100 invalid bodies, 10 valid), as a
 * user's run does. A defect they do not name meets them as it meets any area whose requests it is in: one body of each
 * kind carries it to every judgment of those answers. The defaults' random volume only added chances elsewhere, and it
 * was two fifths of the harness's requests.
 */
function fuzzingSample(defect: DefectSpec, areas: readonly string[]): readonly string[] {
  if (!areas.includes('fuzzing')) return [];
  const byVolume = FUZZING_KINDS.some(({ rule, kind }) => defect.rules.includes(rule) && defect.mishandlesEvery?.[kind] === undefined);
  return byVolume ? [] : FUZZING_SAMPLE;
}

function verdictText(defect: DefectSpec, run: CliRun, diff: RuleDiff): string {
  const title = `defect ${defect.id} (${defect.description}) names ${defect.rules.join(', ')}; the run exited ${run.code}${run.code === 1 ? '' : ' (expected 1)'}`;
  return formatDiff(title, diff);
}

/** The parts of the harness: its test files, mutation-1.test.ts onwards, in their order. */
const PART_FILE = /^mutation-(\d+)\.test\.ts$/;

/**
 * Declares the runs of the part of the harness that `partFile` (its import.meta.url) is: with n part files, every
 * n-th defect of the catalog, from the part's place among them. The harness is in parts, each a test file, so
 * that vitest runs them in workers of their own: one process's main thread serves every reference server and the
 * CLI side of every run it holds, and with the whole harness in one file that thread was its bottleneck (some
 * 1.6 of the 2 cores busy, the rest of npm test waiting behind it).
 */
export function describeDefectRuns(partFile: string): void {
  const file = fileURLToPath(partFile);
  const partFiles = readdirSync(dirname(file)).filter((name) => PART_FILE.test(name))
    .sort((a, b) => Number(PART_FILE.exec(a)![1]) - Number(PART_FILE.exec(b)![1]));
  const parts = partFiles.length;
  const part = partFiles.indexOf(basename(file)) + 1;
  if (part === 0) throw new Error(`${basename(file)} is not named as a part of the mutation harness (mutation-<n>.test.ts)`);
  const defects = DEFECTS.filter((_, index) => index % parts === part - 1);
  const outcomes = new Map<string, DefectOutcome>();
  const harnessStarted = performance.now();
  // Concurrent tests take `expect` from their own context, so each failure lands on its own test.
  describe.concurrent(`every defect of the reference server is caught by exactly the rules it names (part ${part} of ${parts})`, () => {
    afterAll(() => {
      const caught = [...outcomes.values()].filter((outcome) => outcome.caught).length;
      const partial = outcomes.size < defects.length ? ` (${outcomes.size} of the part's ${defects.length} defects run)` : '';
      const runs = [...outcomes.entries()].sort(([, a], [, b]) => b.wallMs - a.wallMs);
      const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      const totalRunMs = runs.reduce((sum, [, outcome]) => sum + outcome.wallMs, 0);
      const inReports = runs.reduce((sum, [, outcome]) => sum + (outcome.reportMs ?? 0), 0);
      console.log(`mutation score, part ${part} of ${parts}: ${caught}/${outcomes.size}${partial}`);
      console.log(`mutation harness, part ${part} of ${parts}: ${seconds(performance.now() - harnessStarted)} wall for ${runs.length} runs `
        + `(${seconds(totalRunMs)} of runs, ${seconds(inReports)} of it inside the CLI's own timing); `
        + `slowest: ${runs.slice(0, 5).map(([id, outcome]) => `${id} ${seconds(outcome.wallMs)}`).join(', ')}`);
    });

    for (const defect of defects) {
      it(`${defect.id} fails ${defect.rules.join(', ')} (--only ${areasCovering(defect).join(',')})`, async ({ expect }) => {
        // A run that cannot even finish counts against the score before its error fails the test.
        outcomes.set(defect.id, { caught: false, wallMs: 0 });
        const areas = areasCovering(defect);
        const fuzzing = fuzzingSample(defect, areas);
        const own = defectById(defect.id).cliArgs ?? [];
        const args = [...CLI_ARGS, ...(own.includes('--read-lag') ? [] : READ_LAG), '--only', areas.join(','), ...fuzzing, ...own];
        const plan = harnessPlan(defectById(defect.id).options, areas, fuzzing.length > 0);
        // Every curl line the failing run prints is run against the server that produced it, before it stops.
        let notReproduced: string[] = [];
        const whileUp = async (ended: CliRun, server: RunningReferenceServer) => {
          if (ended.report) notReproduced = await unreproduced(ended.stdout, ended.report, server, ended.reportDir);
        };
        const { result: run, ms: wallMs } = await timedInChildSlot(() => certifyInProcess({ defects: [defect.id], ...plan }, args, { timeoutMs: RUN_TIMEOUT_MS, whileUp }));
        const diff = diffAgainst(defect.rules, run.report, defectById(defect.id).byChance);
        const caught = run.report !== undefined && run.code === 1 && isCaught(diff);
        outcomes.set(defect.id, { caught, wallMs, reportMs: run.report?.durationMs });
        if (run.report === undefined) expect.fail(`defect ${defect.id}: the run exited ${run.code} without report.json\n${outputTail(run)}`);
        if (!caught) expect.fail(verdictText(defect, run, diff));
        expect(unexplainedFuzzing(run), `defect ${defect.id}: each fuzzing failure shows a counterexample replayable under the run's seed`).toEqual([]);
        expect(falseReasons(run.reportDir, run.report!), `defect ${defect.id}: skip reasons the run's own HAR contradicts`).toEqual([]);
        expect(notReproduced, `defect ${defect.id}: printed curl lines that do not get their recorded status back`).toEqual([]);
        expect(runWordingProblems(run), `defect ${defect.id}: words and figures a reader would stumble on`).toEqual([]);
      }, TEST_TIMEOUT_MS);
    }
  });
}
