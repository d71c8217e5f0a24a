// A target whose rate limit never frees up: pacing honours it, and --max-duration bounds the whole run.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectKeyNowhere, runAgainst } from '../support/hostile-run.js';

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
    // Pacing held: one request per credential bucket learns the window is spent, then nothing more is sent.
    expect(target.requests()).toBeLessThanOrEqual(8);
    expectKeyNowhere(run);
  });
});
