import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { PetstoreClient } from '../../helpers/http/client.js';
import { Pacer, RateLimitWaitTooLong, readRateLimitHeaders, type PacerOptions } from '../../helpers/http/pacing.js';
import { parseHttpDate, parseRetryAfter, retryAfterForm, retryAfterWaitMs } from '../../helpers/http/retry-after.js';

// Every wait here is on a fake clock (the loopback client tests wait a Retry-After of 1 s at most):
// a test that takes longer is hanging.
vi.setConfig({ testTimeout: 5_000 });

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

/** A pacer on a fake clock: sleeping advances time at once, and every wait and announcement is kept. */
function fakePacer(overrides: Partial<PacerOptions> = {}) {
  let now = T0;
  const sleeps: number[] = [];
  const lines: string[] = [];
  const pacer = new Pacer({
    reserve: 2,
    maxWaitMs: 120_000,
    maxRetries: 4,
    backoffBaseMs: 1_000,
    backoffCapMs: 60_000,
    onWait: (line) => lines.push(line),
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    now: () => now,
    random: () => 0.5,
    ...overrides,
  });
  return { pacer, sleeps, lines, now: () => now, advance: (ms: number) => (now += ms) };
}

/** Rate-limit headers as a server at `nowMs` would send them. */
function headers(limit: number, remaining: number, resetAtMs: number, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(resetAtMs / 1000), ...extra };
}

/** One request through the pacer: acquire, then the response's headers. */
async function request(pacer: Pacer, credential: string, status: number, responseHeaders: Record<string, string>): Promise<void> {
  await pacer.acquire(credential);
  pacer.release(credential, { status, headers: responseHeaders });
}

describe('pacing by X-RateLimit-Remaining', () => {
  it('sends without waiting while Remaining is above the reserve', async () => {
    const { pacer, sleeps } = fakePacer();
    for (const remaining of [59, 58, 57]) await request(pacer, 'key', 200, headers(60, remaining, T0 + 60_000));
    await pacer.acquire('key');
    expect(sleeps).toEqual([]);
  });

  it('waits until Reset once Remaining reaches the reserve, and says so on the terminal', async () => {
    const { pacer, sleeps, lines, now } = fakePacer();
    await request(pacer, 'key', 200, headers(60, 2, T0 + 40_000));
    await pacer.acquire('key');
    expect(now()).toBeGreaterThanOrEqual(T0 + 40_000);
    expect(now()).toBeLessThan(T0 + 41_000);
    expect(sleeps).toHaveLength(1);
    expect(lines).toEqual([expect.stringMatching(/^waiting 40\.\d s for the rate limit \(API key\): X-RateLimit-Remaining 2 of 60, 2 kept in reserve; until 12:00:40Z$/)]);
  });

  it('counts requests in flight against Remaining', async () => {
    const { pacer, sleeps } = fakePacer();
    await request(pacer, 'key', 200, headers(60, 4, T0 + 30_000));
    await request(pacer, 'key', 200, headers(60, 3, T0 + 30_000));
    await pacer.acquire('key');
    expect(sleeps).toEqual([]);
    // 3 remaining - 1 in flight = the reserve: the next waits for the reset, then for a response from the new window.
    let next = false;
    const waiting = pacer.acquire('key').then(() => (next = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sleeps).toHaveLength(1);
    expect(next).toBe(false);
    pacer.release('key', { status: 200, headers: headers(60, 59, T0 + 90_000) });
    await waiting;
  });

  it('sends the last few of a window one at a time, and many at once before them', async () => {
    const { pacer, sleeps } = fakePacer();
    await request(pacer, 'key', 200, headers(60, 14, T0 + 30_000));
    // 14 - 2 kept in reserve: the first four go at once, until 8 are left.
    for (let i = 0; i < 4; i++) await pacer.acquire('key');
    let fifth = false;
    const waiting = pacer.acquire('key').then(() => (fifth = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(fifth, 'the fifth waits for the four in flight, not for the window').toBe(false);
    for (const remaining of [13, 12, 11]) pacer.release('key', { status: 200, headers: headers(60, remaining, T0 + 30_000) });
    await new Promise((resolve) => setImmediate(resolve));
    expect(fifth, 'one still in flight').toBe(false);
    pacer.release('key', { status: 200, headers: headers(60, 10, T0 + 30_000) });
    await waiting;
    expect(sleeps).toEqual([]);
  });

  it('sends one request at a time, and says so once, on a key whose Remaining falls further than its own requests', async () => {
    const { pacer, lines, sleeps } = fakePacer();
    await request(pacer, 'key', 200, headers(300, 200, T0 + 30_000));
    // One request of ours, yet 50 gone: a parallel pipeline spends the same key.
    await request(pacer, 'key', 200, headers(300, 150, T0 + 30_000));
    expect(lines.filter((line) => /another client spends the same limit/.test(line))).toHaveLength(1);
    expect(pacer.snapshot('key').shared).toBe(true);
    await pacer.acquire('key');
    let second = false;
    const waiting = pacer.acquire('key').then(() => (second = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(second, '148 spare, yet the second waits for the first').toBe(false);
    pacer.release('key', { status: 200, headers: headers(300, 149, T0 + 30_000) });
    await waiting;
    expect(sleeps).toEqual([]);
    expect(lines.filter((line) => /another client/.test(line)), 'said once').toHaveLength(1);
  });

  it('explains a falling Remaining by its own requests in flight, and keeps sending them together', async () => {
    const { pacer, lines } = fakePacer();
    for (let i = 0; i < 4; i++) await pacer.acquire('key');
    // The first answer comes back while three of ours are still in flight: they may be counted after it.
    pacer.release('key', { status: 200, headers: headers(300, 299, T0 + 30_000) });
    for (const remaining of [296, 297, 298]) pacer.release('key', { status: 200, headers: headers(300, remaining, T0 + 30_000) });
    for (let i = 0; i < 4; i++) await pacer.acquire('key');
    for (const remaining of [292, 293, 294, 295]) pacer.release('key', { status: 200, headers: headers(300, remaining, T0 + 30_000) });
    expect(pacer.snapshot('key').shared).toBeUndefined();
    expect(lines).toEqual([]);
    for (let i = 0; i < 4; i++) await pacer.acquire('key');
    expect(pacer.snapshot('key').inflight, 'four at once').toBe(4);
  });

  it('explains a falling Remaining by its requests without a valid key too: a server may count them by address', async () => {
    const { pacer, lines } = fakePacer();
    await request(pacer, 'key', 200, headers(300, 250, T0 + 30_000));
    for (let i = 0; i < 20; i++) await request(pacer, 'anonymous', 401, headers(300, 249 - i, T0 + 30_000));
    await request(pacer, 'key', 200, headers(300, 229, T0 + 30_000));
    expect(pacer.snapshot('key').shared).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('keeps the lowest Remaining of a window when responses overtake each other', async () => {
    const { pacer } = fakePacer();
    await request(pacer, 'key', 200, headers(60, 10, T0 + 30_000));
    await request(pacer, 'key', 200, headers(60, 20, T0 + 30_000));
    expect(pacer.snapshot('key').remaining).toBe(10);
    await request(pacer, 'key', 200, headers(60, 59, T0 + 90_000)); // a later Reset is a new window
    expect(pacer.snapshot('key').remaining).toBe(59);
  });

  it('paces each credential apart: a spent anonymous bucket does not hold up the key', async () => {
    const { pacer, sleeps } = fakePacer();
    await request(pacer, 'anonymous', 200, headers(60, 0, T0 + 30_000));
    await request(pacer, 'key', 200, headers(60, 50, T0 + 30_000));
    await pacer.acquire('key');
    expect(sleeps).toEqual([]);
    await pacer.acquire('anonymous');
    expect(sleeps).toHaveLength(1);
  });

  it('after the reset, sends one request at a time until a response shows the new window', async () => {
    const { pacer, advance } = fakePacer();
    await request(pacer, 'key', 200, headers(60, 1, T0 + 1_000));
    advance(2_000);
    await pacer.acquire('key');
    let second = false;
    const waiting = pacer.acquire('key').then(() => (second = true));
    await Promise.resolve();
    expect(second).toBe(false);
    pacer.release('key', { status: 200, headers: headers(60, 59, T0 + 62_000) });
    await waiting;
    expect(second).toBe(true);
  });

  it('corrects a Reset for a server clock that is behind ours, using the Date header', async () => {
    const { pacer, now } = fakePacer();
    // The server's clock is 30 s behind: by its Date, its window ends in 20 s.
    const serverNow = T0 - 30_000;
    await request(pacer, 'key', 200, headers(60, 0, serverNow + 20_000, { date: new Date(serverNow).toUTCString() }));
    await pacer.acquire('key');
    expect(now()).toBeGreaterThanOrEqual(T0 + 19_000);
  });

  it('reads a Reset sent as seconds until the reset (RATE-05 fails it, but the pacing holds)', async () => {
    const { pacer, now } = fakePacer();
    await request(pacer, 'key', 200, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '15' });
    await pacer.acquire('key');
    expect(now()).toBeGreaterThanOrEqual(T0 + 15_000);
  });
});

describe('waits that add up', () => {
  /** As Stoplight Prism answers from an OpenAPI description without examples: every header 0, on every answer. */
  const zeros = { 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' };

  it('counts every wait, each too short to announce, and says once, with the reason, that they hold the run back', async () => {
    const { pacer, lines, sleeps } = fakePacer();
    for (let i = 0; i < 40; i++) await request(pacer, 'key', 200, zeros);
    expect(sleeps.length, 'Reset 0 means a wait of the margin before every request').toBe(39);
    expect(sleeps.every((ms) => ms < 1_000)).toBe(true);
    const waits = pacer.waits();
    expect(waits.count).toBe(39);
    expect(waits.totalMs).toBe(sleeps.reduce((sum, ms) => sum + ms, 0));
    expect(waits.reasons).toEqual([{ reason: expect.stringMatching(/^X-RateLimit-Remaining 0 with an X-RateLimit-Reset already past \(X-RateLimit-Reset: 0\)/) as string, count: 39, totalMs: waits.totalMs }]);
    const said = lines.filter((line) => /held this run back/.test(line));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^rate-limit pacing has held this run back 5\.\d s so far in \d+ waits, 5\.\d s of it in waits too short to announce one by one \(API key\): X-RateLimit-Remaining 0 with an X-RateLimit-Reset already past/);
  });

  it('hears the tally after every wait, for the report', async () => {
    const tallies: number[] = [];
    const { pacer } = fakePacer({ onWaited: (tally) => tallies.push(tally.count) });
    for (let i = 0; i < 3; i++) await request(pacer, 'key', 200, zeros);
    expect(tallies).toEqual([1, 2]);
  });
});

describe('another client, and a 429', () => {
  it('takes an unexplained fall shown by a served answer as another client, and one shown only by a 429 as no evidence of one', async () => {
    const refused = fakePacer();
    await request(refused.pacer, 'key', 200, headers(300, 200, T0 + 30_000));
    await request(refused.pacer, 'key', 429, headers(300, 0, T0 + 30_000, { 'retry-after': '1' }));
    // Paced with care all the same, but a 429's Remaining 0 is the refusal RATE-14 judges, not evidence of a client.
    expect(refused.pacer.snapshot('key').shared).toBe(true);
    expect(refused.pacer.snapshot('key').sharedSeenServed).toBeUndefined();

    const served = fakePacer();
    await request(served.pacer, 'key', 200, headers(300, 200, T0 + 30_000));
    await request(served.pacer, 'key', 200, headers(300, 150, T0 + 30_000));
    expect(served.pacer.snapshot('key').sharedSeenServed).toBe(true);
  });
});

describe('after a 429', () => {
  it('honours Retry-After in delta-seconds before any request on that credential', async () => {
    const { pacer, now } = fakePacer();
    await request(pacer, 'key', 429, headers(60, 0, T0 + 60_000, { 'retry-after': '30' }));
    await pacer.acquire('key', { overLimit: true }); // even the probe waits a Retry-After out
    expect(now()).toBe(T0 + 30_000);
  });

  it('honours Retry-After as an HTTP-date', async () => {
    const { pacer, now } = fakePacer();
    await request(pacer, 'key', 429, headers(60, 0, T0 + 60_000, { 'retry-after': new Date(T0 + 45_000).toUTCString() }));
    await pacer.acquire('key');
    expect(now()).toBeGreaterThanOrEqual(T0 + 45_000);
  });

  it('waits until Reset when the 429 carries no Retry-After', async () => {
    const { pacer, now } = fakePacer();
    await request(pacer, 'key', 429, headers(60, 0, T0 + 25_000));
    await pacer.acquire('key');
    expect(now()).toBeGreaterThanOrEqual(T0 + 25_000);
  });

  it('sends no request on the credential while it waits, and keeps the other credential going', async () => {
    const { pacer, now } = fakePacer();
    await request(pacer, 'key', 429, headers(60, 0, T0 + 60_000, { 'retry-after': '10' }));
    await pacer.acquire('anonymous');
    expect(now()).toBe(T0);
    const sentAt: number[] = [];
    await Promise.all([1, 2, 3].map(async () => {
      await pacer.acquire('key', { overLimit: true });
      sentAt.push(now());
    }));
    expect(Math.min(...sentAt)).toBeGreaterThanOrEqual(T0 + 10_000);
  });

  it('backs off exponentially with jitter, never above the cap, and at least Retry-After', async () => {
    const { pacer } = fakePacer({ maxRetries: 10, random: () => 1 });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      pacer.release('key', { status: 429, headers: { 'retry-after': '0' } });
      waits.push(pacer.backoffAfter429('key', attempt)!);
      await pacer.acquire('key');
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    const { pacer: honest } = fakePacer();
    honest.release('key', { status: 429, headers: { 'retry-after': '90' } });
    expect(honest.backoffAfter429('key', 1)).toBe(90_000);
  });

  it('spreads the backoff between half the step and the step', () => {
    const low = fakePacer({ random: () => 0 }).pacer.backoffAfter429('key', 3);
    const high = fakePacer({ random: () => 0.999 }).pacer.backoffAfter429('key', 3);
    expect(low).toBe(2_000);
    expect(high).toBeGreaterThan(3_990);
    expect(high).toBeLessThanOrEqual(4_000);
  });

  it('bounds the retries', () => {
    const { pacer } = fakePacer({ maxRetries: 3 });
    expect([1, 2, 3, 4].map((attempt) => pacer.backoffAfter429('key', attempt) !== undefined)).toEqual([true, true, true, false]);
  });

  it('gives up on a credential whose wait is longer than a run accepts', async () => {
    const { pacer } = fakePacer({ maxWaitMs: 60_000 });
    pacer.release('key', { status: 429, headers: { 'retry-after': '3600' } });
    await expect(pacer.acquire('key')).rejects.toThrow(RateLimitWaitTooLong);
  });
});

describe('Retry-After and the rate-limit headers', () => {
  it('reads delta-seconds and the three HTTP-date forms of RFC 9110', () => {
    const at = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(at);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', T0)).toBe(at);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(at);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2030 12:00:30 GMT', T0)).toBe(30_000);
    expect(retryAfterForm('120')).toBe('delta-seconds');
    expect(retryAfterForm('Tue, 01 Jan 2030 12:00:30 GMT')).toBe('http-date');
  });

  it('rejects what is neither delta-seconds nor an HTTP-date', () => {
    for (const value of ['', '1.5', '-1', 'soon', '2030-01-01T12:00:00Z', 'Tue, 31 Feb 2030 12:00:00 GMT', '1 minute']) {
      expect(retryAfterForm(value), value).toBe('invalid');
      expect(parseRetryAfter(value), value).toBeUndefined();
    }
  });

  it('measures an HTTP-date Retry-After by the server clock too, and keeps the longer wait', () => {
    const serverNow = T0 - 10_000;
    const wait = retryAfterWaitMs({ 'retry-after': new Date(serverNow + 30_000).toUTCString(), date: new Date(serverNow).toUTCString() }, T0);
    expect(wait).toBeGreaterThanOrEqual(29_000);
    expect(retryAfterWaitMs({ 'retry-after': '7' }, T0)).toBe(7_000);
  });

  it('keeps only rate-limit headers that are non-negative integers', () => {
    expect(readRateLimitHeaders({ 'x-ratelimit-limit': '1000.0', 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '1893499200' }))
      .toEqual({ limit: undefined, remaining: undefined, reset: 1893499200 });
  });
});

describe('the client, against a loopback server', () => {
  /** A server that answers from `handle` and counts requests in flight; closed after the test. */
  async function withServer(handle: (count: number, res: ServerResponse) => void, test: (url: string, seen: { max: number; times: number[] }) => Promise<void>): Promise<void> {
    const seen = { max: 0, times: [] as number[] };
    let inflight = 0;
    const server = createServer((_req, res) => {
      seen.times.push(Date.now());
      inflight += 1;
      seen.max = Math.max(seen.max, inflight);
      res.on('finish', () => (inflight -= 1));
      handle(seen.times.length, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await test(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  const clientFor = (baseUrl: string, concurrency: number) => new PetstoreClient({
    baseUrl, apiKey: 'k', timeoutMs: 5_000, maxResponseBytes: 1_000_000, maxRequests: null, concurrency, rateLimitReserve: 2, onWait: () => undefined,
  });

  it('never has more requests in flight than --concurrency', async () => {
    await withServer((_count, res) => setTimeout(() => res.end('[]'), 20), async (url, seen) => {
      const client = clientFor(url, 3);
      await Promise.all(Array.from({ length: 12 }, () => client.send({ path: '/pets' })));
      await client.close();
      expect(seen.times).toHaveLength(12);
      expect(seen.max).toBeLessThanOrEqual(3);
      expect(seen.max).toBeGreaterThan(1);
    });
  });

  it('retries an unplanned 429 only once Retry-After has passed', async () => {
    const answer = (count: number, res: ServerResponse) => (count === 1
      ? res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"code":"rate_limited","message":"slow down","status":429}')
      : res.end('[]'));
    await withServer(answer, async (url, seen) => {
      const client = clientFor(url, 4);
      const exchange = await client.send({ path: '/pets' });
      await client.close();
      expect(exchange.response?.status).toBe(200);
      expect(seen.times).toHaveLength(2);
      expect(seen.times[1]! - seen.times[0]!).toBeGreaterThanOrEqual(1_000);
    });
  });
});
