import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance suites in suites/ are not run from here:
// the CLI runs them (one worker, fixed order) against a target, and tests/ drive the CLI.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
