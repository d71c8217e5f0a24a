// vitest's global setup: the test run's scratch folder (tests/support/scratch.ts), removed when the run ends.
// PETSTORE_KEEP_TEST_FILES=1 keeps it, to look at the reports and screenshots the tests wrote.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCRATCH_VARIABLE } from './scratch.js';

export default function setup(): (() => void) | undefined {
  // Each project runs the global setup: the first makes the folder, and a folder the caller named is theirs to keep.
  if (process.env[SCRATCH_VARIABLE] !== undefined) return undefined;
  const folder = mkdtempSync(join(tmpdir(), 'petstore-tests-'));
  process.env[SCRATCH_VARIABLE] = folder;
  return () => {
    delete process.env[SCRATCH_VARIABLE];
    if (process.env.PETSTORE_KEEP_TEST_FILES) {
      console.log(`The tests' files are kept in ${folder}`);
      return;
    }
    rmSync(folder, { recursive: true, force: true });
  };
}
