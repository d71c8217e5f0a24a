// A rule never passes on nothing: a check with no response to judge is skipped, and its reason names
// the evidence that was missing. Run by hand:  npm run build && npx vitest run tests/e2e/no-evidence.test.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../cli/reports/report.js';
import { certifyInProcess, runInProcess } from '../support/in-process.js';
import { outputTail, withChildSlot } from '../support/harness.js';

const TIMEOUT_MS = 5 * 60_000;
// The reasons are read from report.json, the one report written: the runs are in this process.
const RUN = { timeoutMs: TIMEOUT_MS };
const REPORT_JSON = ['--reporter', 'json'];

function ruleOf(report: Report | undefined, id: string): { status?: string; message?: string } {
  const rule = report?.rules.find((candidate) => candidate.id === id);
  return { status: rule?.status, message: rule?.message };
}

describe('a rule with nothing to judge is skipped, naming what was missing', () => {
  it('skips RATE-02, RATE-03, RATE-05, RATE-13, RATE-14 and RATE-15 against a server without X-RateLimit headers, which RATE-01 fails', async () => {
    const run = await withChildSlot(() => certifyInProcess({ defects: ['rate-headers-draft-only'] }, ['--only', 'ratelimit', ...REPORT_JSON], RUN));
    if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
    expect(ruleOf(run.report, 'RATE-01').status).toBe('failed');
    expect(ruleOf(run.report, 'RATE-02')).toEqual({ status: 'skipped', message: expect.stringMatching(/no response carried any X-RateLimit-\* header.*RATE-01 reports the missing headers/) });
    expect(ruleOf(run.report, 'RATE-03')).toEqual({ status: 'skipped', message: expect.stringMatching(/no response carried X-RateLimit-Limit and X-RateLimit-Remaining.*RATE-01/) });
    expect(ruleOf(run.report, 'RATE-05')).toEqual({ status: 'skipped', message: expect.stringMatching(/no response carried X-RateLimit-Reset, so there is nothing to judge \(RATE-01 reports the missing headers\)/) });
    expect(ruleOf(run.report, 'RATE-13')).toEqual({ status: 'skipped', message: expect.stringMatching(/no response carried X-RateLimit-Remaining and X-RateLimit-Reset.*no count to follow/) });
    expect(ruleOf(run.report, 'RATE-14')).toEqual({ status: 'skipped', message: expect.stringMatching(/no request with the key was answered 429, so there is no refusal to judge/) });
    expect(ruleOf(run.report, 'RATE-15')).toEqual({ status: 'skipped', message: expect.stringMatching(/no response carried X-RateLimit-Remaining and X-RateLimit-Reset.*no fall of X-RateLimit-Remaining to weigh/) });
    expect(run.code).toBe(1);
  }, TIMEOUT_MS);

  it('skips RATE-05 with the malformed header named when Reset is there but not an integer, which RATE-02 fails', async () => {
    const run = await withChildSlot(() => certifyInProcess({ defects: ['rate-reset-http-date'] }, ['--only', 'ratelimit', ...REPORT_JSON], RUN));
    expect(ruleOf(run.report, 'RATE-02').status).toBe('failed');
    expect(ruleOf(run.report, 'RATE-05')).toEqual({ status: 'skipped', message: expect.stringMatching(/no response carried X-RateLimit-Reset as an integer.*RATE-02 reports the malformed values/) });
  }, TIMEOUT_MS);

  it('skips LIST-02 against a target that gives every created pet one id, saying how many the run created, not that the store holds one pet', async () => {
    const run = await withChildSlot(() => certifyInProcess({ defects: ['create-same-id'] }, ['--only', 'LIST-02', ...REPORT_JSON], RUN));
    if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
    expect(run.report.created.reused).toHaveLength(1);
    expect(ruleOf(run.report, 'LIST-02')).toEqual({
      status: 'skipped',
      message: expect.stringMatching(/^the run created 2\d pets \(2\d POSTs answered 201\), but those answers and the listings show only 1 distinct pet id\(s\): 2\d creates were answered with 1 id\(s\) \(one id for several pets: CREATE-04 judges that\), so a default page of 20 cannot be told from a short store$/),
    });
  }, TIMEOUT_MS);

  it('skips ERR-05 when no request was answered with success (a service that is down), and still judges the errors', async () => {
    // Every request answered 503 with a well-formed Error: nothing succeeds, so no success body exists to judge.
    const down = createServer((request, response) => {
      request.resume();
      response.writeHead(503, { 'content-type': 'application/json', 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60) });
      response.end(JSON.stringify({ code: 'unavailable', message: 'down for maintenance', status: 503 }));
    });
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(down.address() as AddressInfo).port}/v1`;
    try {
      const run = await withChildSlot(() => runInProcess(['--base-url', url, '--only', 'errors', ...REPORT_JSON], 'down-key-8d3f', RUN));
      if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
      expect(ruleOf(run.report, 'ERR-05')).toEqual({ status: 'skipped', message: expect.stringMatching(/no request of this run was answered with success \(2xx\).*no success body to judge/) });
      for (const id of ['ERR-01', 'ERR-02', 'ERR-03']) expect(ruleOf(run.report, id).status, id).toBe('passed');
      expect(ruleOf(run.report, 'ERR-04').status).toBe('failed');
    } finally {
      down.closeAllConnections();
      await new Promise((resolve) => down.close(resolve));
    }
  }, TIMEOUT_MS);
});
