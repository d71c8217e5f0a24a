// Unreachable or broken transport. A target that cannot be reached at all (refused, no such host, a
// certificate it cannot prove) ends the run at the preflight with exit 3 and one line of cause, before
// any report. A target that breaks once the run is under way leaves errored checks naming the cause,
// and the run still ends with its reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { parseJson } from '../../helpers/json.js';
import { packagePath } from '../../helpers/package-root.js';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import type { CliRun } from '../support/cli.js';
import { FUZZING_SAMPLE, harnessPlan, withChildSlot } from '../support/harness.js';
import { expectKeyNowhere, HOSTILE_KEY, ruleOf, rulesRun, runAgainst } from '../support/hostile-run.js';
import {
  resetMidResponse, refusedPort, selfSignedCertificate, sendJson, startClosingFront, startHttpServer, startTcpServer, startTlsFront, type LoopbackServer,
} from '../support/hostile-servers.js';
import { scratchDir } from '../support/scratch.js';

/**
 * How a connection broken mid-response reads: the OS may report the reset itself, or undici a socket
 * closed early, depending on whether the reset lands before or during the body read.
 */
const BROKEN_CONNECTION = /(connection reset by the server|the server closed the connection before the response was complete)/;

/** Exit 3: one line naming the target and the cause, no report (nothing could be judged). */
function expectUnreachable(run: CliRun, cause: RegExp): void {
  expect(run.code, run.stderr).toBe(3);
  const lines = run.stderr.split('\n').filter((line) => line.length > 0);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^petstore-conformance: cannot reach https?:\/\/[^ ]+: /);
  expect(lines[0]).toMatch(cause);
  expect(run.report).toBeUndefined();
  expectKeyNowhere(run);
}

describe('a target that cannot be reached at all', () => {
  it('refusing connections exits 3 and asks whether the server runs on that port', async () => {
    const run = await runAgainst(`http://127.0.0.1:${await refusedPort()}/v1`, ['--timeout', '2000']);
    expectUnreachable(run, /connection refused \(is the server running, and on that port\?\)/);
  });

  it('under a host name that does not resolve exits 3 and says so', async () => {
    // .invalid is reserved (RFC 2606): the name resolves nowhere, so nothing leaves the machine.
    const run = await runAgainst('http://petstore.invalid/v1', ['--timeout', '2000']);
    expectUnreachable(run, /cannot reach http:\/\/petstore\.invalid: the host name does not resolve/);
  });
});

describe('TLS', () => {
  const certificate = selfSignedCertificate();
  const caFile = join(scratchDir('petstore-hostile-tls-'), 'ca.pem');
  writeFileSync(caFile, certificate.cert);
  let reference: RunningReferenceServer;
  let front: LoopbackServer;

  beforeAll(async () => {
    reference = await startReferenceServer({ apiKeys: [HOSTILE_KEY] });
    front = await startTlsFront(certificate, Number(new URL(reference.url).port));
  });

  afterAll(async () => {
    await front.close();
    await reference.close();
  });

  it('with a self-signed certificate exits 3, names the cause and the option that trusts it', async () => {
    const run = await runAgainst(front.baseUrl, ['--only', 'LIST-01', '--timeout', '2000']);
    expectUnreachable(run, /the TLS certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\); trust its CA with --ca-file <pem>/);
  });

  it('with --ca-file naming that certificate is reached and judged', async () => {
    const run = await runAgainst(front.baseUrl, ['--only', 'LIST-01', '--timeout', '2000', '--ca-file', caFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(ruleOf(run, 'LIST-01').status).toBe('passed');
    expect(run.stderr).toBe('');
    expectKeyNowhere(run);
  });

  it('asked of a plain http server exits 3 and suggests http://', async () => {
    const run = await runAgainst(reference.url.replace(/^http:/, 'https:'), ['--only', 'LIST-01', '--timeout', '2000']);
    expectUnreachable(run, /the TLS handshake failed: the target answers without TLS \(is it plain http:\/\/\?\)/);
  });
});

describe('a target that breaks after the preflight', () => {
  let target: LoopbackServer | undefined;

  afterAll(async () => {
    await target?.close();
  });

  it('resetting every connection mid-response leaves errored checks naming the broken connection, and the reports', async () => {
    target = await startHttpServer((_request, response) => resetMidResponse(response));
    const run = await runAgainst(target.baseUrl, ['--only', 'listing', '--timeout', '2000']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.report?.verdict).toBe('not-certified');
    const list01 = ruleOf(run, 'LIST-01');
    expect(list01.status).toBe('errored');
    expect(list01.message).toMatch(new RegExp(`^TransportError: ${BROKEN_CONNECTION.source}$`));
    // The evidence still shows the request that met the reset, and how to send it again.
    expect(list01.evidence[0]?.exchanges[0]?.curl).toContain('"Authorization: Bearer $PETSTORE_API_KEY"');
    expect(rulesRun(run).every((rule) => rule.status === 'errored')).toBe(true);
    expect(run.stdout).toMatch(new RegExp(`ERR {2}LIST-01 .*\\n\\s+TransportError: ${BROKEN_CONNECTION.source}`));
    expectKeyNowhere(run);
    await target.close();
    target = undefined;
  });

  it('answering with something other than HTTP (an SSH banner) errors the checks, saying the answer is not HTTP', async () => {
    target = await startTcpServer('http', (socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    const run = await runAgainst(target.baseUrl, ['--only', 'listing', '--timeout', '2000']);
    expect(run.code, run.stderr).toBe(1);
    expect(ruleOf(run, 'LIST-01').message).toBe('TransportError: the answer is not HTTP/1.1 (Response does not match the HTTP/1.1 protocol '
      + '(Expected HTTP/, RTSP/ or ICE/)); is this an https:// or a non-HTTP port?');
    expectKeyNowhere(run);
    await target.close();
    target = undefined;
  });

  it('answering a few requests and then resetting passes what was judged and errors the rest, with reports', async () => {
    const answered = 2;
    target = await startHttpServer((_request, response, index) => {
      if (index < answered) sendJson(response, 200, [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
      else resetMidResponse(response);
    });
    const run = await runAgainst(target.baseUrl, ['--only', 'listing', '--timeout', '2000']);
    expect(run.code, run.stderr).toBe(1);
    expect(ruleOf(run, 'LIST-01').status).toBe('passed');
    const broken = rulesRun(run).filter((rule) => rule.status === 'errored');
    expect(broken.length).toBeGreaterThan(0);
    for (const rule of broken) expect(rule.message).toMatch(BROKEN_CONNECTION);
    expect(run.report?.requests.total).toBeGreaterThan(answered);
    expectKeyNowhere(run);
  });
});

// RFC 9110 §15.5.14: a server may close the connection instead of reading a body too large for it. The client
// still sending meets the closed connection before it can read any answer: that is no broken target.
describe('a target that closes the connection on a body over its limit', () => {
  let target: LoopbackServer | undefined;

  afterAll(async () => {
    await target?.close();
  });

  it('passes REQ-05, saying the connection was closed, and reports it in REQ-06', async () => {
    target = await startHttpServer((request, response) => {
      if (Number(request.headers['content-length'] ?? 0) > 1_048_576) return void request.socket.destroy();
      sendJson(response, 201, { id: 1, name: 'Rex', categoryId: 1 });
    });
    const run = await runAgainst(target.baseUrl, ['--only', 'REQ-05,REQ-06', '--timeout', '5000']);
    expect(run.code, run.stderr).toBe(0);
    expect(ruleOf(run, 'REQ-05')).toMatchObject({ status: 'passed', observations: [expect.stringMatching(/^the server closed the connection before it had the whole body \(.*(reset by the server|closed the connection).*\)/)] });
    expect(ruleOf(run, 'REQ-06').observations).toEqual([expect.stringMatching(/^a valid NewPet padded to 4 MiB: the server closed the connection while it was being sent/)]);
    expectKeyNowhere(run);
  });
});

// RFC 9112 §9.3.1: a request that fails on a reused connection before any byte of its answer came met a
// connection the server had closed while idle; a client may send it again on a new one. Browsers and curl do.
describe('a target that closes the connection after every answer, without Connection: close', () => {
  let reference: RunningReferenceServer;
  let front: LoopbackServer;

  beforeAll(async () => {
    // The harness's plan for a run with one fuzzing body of each class: a whole run, each request on a connection of its
    // own, sends a few hundred requests rather than the 1,000 the Business plan's 429 probe takes.
    reference = await startReferenceServer({ apiKeys: [HOSTILE_KEY], ...harnessPlan(undefined, undefined, true) });
    front = await startClosingFront(Number(new URL(reference.url).port));
  });

  afterAll(async () => {
    await front.close();
    await reference.close();
  });

  it('is certified: a request that met a closed connection is sent again on a new one, both attempts recorded', async () => {
    // A whole certification: it takes one of the machine's slots, as the harness's runs do.
    // One fuzzing body of each class: the front's closing is met by every request alike, not by their number.
    const run = await withChildSlot(() => runAgainst(front.baseUrl, ['--strict', ...FUZZING_SAMPLE]));
    const failing = rulesRun(run).filter((rule) => rule.status !== 'passed' && rule.status !== 'skipped').map((rule) => `${rule.id}: ${rule.message}`);
    expect({ code: run.code, verdict: run.report?.verdict, failing }).toEqual({ code: 0, verdict: 'certified', failing: [] });
    const har = parseJson(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as unknown as HarLog;
    const entries = har.log.entries;
    const retried = entries.filter((entry) => entry.response._retried);
    // The front closes every connection when it is used a second time: every request the client sends on a
    // kept-alive connection meets a closed one, and is sent again on a new connection.
    expect(retried.length).toBeGreaterThan(10);
    // Each failed attempt is in the record, naming what happened, and the same request follows it with its answer.
    // Identical requests in flight together (the 429 probe's) may each meet a closed connection: each failed
    // attempt is paired with an answered one of its own, later in the record.
    const paired = new Set<number>();
    for (const attempt of retried) {
      expect(attempt.response._error).toMatch(/on a kept-alive connection, before any byte of the answer: sent again on a new connection$/);
      const next = entries.find((entry) => entry._seq > attempt._seq && !paired.has(entry._seq) && entry.response.status > 0
        && entry.request.method === attempt.request.method && entry.request.url === attempt.request.url);
      expect(next?.response.status, `the attempt after #${attempt._seq}`).toBeGreaterThan(0);
      paired.add(next!._seq);
    }
    expect(run.report?.requests.total).toBe(entries.length);
    expectKeyNowhere(run);
    // Re-judged offline, the recorded failed attempts are sent again as the run sent them, to the same verdict.
    const verified = await verifyOffline(run.reportDir);
    expect(verified, verified.stderr).toMatchObject({ code: 0, stderr: '' });
    // The run may first wait for a slot, held by the harness's runs.
  }, 10 * 60_000);
});

/** `petstore-conformance verify <dir>`: a child process with no key and no target. */
function verifyOffline(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [packagePath('dist', 'cli', 'main.js'), 'verify', dir], { env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

interface HarLog {
  log: { entries: Array<{ _seq: number; request: { method: string; url: string }; response: { status: number; _error?: string; _retried?: boolean } }> };
}
