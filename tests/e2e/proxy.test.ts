// Corporate CI reaches staging through a proxy. Here the target listens on one port while the base URL
// names another where nothing listens: only a proxy that knows the mapping can reach it, so a run that
// certifies it sent every request through the proxy.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import { runCli } from '../support/cli.js';
import { outputTail, withChildSlot } from '../support/harness.js';

const KEYS = ['proxy-test-key-71c2', 'proxy-test-key-83d4', 'proxy-test-key-95e6', 'proxy-test-key-a7f8'];
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

/** A loopback port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a target reachable only through a proxy', () => {
  let target: RunningReferenceServer;
  let proxy: TinyProxy;
  let proxyPort: number;
  let baseUrl: string;

  beforeAll(async () => {
    // A key per test: the full run's 429 probe spends its key's window, which must not stall the others.
    target = await startReferenceServer({ apiKeys: KEYS });
    proxy = new TinyProxy(Number(new URL(target.url).port));
    proxyPort = await proxy.start();
    baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  });
  afterAll(async () => {
    await proxy.stop();
    await target.close();
  });

  it('is certified through HTTP_PROXY, every request passing the proxy with its credentials, which no output shows', async () => {
    const before = proxy.seen.length;
    const env = { PETSTORE_API_KEY: KEYS[0]!, HTTP_PROXY: `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${proxyPort}` };
    const run = await withChildSlot(() => runCli(['--base-url', baseUrl, '--strict'], { env, timeoutMs: 4 * 60_000 }));
    if (run.report === undefined) expect.fail(`the run exited ${run.code} without report.json\n${outputTail(run)}`);
    expect({ code: run.code, verdict: run.report.verdict }).toEqual({ code: 0, verdict: 'certified' });
    const relayed = proxy.seen.slice(before);
    expect(relayed.length).toBe(run.report.requests.total);
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
    const env = { PETSTORE_API_KEY: KEYS[3]!, HTTP_PROXY: `http://127.0.0.1:${await closedPort()}` };
    const run = await withChildSlot(() => runCli(['--base-url', baseUrl, '--only', 'store'], { env }));
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/cannot reach the proxy http:\/\/127\.0\.0\.1:\d+ \(for http:\/\/127\.0\.0\.1:\d+\): connection refused/);
  });
});
