// Redirects are never followed: a 3xx is judged as the response it is, and the key cannot travel to
// the origin a Location header names. A second server stands at that origin and records anything,
// above all any Authorization header, that reaches it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectKeyNowhere, ruleOf, rulesRun, runAgainst } from '../support/hostile-run.js';
import { sendJson, startHttpServer, type LoopbackServer } from '../support/hostile-servers.js';

const REDIRECTS = [301, 302, 303, 307, 308];
let elsewhere: LoopbackServer;
let target: LoopbackServer;

beforeAll(async () => {
  elsewhere = await startHttpServer((_request, response) => sendJson(response, 200, []));
  // Every redirect status in turn, each pointing at the same path on the other origin.
  target = await startHttpServer((request, response, index) => {
    response.writeHead(REDIRECTS[index % REDIRECTS.length]!, { location: `http://127.0.0.1:${elsewhere.port}${request.url}` }).end();
  });
});

afterAll(async () => {
  await target.close();
  await elsewhere.close();
});

it('a 3xx is judged as it is, and nothing (no key above all) reaches the origin it points to', async () => {
  const run = await runAgainst(target.baseUrl, ['--only', 'listing,fetching', '--timeout', '2000']);
  expect(run.code, run.stderr).toBe(1);
  expect(ruleOf(run, 'LIST-01').status).toBe('failed');
  expect(ruleOf(run, 'LIST-01').message).toMatch(/^expected status 200, saw 301 \(GET \/v1\/pets → 301\)/);
  // Every request met a redirect, and every redirect status was sent at least once.
  expect(target.requests.length).toBeGreaterThanOrEqual(REDIRECTS.length);
  for (const rule of rulesRun(run)) expect(rule.message ?? '', rule.id).not.toMatch(/TransportError/);

  expect(elsewhere.connections, 'connections at the redirect target').toBe(0);
  expect(elsewhere.requests.filter((request) => request.headers.authorization !== undefined)).toEqual([]);
  expectKeyNowhere(run);
});
