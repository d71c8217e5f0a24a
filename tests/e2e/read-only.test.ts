// --read-only is a gentle smoke test of production: it sends only reads, no 429 probe unless --rate-limit-budget is
// given (the probe leaves the key's window exhausted for every client sharing it), and it says what it will spend
// before it sends anything, and what share of a daily quota that is when the key's window shows one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Har } from 'har-format';
import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../cli/options.js';
import { resolveRunOptions } from '../../cli/resolve-options.js';
import { certify } from '../../cli/run.js';
import { TOOL } from '../../cli/tool.js';
import { parseJson } from '../../helpers/json.js';
import { startReferenceServer } from '../../server/reference-server.js';
import type { ServerSettings } from '../../server/settings.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

const KEY = 'test-key-4f9a1c';
const PLAN_LINE = /^Read-only: only GET, HEAD and OPTIONS are sent, at most ([\d,]+) requests/;

/**
 * A run against a reference server of these settings, in this process, with what each printed line saw: how many
 * requests the server had received when it was printed.
 */
async function readOnlyRun(settings: ServerSettings, args: readonly string[]): Promise<{ lines: Array<{ text: string; received: number }>; har: Har; report: { requests: { total: number }; rules: Array<{ id: string; status: string; message?: string }> } }> {
  const server = await startReferenceServer({ apiKeys: [KEY], ...settings });
  try {
    const reportDir = scratchDir('petstore-read-only-');
    const lines: Array<{ text: string; received: number }> = [];
    const parsed = parseArguments(['--base-url', server.url, '--read-only', ...args, '--report-dir', reportDir], TOOL.version, () => {}, {});
    if (parsed.action !== 'run') throw new Error('not a run');
    const print = (text: string) => lines.push({ text, received: server.stats().requests });
    await certify(resolveRunOptions({ ...parsed.options, print }, { PETSTORE_API_KEY: KEY }));
    const read = (file: string) => parseJson(readFileSync(join(reportDir, file), 'utf8')) as never;
    return { lines, har: read('exchanges.har'), report: read('report.json') };
  } finally {
    await server.close();
  }
}

describe('--read-only against the reference server', () => {
  it('sends only GET, HEAD and OPTIONS, no 429 probe without --rate-limit-budget, and prints its plan before its first request', async () => {
    const run = await withChildSlot(() => readOnlyRun({ preload: 30 }, []));
    const methods = new Set(run.har.log.entries.map((entry) => entry.request.method));
    expect([...methods].sort()).toEqual(['GET', 'HEAD', 'OPTIONS']);
    const plan = run.lines.find((line) => PLAN_LINE.test(line.text));
    expect(plan?.text).toContain('and no 429 probe (give --rate-limit-budget to run it)');
    expect(plan?.received, 'requests the server had received when the plan was printed').toBe(0);
    expect(run.lines.findIndex((line) => line === plan)).toBe(1);
    expect(run.report.requests.total).toBeLessThanOrEqual(Number(PLAN_LINE.exec(plan!.text)![1]!.replace(/,/g, '')));
    const rate07 = run.report.rules.find((rule) => rule.id === 'RATE-07');
    expect(rate07).toMatchObject({ status: 'skipped', message: expect.stringMatching(/^--read-only leaves the 429 probe out unless --rate-limit-budget is given/) });
    // The key is left as it was found, less the run's own reads: no 429, and most of the window (1,000) still there.
    expect(run.har.log.entries.filter((entry) => entry.response.status === 429)).toEqual([]);
    const last = run.har.log.entries.at(-1)!.response.headers.find((header) => header.name === 'x-ratelimit-remaining');
    expect(Number(last?.value)).toBeGreaterThan(1000 - run.report.requests.total - 1);
  }, 120_000);

  it('runs the probe when --rate-limit-budget is given, still with reads only, and the plan counts it', async () => {
    const run = await withChildSlot(() => readOnlyRun({ rateLimit: { limit: 200, windowMs: 60_000 } }, ['--rate-limit-budget', '300', '--only', 'ratelimit']));
    expect(new Set(run.har.log.entries.map((entry) => entry.request.method))).toEqual(new Set(['GET']));
    expect(run.lines[1]?.text).toBe('Read-only: only GET, HEAD and OPTIONS are sent, at most 308 requests, the 429 probe\'s 300 among them (--rate-limit-budget)');
    expect(run.report.rules.find((rule) => rule.id === 'RATE-07')?.status).toBe('passed');
  }, 120_000);

  it('against a key whose window is a day, says what share of the daily quota the run spends', async () => {
    const run = await withChildSlot(() => readOnlyRun({ preload: 30, rateLimit: { limit: 1000, windowMs: 86_400_000 } }, ['--only', 'listing']));
    const quota = run.lines.find((line) => line.text.includes('a daily quota'));
    expect(quota?.text).toMatch(/^ {2}… the key's rate-limit window runs 2[34]\.\d h more \(X-RateLimit-Limit 1,000: a daily quota\): this run spends at most 40 of it, 4%; it has 99\d left$/);
  }, 120_000);

  it('takes a smaller --max-requests as its plan, and says so', async () => {
    const run = await withChildSlot(() => readOnlyRun({ preload: 30 }, ['--only', 'listing', '--max-requests', '5']));
    expect(run.lines[1]?.text).toBe('Read-only: only GET, HEAD and OPTIONS are sent, at most 5 requests (--max-requests), and no 429 probe (give --rate-limit-budget to run it)');
    expect(run.report.requests.total).toBe(5);
  }, 120_000);
});
