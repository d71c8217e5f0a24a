import { basename } from 'node:path';
import type { TestSequencer, TestSpecification } from 'vitest/node';
import { AREA_ORDER } from '../helpers/spec/facts.js';

/** Runs the suite files in catalog area order: the store model (consistency) after every area that writes, errors and rate limits judge what the others sent, the 429 probe goes last. */
export class AreaOrderSequencer implements TestSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const area = basename(file.moduleId).replace(/\.test\.[jt]s$/, '');
      const index = AREA_ORDER.indexOf(area as (typeof AREA_ORDER)[number]);
      return index === -1 ? AREA_ORDER.length : index;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }

  async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    return files;
  }
}
