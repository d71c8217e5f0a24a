// Corporate CI reaches staging through a proxy. Here the target listens on one port while the base URL
// names another where nothing listens: only a proxy that knows the mapping can reach it, so a run that
// certifies it sent every request through the proxy.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import { runCli, type CliRun } from '../support/cli.js';
import { FUZZING_SAMPLE, harnessPlan, outputTail, timedInChildSlot, withChildSlot } from '../support/harness.js';
import { refusedPort, selfSignedCertificate, startTlsFront, type LoopbackServer } from '../support/hostile-servers.js';
import { startTinyproxy, tinyproxyMissing, type RunningTinyproxy } from '../support/tinyproxy.js';
import { scratchDir } from '../support/scratch.js';

const KEYS = ['proxy-test-key-71c2', 'proxy-test-key-83d4', 'proxy-test-key-95e6', 'proxy-test-key-a7f8'];
// A run may first wait for one of the machine's child slots, held by other test files.
const SLOT_WAIT_MS = 5 * 60_000;
const TINYPROXY_KEYS = ['tinyproxy-key-0b1c', 'tinyproxy-key-2d3e', 'tinyproxy-key-4f5a', 'tinyproxy-key-6b7c'];
const PROXY_USER = 'ci-user';
const PROXY_PASSWORD = 'proxy-s3cret-9d2e';

/** A forward proxy for plain http: it takes absolute-form requests and relays them to `upstreamPort`. */
class TinyProxy {
  readonly seen: string[] = [];
  readonly credentials: Array<string | undefined> = [];
  private server: Server | undefined;

  constructor(private readonly upstreamPort: number) {}

  async start(): Promise<number> {
    this.server = createServer((incoming, outgoing) => {
      this.seen.push(`${incoming.method} ${incoming.url}`);
      this.credentials.push(incoming.headers['proxy-authorization']);
      const target = new URL(incoming.url ?? '/');
      const headers = { ...incoming.headers };
      delete headers['proxy-authorization'];
      const relay = httpRequest({ host: '127.0.0.1', port: this.upstreamPort, method: incoming.method, path: target.pathname + target.search, headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      relay.on('error', () => outgoing.writeHead(502).end());
      incoming.pipe(relay);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server!.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe('a target reachable only through a proxy', () => {
  let target: RunningReferenceServer;
  let proxy: TinyProxy;
  let proxyPort: number;
  let baseUrl: string;

  beforeAll(async () => {
    // A key per test: the full run's 429 probe spends its key's window, which must not stall the others. The
    // harness's plan for a run whose fuzzing sends one body of each kind keeps that probe to some 65 requests
    // through the proxy, not six hundred.
    target = await startReferenceServer({ apiKeys: KEYS, ...harnessPlan(undefined, undefined, true) });
    proxy = new TinyProxy(Number(new URL(target.url).port));
    proxyPort = await proxy.start();
    baseUrl = `http://127.0.0.1:${await refusedPort()}/v1`;
  });
  afterAll(async () => {
    await proxy.stop();
    await target.close();
  });

  it('is certified through HTTP_PROXY, every request passing the proxy with its credentials, which no output shows', async () => {
    const before = proxy.seen.length;
    const env = { PETSTORE_API_KEY: KEYS[0]!, HTTP_PROXY: `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${proxyPort}` };
    const run = await withChildSlot(() => runCli(['--base-url', baseUrl, '--strict', ...FUZZING_SAMPLE], { env, timeoutMs: 4 * 60_000 }));
    if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
    expect({ code: run.code, verdict: run.report.verdict }).toEqual({ code: 0, verdict: 'certified' });
    const relayed = proxy.seen.slice(before);
    // A request this proxy left unparsed behind an earlier body on a kept connection (REQ-09), reset, and sent again on
    // a new one, is a request the run counts and the proxy never saw; every other one passed it.
    const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: Array<{ response: { _retried?: boolean } }> } };
    const resent = har.log.entries.filter((entry) => entry.response._retried === true).length;
    expect(relayed.length).toBeGreaterThanOrEqual(run.report.requests.total - resent);
    expect(relayed.length).toBeLessThanOrEqual(run.report.requests.total);
    expect(relayed.every((line) => line.includes(`${baseUrl}/`))).toBe(true);
    expect(new Set(proxy.credentials.slice(before))).toEqual(new Set([`Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`]));
    expect(run.report.target.proxy).toBe(`http://127.0.0.1:${proxyPort}`);
    expect(`${run.stdout}${run.stderr}${JSON.stringify(run.report)}`).not.toContain(PROXY_PASSWORD);
    expect(run.stdout).toContain(`Through the proxy http://127.0.0.1:${proxyPort}`);
  }, 5 * 60_000);

  it('reads the lower-case http_proxy too', async () => {
    const env = { PETSTORE_API_KEY: KEYS[1]!, http_proxy: `http://127.0.0.1:${proxyPort}` };
    const run = await withChildSlot(() => runCli(['--base-url', baseUrl, '--only', 'store'], { env }));
    expect(run.report?.target.proxy).toBe(`http://127.0.0.1:${proxyPort}`);
    expect(run.code).toBe(0);
  });

  it('goes direct for a host NO_PROXY names, and so cannot reach the target', async () => {
    const env = { PETSTORE_API_KEY: KEYS[2]!, HTTP_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: '127.0.0.1' };
    const before = proxy.seen.length;
    const run = await withChildSlot(() => runCli(['--base-url', baseUrl, '--only', 'store'], { env }));
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
    expect(proxy.seen.length).toBe(before);
  });

  it('names the proxy when the proxy itself cannot be reached', async () => {
    const env = { PETSTORE_API_KEY: KEYS[3]!, HTTP_PROXY: `http://127.0.0.1:${await refusedPort()}` };
    const run = await withChildSlot(() => runCli(['--base-url', baseUrl, '--only', 'store'], { env }));
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/cannot reach the proxy http:\/\/127\.0\.0\.1:\d+ \(for http:\/\/127\.0\.0\.1:\d+\): connection refused/);
  });
});

/** A proxy that answers `status` to every request and to every CONNECT: nothing ever reaches a target. */
async function startRefusingProxy(status: number): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${status === 407 ? 'Proxy-Authenticate: Basic realm="ci"\r\n' : ''}Content-Length: 0\r\n\r\n`;
  const server = createServer((incoming, outgoing) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    outgoing.writeHead(status, status === 407 ? { 'proxy-authenticate': 'Basic realm="ci"' } : {}).end();
  });
  server.on('connect', (incoming, socket) => {
    seen.push(`CONNECT ${incoming.url}`);
    socket.end(head);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A CLI run and its own duration, the wait for a machine-wide slot left out. */
async function timedRun(args: readonly string[], options: { env: Record<string, string>; timeoutMs: number }): Promise<{ run: CliRun; elapsedMs: number }> {
  const { result, ms } = await timedInChildSlot(() => runCli(args, options));
  return { run: result, elapsedMs: ms };
}

/** Exit 3 within 30 s, the proxy named without its credentials: the target was not judged, nor blamed. */
function expectProxyRefusal(run: CliRun, elapsedMs: number, line: RegExp): void {
  expect(run.code, outputTail(run)).toBe(3);
  expect(elapsedMs).toBeLessThan(30_000);
  expect(`${run.stdout}${run.stderr}`).toMatch(line);
  expect(`${run.stdout}${run.stderr}`).not.toContain(PROXY_PASSWORD);
  expect(`${run.stdout}${run.stderr}`).not.toContain('NOT CERTIFIED');
}

/** A plain http run through a proxy reaches the target before the proxy can refuse: the report says not judged. */
function expectNotJudgedReport(run: CliRun): void {
  expect(run.report?.verdict).toBe('not-judged');
  expect(run.report?.counts.MUST.errored ?? 0).toBe(0);
  expect(JSON.stringify(run.report)).not.toContain(PROXY_PASSWORD);
}

describe('a proxy that refuses ends the run as not judged (exit 3), naming the proxy', () => {
  // Nothing listens at the targets: only the proxy ever answers.
  let httpTarget: string;
  let httpsTarget: string;

  beforeAll(async () => {
    httpTarget = `http://127.0.0.1:${await refusedPort()}/v1`;
    httpsTarget = `https://127.0.0.1:${await refusedPort()}/v1`;
  });

  it('a proxy answering 407 to a plain http target stops the run at its first answer', async () => {
    const proxy = await startRefusingProxy(407);
    try {
      const env = { PETSTORE_API_KEY: KEYS[0]!, HTTP_PROXY: proxy.url.replace('//', `//${PROXY_USER}:${PROXY_PASSWORD}@`) };
      const { run, elapsedMs } = await timedRun(['--base-url', httpTarget], { env, timeoutMs: 60_000 });
      expectProxyRefusal(run, elapsedMs, new RegExp(`the proxy ${proxy.url} answered 407 Proxy Authentication Required to GET ${httpTarget}/\\S+: the request never reached the target; no further request is sent`));
      expect(run.stdout).toContain('NOT JUDGED');
      expect(run.stdout).toContain('the proxy refused the user and password in HTTP_PROXY: check them');
      expectNotJudgedReport(run);
      expect(proxy.seen.length).toBeLessThanOrEqual(8);
    } finally {
      await proxy.close();
    }
  }, SLOT_WAIT_MS + 60_000);

  it('a proxy answering 407 to CONNECT stops an https run before any request, in one line', async () => {
    const proxy = await startRefusingProxy(407);
    try {
      const env = { PETSTORE_API_KEY: KEYS[0]!, HTTPS_PROXY: proxy.url };
      const { run, elapsedMs } = await timedRun(['--base-url', httpsTarget], { env, timeoutMs: 60_000 });
      expectProxyRefusal(run, elapsedMs, /\npetstore-conformance: the proxy http:\/\/127\.0\.0\.1:\d+ answered 407 Proxy Authentication Required to CONNECT 127\.0\.0\.1:\d+: the request never reached the target; the proxy wants a user and password: give them in HTTPS_PROXY \(http:\/\/user:password@host:port\)\n$/);
      expect(run.report).toBeUndefined();
      expect(proxy.seen).toEqual([`CONNECT ${new URL(httpsTarget).host}`]);
    } finally {
      await proxy.close();
    }
  }, SLOT_WAIT_MS + 60_000);

  it('a proxy refusing CONNECT (403) stops an https run, saying what to ask for', async () => {
    const proxy = await startRefusingProxy(403);
    try {
      const env = { PETSTORE_API_KEY: KEYS[0]!, HTTPS_PROXY: proxy.url };
      const { run, elapsedMs } = await timedRun(['--base-url', httpsTarget], { env, timeoutMs: 60_000 });
      expectProxyRefusal(run, elapsedMs, /the proxy http:\/\/127\.0\.0\.1:\d+ answered 403 Forbidden to CONNECT 127\.0\.0\.1:\d+: the request never reached the target; the proxy refuses to carry this request: ask its administrators to allow tunnels \(CONNECT\) to 127\.0\.0\.1:\d+, or exempt the target with NO_PROXY/);
    } finally {
      await proxy.close();
    }
  }, SLOT_WAIT_MS + 60_000);
});

// Debian's tinyproxy with BasicAuth: a proxy as CI meets it, not one this file wrote.
const tinyproxyAbsent = tinyproxyMissing();
describe.skipIf(tinyproxyAbsent !== undefined)(`through tinyproxy, which requires a user and password${tinyproxyAbsent ? ` (skipped: ${tinyproxyAbsent})` : ''}`, () => {
  const certificate = selfSignedCertificate();
  const caFile = join(scratchDir('petstore-proxy-tls-'), 'ca.pem');
  writeFileSync(caFile, certificate.cert);
  let target: RunningReferenceServer;
  let front: LoopbackServer;
  let tinyproxy: RunningTinyproxy;
  const withCredentials = (password: string) => tinyproxy.url.replace('//', `//${PROXY_USER}:${password}@`);

  beforeAll(async () => {
    target = await startReferenceServer({ apiKeys: TINYPROXY_KEYS });
    front = await startTlsFront(certificate, Number(new URL(target.url).port));
    // Tunnels to the TLS front only: an https target on any other port is refused (403).
    tinyproxy = await startTinyproxy({ user: PROXY_USER, password: PROXY_PASSWORD, connectPorts: [front.port] });
  });
  afterAll(async () => {
    await tinyproxy?.stop();
    await front?.close();
    await target?.close();
  });

  it('without credentials, ends the run with exit 3 within 30 s, naming the proxy and its 407', async () => {
    const env = { PETSTORE_API_KEY: TINYPROXY_KEYS[0]!, HTTP_PROXY: tinyproxy.url };
    const { run, elapsedMs } = await timedRun(['--base-url', target.url], { env, timeoutMs: 60_000 });
    expectProxyRefusal(run, elapsedMs, new RegExp(`the proxy ${tinyproxy.url} answered 407 Proxy Authentication Required to GET ${target.url}/\\S+: the request never reached the target`));
    expect(run.stdout).toContain('the proxy wants a user and password: give them in HTTP_PROXY (http://user:password@host:port)');
    expectNotJudgedReport(run);
  }, SLOT_WAIT_MS + 60_000);

  // tinyproxy answers wrong credentials 401 with an HTML page, not 407: the proxy is named all the same.
  it('with a wrong password, names the proxy as the likely refuser, and shows none of the credentials', async () => {
    const env = { PETSTORE_API_KEY: TINYPROXY_KEYS[1]!, HTTP_PROXY: withCredentials('not-the-password') };
    const { run, elapsedMs } = await timedRun(['--base-url', target.url], { env, timeoutMs: 60_000 });
    expectProxyRefusal(run, elapsedMs, new RegExp(`every request with the key was answered 401 \\(\\d+ of \\d+\\), with an HTML page, not the API's JSON: the proxy ${tinyproxy.url} may be refusing its credentials`));
    expect(run.stdout).toContain('What to change: check the proxy\'s user and password in HTTP_PROXY; if they are right, is the key right');
    expectNotJudgedReport(run);
    expect(`${run.stdout}${run.stderr}${JSON.stringify(run.report)}`).not.toContain('not-the-password');
  }, SLOT_WAIT_MS + 60_000);

  it('with the right credentials, carries a plain http run to its verdict', async () => {
    const env = { PETSTORE_API_KEY: TINYPROXY_KEYS[2]!, HTTP_PROXY: withCredentials(PROXY_PASSWORD) };
    const run = await withChildSlot(() => runCli(['--base-url', target.url, '--only', 'store,fetching'], { env }));
    expect({ code: run.code, verdict: run.report?.verdict }, outputTail(run)).toEqual({ code: 0, verdict: 'incomplete' });
    expect(run.report?.target.proxy).toBe(tinyproxy.url);
  }, SLOT_WAIT_MS + 120_000);

  it('with the right credentials, tunnels an https run, the target\'s certificate checked against --ca-file', async () => {
    const env = { PETSTORE_API_KEY: TINYPROXY_KEYS[3]!, HTTPS_PROXY: withCredentials(PROXY_PASSWORD) };
    const run = await withChildSlot(() => runCli(['--base-url', front.baseUrl, '--ca-file', caFile, '--only', 'store'], { env }));
    expect({ code: run.code, verdict: run.report?.verdict }, outputTail(run)).toEqual({ code: 0, verdict: 'incomplete' });
  }, SLOT_WAIT_MS + 120_000);

  it('tunnelling to a target whose certificate is not trusted, ends an https run with exit 3 naming both', async () => {
    const env = { PETSTORE_API_KEY: TINYPROXY_KEYS[3]!, HTTPS_PROXY: withCredentials(PROXY_PASSWORD) };
    const { run } = await timedRun(['--base-url', front.baseUrl], { env, timeoutMs: 60_000 });
    expect(run.code, outputTail(run)).toBe(3);
    expect(run.stderr).toBe(`petstore-conformance: cannot reach ${new URL(front.baseUrl).origin} through the proxy ${tinyproxy.url}: the TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT); trust its CA with --ca-file <pem>\n`);
  }, SLOT_WAIT_MS + 60_000);

  it('refusing the tunnel to a port it does not allow, ends an https run with exit 3 and its answer', async () => {
    const env = { PETSTORE_API_KEY: TINYPROXY_KEYS[3]!, HTTPS_PROXY: withCredentials(PROXY_PASSWORD) };
    const refusedTarget = `https://127.0.0.1:${await refusedPort()}/v1`;
    const { run, elapsedMs } = await timedRun(['--base-url', refusedTarget, '--ca-file', caFile], { env, timeoutMs: 60_000 });
    expectProxyRefusal(run, elapsedMs, new RegExp(`the proxy ${tinyproxy.url} answered 403 Access violation to CONNECT 127\\.0\\.0\\.1:\\d+: the request never reached the target`));
    expect(run.report).toBeUndefined();
  }, SLOT_WAIT_MS + 60_000);
});
