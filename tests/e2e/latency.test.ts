// A target far away: independent checks run together, yet every exchange is put down to the check that
// sent it and the terminal reads in catalog order. The CLI tests run the built dist/:  npm run build first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certifyInProcess } from '../support/in-process.js';
import { withChildSlot } from '../support/harness.js';

const CLI_TEST_TIMEOUT_MS = 10 * 60_000;
const LATENCY_MS = 100;

describe('checks that run together', () => {
  it('finish the auth area in a fraction of its round trips one after another, each request put down to its own check, printed in catalog order', async () => {
    const run = await withChildSlot(() => certifyInProcess({ latencyMs: LATENCY_MS }, ['--only', 'auth', '--verbose']));
    const rules = run.report!.rules.filter((rule) => rule.area === 'auth');
    expect(rules.map((rule) => rule.status), run.stdout).toEqual(rules.map(() => 'passed'));
    const requests = run.report!.requests.total;
    // Each check's own requests: its exchanges carry its rule, and they add up to the run's.
    expect(rules.reduce((sum, rule) => sum + rule.requests, 0)).toBe(requests);
    for (const rule of rules.filter((candidate) => candidate.id !== 'AUTH-08')) expect(rule.requests, rule.id).toBeGreaterThan(0);
    const oneAfterAnother = rules.reduce((sum, rule) => sum + rule.durationMs, 0);
    expect(oneAfterAnother).toBeGreaterThan(requests * LATENCY_MS * 0.9);
    // From the first request out to the last answer in: what the area cost, vitest's start-up aside.
    const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: Array<{ startedDateTime: string; time: number }> } };
    const starts = har.log.entries.map((entry) => Date.parse(entry.startedDateTime));
    const areaMs = Math.max(...har.log.entries.map((entry, index) => starts[index]! + entry.time)) - Math.min(...starts);
    expect(areaMs).toBeLessThan(oneAfterAnother * 0.5);
    const printed = [...run.stdout.matchAll(/^\s+\w+ (AUTH-\d+)/gm)].map((match) => match[1]);
    expect(printed).toEqual(rules.map((rule) => rule.id));
  }, CLI_TEST_TIMEOUT_MS);
});
