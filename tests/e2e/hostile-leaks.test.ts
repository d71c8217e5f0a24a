// A target that echoes the key back: in an error message, in a header, in a body it compresses. The
// key must still appear in no output and no report file, whatever the target does with it.
import { afterAll, beforeAll, expect, it } from 'vitest';
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
