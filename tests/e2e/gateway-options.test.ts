// Staging behind a gateway that wants its own header (--header) or a client certificate (--cert, --cert-key): the
// header reaches the target on every request and the certificate on every connection, and neither the header's value
// nor the private key appears in any output or report file.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import { verifyReportFolder } from '../../cli/verify.js';
import { runCli, type CliRun } from '../support/cli.js';
import { withSwitches } from '../support/switches.js';
import { selfSignedCertificate, startTlsFront, type LoopbackServer } from '../support/hostile-servers.js';
import { secretAppearances } from '../support/secret-search.js';
import { scratchDir } from '../support/scratch.js';

const KEY = 'gateway-test-key-5d0e';
const TOKEN = 'gw-token+Zq81/vX30wT==';

/** The base64 lines of a PEM: what holds the key, each as telling as the whole. */
function pemBodyLines(pem: string): string[] {
  return pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
}

/** Fails naming each place (stdout, stderr, a file of the report folder) where `secret` can be read. */
function expectNowhere(run: CliRun, secret: string): void {
  const places: Record<string, string> = { stdout: run.stdout, stderr: run.stderr };
  for (const entry of readdirSync(run.reportDir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) places[join(entry.parentPath, entry.name)] = readFileSync(join(entry.parentPath, entry.name), 'latin1');
  }
  for (const [place, text] of Object.entries(places)) expect(secretAppearances(text, secret), place).toEqual([]);
}

describe('--header', () => {
  let server: RunningReferenceServer;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    // Records every request's headers, and echoes the gateway's header back as a careless gateway's debug header does.
    server = await startReferenceServer(withSwitches({
      apiKeys: [KEY],
      defects: ['list-default-limit-10'],
      overrides: [{
        outgoing: (request, reply, payload, reference) => {
          seen.push(request.headers);
          return reference(request, reply.header('x-seen-gateway-token', String(request.headers['x-gateway-token'])), payload);
        },
      }],
    }));
  });

  afterAll(async () => {
    await server.close();
  });

  it('reaches the target on every request, those without the key and the 429 probe\'s included, and its value in no output or report', async () => {
    const run = await runCli(['--base-url', server.url, '--only', 'listing,auth,ratelimit', '--header', `X-Gateway-Token: ${TOKEN}`], { env: { PETSTORE_API_KEY: KEY } });
    expect(run.code, run.stderr).toBe(1);
    expect(seen.length).toBe(run.report?.requests.total);
    expect(seen.filter((headers) => headers['x-gateway-token'] !== TOKEN)).toEqual([]);
    expect(seen.some((headers) => headers.authorization === undefined), 'the auth checks sent requests without the key').toBe(true);
    expect(run.report?.rules.find((rule) => rule.id === 'RATE-07')?.status, 'the 429 probe ran').toBe('passed');
    // The reports name the header and its variable, and the curl lines expand the variable.
    expect(run.report?.options.headers).toEqual({ 'X-Gateway-Token': '[redacted]' });
    const curls = (run.report?.rules ?? []).flatMap((rule) => rule.evidence.flatMap((finding) => finding.exchanges.map((shown) => shown.curl)));
    expect(curls.length).toBeGreaterThan(0);
    for (const curl of curls) expect(curl).toContain('-H "x-gateway-token: ${PETSTORE_HEADER_X_GATEWAY_TOKEN}"');
    expect(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')).toContain('"value": "$PETSTORE_HEADER_X_GATEWAY_TOKEN"');
    expectNowhere(run, TOKEN);
    // The folder re-judges offline: the replay sends the header by the name report.json records.
    const verification = await verifyReportFolder(run.reportDir);
    expect(verification.line).toMatch(/^verified: /);
  }, 120_000);
});

describe('refusals before anything is sent', () => {
  it.each([
    [['--header', 'X-Gateway-Token'], /--header \(the 1st\) is not "Name: value"/],
    [['--header', 'X Token: v'], /--header names the header "X Token", which is not an HTTP header name/],
    [['--header', 'X-Token: a\r\nX-Other: b'], /--header X-Token: its value holds a line break/],
    [['--header', 'Host: elsewhere.example'], /--header Host is refused: the suite sets that header itself/],
    [['--header', 'x-api-key: k'], /--header x-api-key is refused: the suite sets that header itself \(the auth checks \(AUTH-10\)/],
    [['--cert', 'client.pem'], /--cert and --cert-key go together/],
  ])('%j exits 2 with one line', async (args, line) => {
    // A port nothing listens on: had anything been sent, the run would say it cannot reach it (exit 3).
    const run = await runCli(['--base-url', 'https://127.0.0.1:9/v1', ...args], { env: { PETSTORE_API_KEY: KEY } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(line);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('--cert and --cert-key', () => {
  const serverCertificate = selfSignedCertificate();
  const clientCertificate = selfSignedCertificate();
  const files = scratchDir('petstore-mtls-');
  const path = (name: string) => join(files, name);
  let server: RunningReferenceServer;
  let front: LoopbackServer;

  beforeAll(async () => {
    writeFileSync(path('server-ca.pem'), serverCertificate.cert);
    writeFileSync(path('client.pem'), clientCertificate.cert);
    writeFileSync(path('client-key.pem'), clientCertificate.key);
    server = await startReferenceServer({ apiKeys: [KEY] });
    // The gateway trusts the client certificate alone (it is its own CA) and shakes hands with no one else.
    front = await startTlsFront(serverCertificate, Number(new URL(server.url).port), { clientCa: clientCertificate.cert });
  });

  afterAll(async () => {
    await front.close();
    await server.close();
  });

  const args = () => ['--base-url', front.baseUrl, '--ca-file', path('server-ca.pem'), '--only', 'listing', '--rate-limit-budget', '0'];

  it('without them, the run is refused at the handshake and says a client certificate is wanted (exit 3)', async () => {
    const run = await runCli(args(), { env: { PETSTORE_API_KEY: KEY } });
    expect(run.code, run.stdout).toBe(3);
    expect(run.stderr).toContain('the server asks for a client certificate (mTLS)');
  });

  it('with them, the run gets through, and the private key appears in no output or report', async () => {
    const run = await runCli([...args(), '--cert', path('client.pem'), '--cert-key', path('client-key.pem')], { env: { PETSTORE_API_KEY: KEY } });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.report?.requests.total).toBeGreaterThan(0);
    expect(run.report?.options).toMatchObject({ cert: path('client.pem'), certKey: path('client-key.pem') });
    for (const line of pemBodyLines(clientCertificate.key)) expectNowhere(run, line);
  }, 60_000);

  it('refuses a FIFO for the key in one line, before anything is sent', async () => {
    execFileSync('mkfifo', [path('fifo-key.pem')]);
    const run = await runCli([...args(), '--cert', path('client.pem'), '--cert-key', path('fifo-key.pem')], { env: { PETSTORE_API_KEY: KEY } });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`petstore-conformance: cannot read --cert-key ${path('fifo-key.pem')} (a FIFO, not a regular file): give a private key in PEM form`);
  });

  it('refuses a key that is not the certificate\'s', async () => {
    writeFileSync(path('other-key.pem'), selfSignedCertificate().key);
    const run = await runCli([...args(), '--cert', path('client.pem'), '--cert-key', path('other-key.pem')], { env: { PETSTORE_API_KEY: KEY } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot be used together \(key values mismatch\)/);
  });
});
