// Rate limits end to end: the CLI against reference servers with scaled windows (60 requests per 2.5 s
// stands for the Free plan's 60 a minute), so that pacing, the 429 probe and Retry-After are exercised
// in seconds. Each rate-limit defect is the mutation harness's, which runs those of the rate-limit area alone in
// this same window. Run by hand:  npm run build && npx vitest run tests/e2e/ratelimit.test.ts
import { describe, expect, it } from 'vitest';
import type { Report } from '../../cli/reports/report.js';
import type { ReferenceServerOptions } from '../../server/options.js';
import { certifyInProcess } from '../support/in-process.js';
import { brokenRules, harnessPlan, outputTail, withChildSlot } from '../support/harness.js';

// The harness's window for a run of the rate-limit area alone, as these are: the probe costs a few dozen
// requests, and Retry-After is a second or two.
const SMALL_WINDOW: ReferenceServerOptions = harnessPlan(undefined, ['ratelimit']);
const TIMEOUT_MS = 5 * 60_000;
// Where a test's point is what the run judges, not the terminal, the run is one in this process and
// writes report.json alone, the one report read.
const RUN = { timeoutMs: TIMEOUT_MS };
const REPORT_JSON = ['--reporter', 'json'];

function statusOf(report: Report | undefined, id: string): string | undefined {
  return report?.rules.find((rule) => rule.id === id)?.status;
}

describe('conforming rate limiting', () => {
  it('passes a server that sends Retry-After as an HTTP-date, and recovers after it', async () => {
    const run = await withChildSlot(() => certifyInProcess({ variants: ['retry-after-http-date'], ...SMALL_WINDOW }, ['--only', 'ratelimit', '--strict', '--verify-recovery', ...REPORT_JSON], RUN));
    expect(brokenRules(run.report).map((rule) => `${rule.id} ${rule.status}: ${rule.message}`)).toEqual([]);
    expect(statusOf(run.report, 'RATE-11')).toBe('passed');
    expect(run.report?.rules.find((rule) => rule.id === 'RATE-12')?.observations.join()).toMatch(/GMT" \(http-date\)/);
    expect(run.code).toBe(0);
  }, TIMEOUT_MS);

  // Windows that move (a sliding log) and counts that skip errors: Reset and Remaining behave unlike a fixed
  // window's, and neither the step checks nor the probe nor the wait for Retry-After may take that for a fault.
  // Limited by address, the run's requests without a key spend the key's window: RATE-14 and RATE-15 count them.
  for (const variant of ['sliding-window', 'errors-not-counted', 'limit-by-address'] as const) {
    it(`passes the ${variant} variant and recovers after Retry-After`, async () => {
      const run = await withChildSlot(() => certifyInProcess({ variants: [variant], ...SMALL_WINDOW }, ['--only', 'ratelimit', '--strict', '--verify-recovery', ...REPORT_JSON], RUN));
      if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
      expect(brokenRules(run.report).map((rule) => `${rule.id} ${rule.status}: ${rule.message}`)).toEqual([]);
      for (const id of ['RATE-04', 'RATE-07', 'RATE-11', 'RATE-14', 'RATE-15']) expect(statusOf(run.report, id), id).toBe('passed');
      expect(run.code).toBe(0);
    }, TIMEOUT_MS);
  }

  it('certifies the reference server at 60 requests a window with no unplanned 429, saying on the terminal when it waits', async () => {
    const run = await withChildSlot(() => certifyInProcess({ rateLimit: { limit: 60, windowMs: 2_500 } }, ['--strict', '--verify-recovery'], { timeoutMs: TIMEOUT_MS }));
    if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
    expect(brokenRules(run.report).map((rule) => `${rule.id} ${rule.status}: ${rule.message}`)).toEqual([]);
    expect({ code: run.code, verdict: run.report.verdict }).toEqual({ code: 0, verdict: 'certified' });
    // The probe's 429 is the first of its window; any other would have been a 429 the pacing let happen.
    expect(run.server.stats().unplanned429).toBe(0);
    expect(statusOf(run.report, 'RATE-07')).toBe('passed');
    expect(statusOf(run.report, 'RATE-11')).toBe('passed');
    expect(run.stdout).toMatch(/… waiting \d+\.\d s for the rate limit \(API key\): X-RateLimit-Remaining \d+ of 60, 2 kept in reserve/);
    // --verify-recovery waits out the probe's Retry-After; measured from the 429's Date header, that wait can be
    // under a second, which is counted in report.json but not announced on a line of its own.
    const after429 = run.report.rateLimitWaits?.reasons?.find((wait) => wait.reason.startsWith('answered 429'));
    expect(after429, 'a wait for the Retry-After of the probe\'s 429').toBeDefined();
    if (after429!.totalMs / after429!.count >= 1_000) {
      expect(run.stdout).toMatch(/… waiting \d+\.\d s for the rate limit \(API key\): answered 429, Retry-After: \d+/);
    }
    // Every wait is totalled on the summary line, so a slow run says where its time went.
    expect(run.stdout).toMatch(/\n  \d+ requests, \d+ pets? created, \d+\.\d s, \d+ rate-limit waits? \(\d+\.\d s\)(, fuzzing seed \d+)?\n/);
    expect(run.report.rateLimitWaits?.count).toBeGreaterThan(0);
    console.log(`60 per 2.5 s: ${run.report.requests.total} requests in ${(run.report.durationMs / 1000).toFixed(1)} s`);
  }, TIMEOUT_MS);

  it('never gets its key banned by a server that bans keys which send on during a 429', async () => {
    const run = await withChildSlot(() => certifyInProcess({ variants: ['ban-after-429'], rateLimit: { limit: 20, windowMs: 1_000 } }, ['--verify-recovery', ...REPORT_JSON], RUN));
    if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
    expect(run.server.stats().bannedKeys).toEqual([]);
    expect(run.server.stats().unplanned429).toBe(0);
    expect(brokenRules(run.report).map((rule) => `${rule.id} ${rule.status}: ${rule.message}`)).toEqual([]);
    expect(run.report.verdict).toBe('certified');
  }, TIMEOUT_MS);
});

describe('the probe within its budgets', () => {
  it('is skipped, naming --rate-limit-budget, when exceeding the window would take more requests than allowed', async () => {
    const run = await withChildSlot(() => certifyInProcess({ rateLimit: { limit: 1000, windowMs: 60_000 } }, ['--only', 'ratelimit', '--rate-limit-budget', '500', ...REPORT_JSON], RUN));
    const probe = run.report?.rules.find((rule) => rule.id === 'RATE-07');
    expect(probe?.status).toBe('skipped');
    expect(probe?.message).toMatch(/more than --rate-limit-budget 500 allows; run with --rate-limit-budget \d+ or more/);
    expect(run.server.stats().requests).toBeLessThan(10);
    for (const id of ['RATE-08', 'RATE-09', 'RATE-10']) expect(statusOf(run.report, id)).toBe('skipped');
  }, TIMEOUT_MS);

  it('stops the run cleanly when --max-requests is spent, reporting the rules left as skipped', async () => {
    const run = await withChildSlot(() => certifyInProcess({}, ['--max-requests', '30']));
    if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
    expect(run.server.stats().requests).toBe(30);
    expect(run.report.suiteErrors).toEqual([]);
    expect(brokenRules(run.report).map((rule) => `${rule.id} ${rule.status}: ${rule.message}`)).toEqual([]);
    expect(run.report.verdict).toBe('incomplete');
    expect(run.report.rules.filter((rule) => rule.status === 'skipped' && /--max-requests/.test(rule.message ?? '')).length).toBeGreaterThan(10);
    expect(run.stdout.match(/request budget of 30 \(--max-requests\) spent/g)).toHaveLength(1);
  }, TIMEOUT_MS);
});
