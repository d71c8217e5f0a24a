// A target whose rate limit never frees up: pacing honours it, and --max-duration bounds the whole run.
// A mock whose every rate-limit header is 0 (as Stoplight Prism sends them): pacing slows the run, and says so.
// A sliding log whose oldest requests age out while its Remaining is 0: a request then answered is no request over the limit.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectKeyNowhere, ruleOf, runAgainst } from '../support/hostile-run.js';
import { prismLikeHandler, startHttpServer, type Handler, type LoopbackServer } from '../support/hostile-servers.js';

/** Every answer says the window is spent and resets 100 s from now: a run that obeys it would wait forever. */
function startExhaustedServer(): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, {
      'content-type': 'application/json',
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 100),
    });
    response.end('[]');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => requests });
  }));
}

describe('a rate limit that never frees up', () => {
  let target: Awaited<ReturnType<typeof startExhaustedServer>>;
  beforeAll(async () => {
    target = await startExhaustedServer();
  });
  afterAll(() => new Promise<void>((resolve) => target.server.close(() => resolve())));

  it('ends within --max-duration, the rules it could not reach skipped and naming the option', async () => {
    const started = performance.now();
    const run = await runAgainst(target.url, ['--max-duration', '5', '--timeout', '1000']);
    const wallSeconds = (performance.now() - started) / 1000;

    // Generous: the bound under test is 5 s of checks; the rest is start-up on a busy machine.
    expect(wallSeconds).toBeLessThan(45);
    expect(run.report, run.stderr).toBeDefined();
    const skipped = run.report!.rules.filter((rule) => rule.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.some((rule) => /--max-duration/.test(rule.message ?? ''))).toBe(true);
    // Pacing held: one request per credential bucket learns the window is spent, then nothing more is sent but the
    // 429 probe's: one request over the spent window, and as it was let through, a burst of the pace the server states
    // over two latencies plus one for each request the run keeps in flight (5), which a limiter that enforces anything meets with a 429.
    const PACED_AT_MOST = 8;
    const PROBE_AT_MOST = 1 + 1 + (1 + 5);
    expect(target.requests()).toBeLessThanOrEqual(PACED_AT_MOST + PROBE_AT_MOST);
    expectKeyNowhere(run);
  });
});

describe('a mock whose every rate-limit header is 0 (Remaining 0, Reset 0, as Prism sends them)', () => {
  let target: LoopbackServer;
  beforeAll(async () => {
    target = await startHttpServer(prismLikeHandler());
  });
  afterAll(() => target.close());

  it('says once that pacing holds the run back, and why; report.json counts every wait; RATE-04 and RATE-13 say what they saw', async () => {
    // The auth and fetching areas' requests (some 50, with and without a key) wait a quarter second each: some 10 s.
    const run = await runAgainst(target.baseUrl, ['--only', 'auth,fetching,ratelimit', '--rate-limit-budget', '0', '--max-duration', '50']);
    expect(run.report, run.stderr).toBeDefined();
    const said = run.stdout.split('\n').filter((line) => /held this run back/.test(line));
    expect(said, run.stdout).toHaveLength(1);
    expect(said[0]).toMatch(/rate-limit pacing has held this run back \d+\.\d s so far in \d+ waits, \d+\.\d s of it in waits too short to announce one by one \(.+\): X-RateLimit-Remaining 0 with an X-RateLimit-Reset already past \(X-RateLimit-Reset: 0\)/);

    const waits = run.report!.rateLimitWaits!;
    // One wait per request held back, however often it slept: never more waits than requests.
    expect(waits.count).toBeGreaterThanOrEqual(20);
    expect(waits.count).toBeLessThanOrEqual(run.report!.requests.total);
    expect(waits.totalMs).toBeGreaterThanOrEqual(5_000);
    expect(waits.reasons?.[0]?.reason).toMatch(/^X-RateLimit-Remaining 0 with an X-RateLimit-Reset already past \(X-RateLimit-Reset: 0\)/);
    // The summary line totals them, short ones included.
    expect(run.stdout).toMatch(new RegExp(`, ${waits.count} rate-limit waits \\(\\d+\\.\\d s\\)`));

    const steps = ruleOf(run, 'RATE-04');
    expect(steps.status).toBe('skipped');
    expect(steps.message).toMatch(/X-RateLimit-Reset already past \(0\)/);
    expect(steps.message).not.toMatch(/sliding window/);
    const counting = ruleOf(run, 'RATE-13').observations.join('\n');
    expect(counting).toMatch(/with the key: not told \(no request came while X-RateLimit-Remaining was above 0; \d+ came when X-RateLimit-Remaining was already 0/);
    expect(counting).toMatch(/requests without a valid key \(\d+\): not told \(\d+ came when X-RateLimit-Remaining was already 0/);
    expect(counting).not.toMatch(/\b0 request\(s\) lowered|[^\d]0 of \d+ lowered|not counted/);
    expectKeyNowhere(run);
  }, 90_000);
});

/**
 * A sliding log of 20 requests, scripted: once its Remaining reaches 0, its three oldest requests age out, so the next
 * three are answered (Remaining 2, 1, 0) and the one after them 429. Its Reset, in whole seconds, stays where it was,
 * as a real log's may for a second: the time the oldest request left still counted drops out.
 */
function agingSlidingLogHandler(): Handler {
  const limit = 20;
  const reset = String(Math.floor(Date.now() / 1000) + 30);
  let remaining = limit;
  let agedOut = false;
  return (_request, response) => {
    if (remaining === 0 && !agedOut) {
      agedOut = true;
      remaining = 3;
    }
    const limited = remaining === 0;
    if (!limited) remaining -= 1;
    const headers = { 'content-type': 'application/json', 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': reset };
    if (limited) response.writeHead(429, { ...headers, 'retry-after': '30' }).end(JSON.stringify({ status: 429, message: 'Too many requests' }));
    else response.writeHead(200, headers).end('[]');
  };
}

describe('a sliding log whose oldest requests age out while the probe finds Remaining 0, its Reset in the same second', () => {
  let target: LoopbackServer;
  beforeAll(async () => {
    target = await startHttpServer(agingSlidingLogHandler());
  });
  afterAll(() => target.close());

  it('RATE-07 passes: the requests answered after Remaining 0 had room the log freed, and the first over the limit was refused', async () => {
    const run = await runAgainst(target.baseUrl, ['--only', 'RATE-07']);
    const rule = ruleOf(run, 'RATE-07');
    expect({ status: rule.status, message: rule.message }).toEqual({ status: 'passed', message: undefined });
    expect(rule.observations.join('\n')).toMatch(/the first 429 answered request \d+/);
    expectKeyNowhere(run);
  });
});
