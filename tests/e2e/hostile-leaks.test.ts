// A target that echoes the key back: in an error message, in a header, in a body it compresses. The
// key must still appear in no output and no report file, whatever the target does with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Overrides } from '../../server/seams.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { runCli, type CliRun } from '../support/cli.js';
import { expectKeyNowhere, ruleOf } from '../support/hostile-run.js';
import { base64EchoesOf, echoesOf, secretAppearances } from '../support/secret-search.js';
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

describe('a conforming server that echoes every credential it receives, in every encoding', () => {
  // Its 401s hold the credential as sent and in each form below, in its Error's message and members (extra
  // members are the Error's freedom), and every answer says in a header which Authorization it saw.
  const echoing: Overrides = {
    unauthorized: (request, reference) => {
      const answer = reference(request);
      const sent = [request.headers.authorization, request.headers.cookie, request.headers['x-api-key'], request.url].filter(Boolean).join(' ');
      const token = (request.headers.authorization ?? '').replace(/^\S+\s*/, '');
      // A Basic token is base64: the server echoes what it decodes to, in every form, and the token as it came.
      const credential = /^basic /i.test(request.headers.authorization ?? '') ? Buffer.from(token, 'base64').toString('latin1') : token;
      // A key elsewhere (AUTH-10) as a framework hands it over, decoded from the query and the cookies.
      const elsewhere = decodeURIComponent([request.headers.cookie, request.headers['x-api-key'], request.url].filter(Boolean).join(' '));
      const echoes = { credential: echoesOf(credential), elsewhere: echoesOf(elsewhere), ...base64EchoesOf(request.headers.authorization ?? ''), ...base64EchoesOf(credential) };
      const masked = credential.length >= 20 ? `${credential.slice(0, 10)}…${credential.slice(-10)}` : credential;
      return { ...answer, json: { ...(answer.json as object), message: `refused ${sent} (${masked})`, echoes } };
    },
    outgoing: (request, reply, payload, reference) => reference(request, reply.header('x-seen-authorization', encodeURIComponent(request.headers.authorization ?? '')), payload),
  };

  async function runEchoed(key: string): Promise<CliRun> {
    const server = await startReferenceServer({ apiKeys: [key], overrides: [echoing] });
    try {
      return await runCli(['--base-url', server.url, '--only', 'auth', '--timeout', '5000'], { env: { PETSTORE_API_KEY: key } });
    } finally {
      await server.close();
    }
  }

  function expectSecretUnreadable(run: CliRun, key: string): void {
    const places: Record<string, string> = { stdout: run.stdout, stderr: run.stderr };
    for (const file of readdirSync(run.reportDir)) places[file] = readFileSync(join(run.reportDir, file), 'latin1');
    for (const [place, text] of Object.entries(places)) expect(secretAppearances(text, key), place).toEqual([]);
  }

  it('shows the key in none of them, in no output and no report', async () => {
    const key = 'pk_live+Echo/7rQ"x9w==<&>\'Zt';
    const run = await runEchoed(key);
    expect(run.code, run.stderr).toBe(0);
    expect(ruleOf(run, 'AUTH-01').status).toBe('passed');
    // The echoes did reach the reports, redacted: the search above looks where the key would be.
    expect(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')).toContain('refused Bearer $PETSTORE_API_KEY');
    expectSecretUnreadable(run, key);
  });

  // Its replacement once broke the JSON it redacted: an uncaught SyntaxError, exit 1 and no report at all.
  it('with a key that ends in a backslash, judges the run and writes its reports', async () => {
    const key = 'hostile-key-Zq81vX30w\\';
    const run = await runEchoed(key);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('SyntaxError');
    expect(run.report?.verdict).toBe('incomplete');
    expectSecretUnreadable(run, key);
  });
});
