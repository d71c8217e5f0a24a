// Where the tests write their files: one folder per test run, made and removed by tests/support/scratch-setup.ts,
// so that `npm test` leaves nothing behind in the system's temporary folder (a run writes some hundred report
// folders). Outside a test run (a script importing the helpers) it is the temporary folder itself.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The variable that names the run's folder; vitest's workers inherit it from the process that made it. */
export const SCRATCH_VARIABLE = 'PETSTORE_TEST_SCRATCH';

/** A new folder of the test run's own, its name starting with `prefix`. */
export function scratchDir(prefix: string): string {
  return mkdtempSync(join(process.env[SCRATCH_VARIABLE] ?? tmpdir(), prefix));
}
