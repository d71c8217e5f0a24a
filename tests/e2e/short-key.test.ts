// A one-letter key masks itself, not the alphabet: a passing run reads normally in the terminal and in
// summary.md, and the run says once, at the start, how far a key this short can be masked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startReferenceServer } from '../../server/reference-server.js';
import { runCli } from '../support/cli.js';
import { FUZZING_SAMPLE, harnessPlan, withChildSlot } from '../support/harness.js';

it('with the key `e`, a passing run prints and writes no $PETSTORE_API_KEY, and warns once that the key is short', async () => {
  // A whole run, its fuzzing one body of each kind (the key is in none of them), at the harness's plan for such a
  // run: it fits in one window, and its 429 probe sends some 65 requests, not six hundred.
  const server = await startReferenceServer({ apiKeys: ['e'], ...harnessPlan(undefined, undefined, true) });
  try {
    const run = await withChildSlot(() => runCli(['--base-url', server.url, ...FUZZING_SAMPLE], { env: { PETSTORE_API_KEY: 'e' }, timeoutMs: 300_000 }));
    expect(run.code, run.stdout.slice(-2000)).toBe(0);
    const summary = readFileSync(join(run.reportDir, 'summary.md'), 'utf8');
    for (const text of [run.stdout, run.stderr, summary]) expect(text).not.toContain('$PETSTORE_API_KEY');
    expect(run.stdout.match(/the API key is only 1 character long/g)).toHaveLength(1);
    expect(run.stdout).toContain(`Certifying ${server.url}`);
    expect(summary).toMatch(/^## ✅ Certified/);
  } finally {
    await server.close();
  }
}, 6 * 60_000);
