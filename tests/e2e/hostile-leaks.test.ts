// A target that echoes the key back: in an error message, in a header, in a body it compresses. The
// key must still appear in no output and no report file, whatever the target does with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCli } from '../support/cli.js';
import { expectKeyNowhere } from '../support/hostile-run.js';
import { startHttpServer, type LoopbackServer } from '../support/hostile-servers.js';

// Shaped like many real keys (base64 with + / =), so that every escaping a report applies is exercised.
const KEY = 'pk_live+Echo/7rQ2x9w==';
let target: LoopbackServer;

beforeAll(async () => {
  // In turn: the key echoed as sent, in JSON with escaped slashes (PHP's default), and gzipped.
  target = await startHttpServer((request, response, index) => {
    const sent = request.headers.authorization ?? '(none)';
    const json = JSON.stringify({ code: 'unauthorized', message: `token ${sent} is not valid here`, status: 401 });
    const headers = { 'content-type': 'application/json', 'x-debug-authorization': sent };
    if (index % 3 === 0) response.writeHead(401, headers).end(json);
    else if (index % 3 === 1) response.writeHead(401, headers).end(json.replaceAll('/', '\\/'));
    else response.writeHead(401, { ...headers, 'content-encoding': 'gzip' }).end(gzipSync(json));
  });
});

afterAll(async () => {
  await target.close();
});

it('a key the target echoes in its bodies and headers is redacted from the output and every report', async () => {
  const run = await runCli(['--base-url', target.baseUrl, '--only', 'listing,auth', '--timeout', '2000'], { env: { PETSTORE_API_KEY: KEY } });
  // 401 to every request with the key: the run stops at its first answers and asks whether the key is right.
  expect(run.code, run.stderr).toBe(3);
  expect(run.report?.verdict).toBe('not-judged');
  expect(run.stdout).toContain('is the key right, or is it for another environment?');
  // The echo did reach the reports (redacted), so the search below looks where the key would be.
  const seen = run.report?.diagnosis?.exchange?.exchange.response;
  expect(seen?.headers['x-debug-authorization']).toBe('Bearer $PETSTORE_API_KEY');
  expect(seen?.rawBody).toContain('token Bearer $PETSTORE_API_KEY is not valid here');
  expect(target.requests.some((request) => request.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  // manifest.json and badge.svg are among the files searched; the manifest states the key only as redacted.
  expect(existsSync(join(run.reportDir, 'badge.svg'))).toBe(true);
  expect(readFileSync(join(run.reportDir, 'manifest.json'), 'utf8')).toContain('"apiKey": "[redacted]"');
  expectKeyNowhere(run, KEY);
});

describe('the key AUTH-10 sends outside the Authorization header', () => {
  let echoing: LoopbackServer;

  beforeAll(async () => {
    // Takes the key from anywhere, and echoes where it found it: the URL, the cookies and the headers.
    echoing = await startHttpServer((request, response) => {
      const { url = '', headers } = request;
      const found = [url, headers.cookie ?? '', String(headers['x-api-key'] ?? ''), headers.authorization ?? ''].some((place) => place.includes(encodeURIComponent(KEY)) || place.includes(KEY));
      const echo = { 'x-seen-url': url, 'x-seen-cookie': headers.cookie ?? '', 'content-type': 'application/json' };
      if (found) response.writeHead(200, echo).end(JSON.stringify([{ id: 1, name: `seen ${url} ${headers.cookie ?? ''}`, categoryId: 1 }]));
      else response.writeHead(401, { ...echo, 'www-authenticate': 'Bearer' }).end(JSON.stringify({ code: 'unauthorized', message: `no key in ${url}`, status: 401 }));
    });
  });

  afterAll(async () => {
    await echoing.close();
  });

  it('reaches the target in the query, cookies and headers, and appears in no report, the URLs and curl lines included', async () => {
    const run = await runCli(['--base-url', echoing.baseUrl, '--only', 'AUTH-10', '--timeout', '2000'], { env: { PETSTORE_API_KEY: KEY } });
    expect(echoing.requests.some((request) => request.url.includes(`api_key=${encodeURIComponent(KEY)}`) && request.headers.authorization === undefined)).toBe(true);
    expect(echoing.requests.some((request) => request.headers['x-api-key'] === KEY && request.headers.cookie === undefined)).toBe(true);
    const rule = run.report?.rules.find((candidate) => candidate.id === 'AUTH-10');
    expect(rule?.status).toBe('failed');
    const evidence = rule?.evidence.flatMap((finding) => finding.exchanges) ?? [];
    expect(evidence.map((shown) => shown.exchange.request.url).join(' ')).toContain('api_key=$PETSTORE_API_KEY');
    expect(evidence.map((shown) => shown.curl).join(' ')).toContain('${PETSTORE_API_KEY}');
    expectKeyNowhere(run, KEY);
    // The form the key takes in a URL and a cookie, where the target echoed it back.
    for (const file of ['report.json', 'exchanges.har', 'report.html']) expect(readFileSync(join(run.reportDir, file), 'utf8')).not.toContain(encodeURIComponent(KEY));
  });
});
