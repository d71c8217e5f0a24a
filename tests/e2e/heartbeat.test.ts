// A CI log never goes quiet for long: the CLI, its stdout a pipe as in CI, against a target that takes 15 s to
// answer, prints a heartbeat saying what it waits for before the answer comes.
import { expect, it } from 'vitest';
import { certify } from '../support/cli.js';

/** Well past the heartbeat's 10 s, so that the line is due however late a loaded machine runs its timer. */
const ANSWER_AFTER_MS = 15_000;

it('prints, at least every 10 s of quiet, which check runs and which answer it waits for', async () => {
  const run = await certify({ latencyMs: ANSWER_AFTER_MS }, ['--only', 'STORE-01', '--timeout', '60000', '--reporter', 'json']);
  expect(run.code).toBe(0);
  const heartbeat = run.stdout.split('\n').find((line) => line.includes(' s in, '));
  expect(heartbeat).toMatch(/^ {2}… 1\d s in, 0 answers so far: running STORE-01 \(1\d s\); waiting for the answer from the target, the oldest to GET \/v1\/store\/orders \(STORE-01\) sent 1\d s ago$/);
  // Before the verdict, which the answer brings.
  expect(run.stdout.indexOf(heartbeat!)).toBeLessThan(run.stdout.search(/^(CERTIFIED|INCOMPLETE)\b/m));
}, 120_000);
