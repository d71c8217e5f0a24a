import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { AREA_ORDER } from '../../helpers/spec/facts.js';

/**
 * The files that take longest, half a minute or more each: end-to-end files that mostly wait on rate-limit
 * windows and harness slots, and the parts of the mutation harness and the gallery, which keep the cores busy.
 * Started among the first, the harness's parts overlap the waits; started last (their place by size), they were
 * a tail of two minutes with nothing beside them.
 */
const LONGEST_FILES = [
  'tests/e2e/ratelimit.test.ts', 'tests/e2e/runs-in-one-process.test.ts', 'tests/e2e/fuzzing.test.ts', 'tests/e2e/shared-key.test.ts',
  'tests/mutation/mutation-1.test.ts', 'tests/e2e/action.test.ts', 'tests/mutation/mutation-2.test.ts', 'tests/mutation/mutation-3.test.ts',
  'tests/mutation/gallery.test.ts',
  // A unit file, but one seeded property of 400 keys, each redactor compiling its patterns afresh (some 20 s): among
  // the last files, it was the run's tail by itself.
  'tests/unit/redaction.test.ts',
];

/**
 * vitest starts the longest files first when its results cache holds their durations from an earlier run.
 * A fresh clone (CI's case) has none, so vitest starts the largest files first and the longest ones came
 * last, with nothing left to overlap their waits: npm test took some 20 s longer. These files start first
 * whatever the cache holds; every other file keeps vitest's order.
 */
export class LongestFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FILES.findIndex((path) => file.moduleId.endsWith(path));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    // Array.prototype.sort is stable: files of equal rank stay in vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b) || areaRank(a) - areaRank(b));
  }
}

/**
 * The conformance suites (suites/<area>.test.ts) run in the catalog's area order, as the engine runs them: the store
 * model after every area that writes, errors and rate limits after the areas whose answers they judge. Other files keep their place.
 */
function areaRank(file: TestSpecification): number {
  const area = /\/suites\/([a-z]+)\.test\.ts$/.exec(file.moduleId)?.[1];
  const index = area === undefined ? -1 : AREA_ORDER.indexOf(area as (typeof AREA_ORDER)[number]);
  return index === -1 ? AREA_ORDER.length : index;
}
