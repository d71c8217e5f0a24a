import { defineConfig } from 'vitest/config';
import { LongestFilesFirst } from './tests/support/sequencer.js';

// The project's own tests, and the conformance suites under vitest (the `conformance` project; the CLI runs the same
// checks with its own engine, helpers/engine/).
//
// Three projects, one folder each, so the fast part runs alone (`npm run test:unit`): tests/unit (no
// server, no child process), tests/e2e (servers and CLI runs) and tests/mutation (the mutation harness
// and the gallery, which certify the reference server once per defect and per variant).
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Most end-to-end files wait on sockets, timers and children rather than the CPU, and the
    // certifications that do load it are bounded machine-wide by tests/support/harness.ts: more
    // files than cores keeps both cores busy.
    maxWorkers: 4,
    // One folder for every file the tests write, removed at the end (PETSTORE_KEEP_TEST_FILES=1 keeps it).
    globalSetup: ['./tests/support/scratch-setup.ts'],
    sequence: { sequencer: LongestFilesFirst },
    // The unit and end-to-end files share their workers' modules (isolate: false): helpers/, suites/ and server/
    // keep no module-level state (tests/unit/module-state.test.ts), so a file finds nothing another left, and
    // each worker imports the project once instead of once per file (measured: 527 -> 463 s of CPU, 294 -> 256 s).
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'mutation', include: ['tests/mutation/**/*.test.ts'] } },
      // The conformance suites themselves, through the vitest adapter (tests/support/vitest-adapter.ts): one worker,
      // one run shared by every area's file, in area order; a check may wait out a rate-limit window, so no timeout.
      // Against a server: PETSTORE_BASE_URL=… PETSTORE_API_KEY=… npx vitest run --project conformance
      // It is not one of this project's tests: npm test runs the other three, and tests/e2e/vitest-adapter.test.ts runs it.
      { extends: true, test: { name: 'conformance', include: ['suites/*.test.ts'], isolate: false, fileParallelism: false, maxWorkers: 1, testTimeout: 0, sequence: { groupOrder: 1 } } },
    ],
  },
});
