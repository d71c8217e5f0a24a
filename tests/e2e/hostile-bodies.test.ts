// Misbehaving response bodies and headers: each becomes a failed rule whose message says what was
// wrong with the bytes, the run goes on to the next check, and nothing hangs or crashes.
import { afterEach, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import type { RecordedResponse } from '../../helpers/http/exchange.js';
import { runCli, type CliRun } from '../support/cli.js';
import { expectKeyNowhere, HOSTILE_KEY, ruleOf, rulesRun, runAgainst } from '../support/hostile-run.js';
import { gzipBomb, sendJson, startHttpServer, streamForever, type Handler, type LoopbackServer } from '../support/hostile-servers.js';

const A_PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const MIB = 1_048_576;
let target: LoopbackServer | undefined;

afterEach(async () => {
  await target?.close();
  target = undefined;
});

/** Serves every request with `handler` and certifies the server with `args`, the key in the environment. */
async function certifyHostile(handler: Handler, args: readonly string[]): Promise<CliRun> {
  target = await startHttpServer(handler);
  const run = await runAgainst(target.baseUrl, ['--timeout', '2000', ...args]);
  expectKeyNowhere(run);
  return run;
}

/** LIST-01 failed with `message`, and the run ended as a judged run does: exit 1, reports written. */
function expectList01Failed(run: CliRun, message: RegExp): void {
  expect(run.code, run.stderr).toBe(1);
  expect(run.report?.verdict).toBe('not-certified');
  const rule = ruleOf(run, 'LIST-01');
  expect(rule.status).toBe('failed');
  expect(rule.message).toMatch(message);
  expect(run.stdout).toContain('FAIL LIST-01');
}

/**
 * LIST-01 failed on the answer to GET /pets, and the recorded response, which every report shows
 * beside the failure, says why its body could not be read as JSON.
 */
function expectUnreadableBody(run: CliRun, reason: RegExp): void {
  expectList01Failed(run, /\(GET \/v1\/pets → 200\)/);
  expect(recordedResponse(run, 'LIST-01')?.jsonError).toMatch(reason);
}

function recordedResponse(run: CliRun, id: string): RecordedResponse | undefined {
  return ruleOf(run, id).evidence[0]?.exchanges[0]?.exchange.response;
}

describe('a body larger than --max-response-bytes', () => {
  it.each<[string, Handler]>([
    ['an endless chunked body', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      streamForever(response, Buffer.from('[{"id": 1, "name": "Rex", "categoryId": 1}, '.repeat(1000)));
    }],
    ['a declared 8 GiB body', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(8 * 1024 * MIB) });
      streamForever(response, Buffer.alloc(64 * 1024, 0x20));
    }],
  ])('(%s) is cut at the cap, the rule fails saying so, and the run carries on', async (_name, handler) => {
    const run = await certifyHostile(handler, ['--only', 'listing']);
    expectUnreadableBody(run, /^body cut at 1048576 bytes \(--max-response-bytes\)$/);
    // A cut body is an answer, not a transport failure: no check meets a target that "stopped answering".
    for (const rule of rulesRun(run)) expect(rule.message ?? '', rule.id).not.toMatch(/TransportError|stopped answering/);
    expect(target!.requests.length).toBeGreaterThanOrEqual(rulesRun(run).length);
    // The check read a mebibyte; the record keeps its start only, so hundreds of such bodies stay small.
    const recorded = recordedResponse(run, 'LIST-01');
    expect(recorded?.truncated).toBe(true);
    expect(recorded?.rawBody).toMatch(/… \[1032192 more bytes read, not kept\]$/);
    expect(recorded?.bodyBytes).toBe(1048576);
  });
});

describe('a body that is not JSON', () => {
  it('(malformed JSON) fails with the parser\'s reason', async () => {
    const run = await certifyHostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('[{"id": 1, "name": "Rex",');
    }, ['--only', 'LIST-01']);
    expectUnreadableBody(run, /^Quoted object key expected but reached end of input at position 25$/);
  });

  it('(an HTML error page from a proxy) fails on the status, showing the page it got', async () => {
    const page = '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>';
    const run = await certifyHostile((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end(page);
    }, ['--only', 'LIST-01']);
    expectList01Failed(run, /expected status 200, saw 502 \(GET \/v1\/pets → 502\)/);
    expect(ruleOf(run, 'LIST-01').evidence[0]?.seen).toContain('<title>502 Bad Gateway</title>');
  });

  it('(JSON that is not valid UTF-8) fails naming the encoding, not quietly replacing the bad bytes', async () => {
    const body = Buffer.concat([Buffer.from('[{"id": 1, "name": "R'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('x", "categoryId": 1}]')]);
    const run = await certifyHostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    }, ['--only', 'LIST-01']);
    expectUnreadableBody(run, /^body is not valid UTF-8, which JSON text must be \(RFC 8259 §8\.1\)$/);
  });
});

describe('a body nested thousands deep (some 12 KB)', () => {
  // It once left the run waiting forever, --max-duration and SIGTERM alike: a child process, so that a hang is cut at 40 s.
  it.each([
    ['arrays', '['.repeat(6_000) + ']'.repeat(6_000)],
    ['objects', '{"a":'.repeat(2_000) + '1' + '}'.repeat(2_000)],
  ])('(%s) is judged as JSON too deep to use, and the run ends within --max-duration with its reports', async (_case, body) => {
    target = await startHttpServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
    const started = Date.now();
    const run = await runCli(['--base-url', target.baseUrl, '--only', 'listing', '--timeout', '2000', '--max-duration', '30'], { env: { PETSTORE_API_KEY: HOSTILE_KEY }, timeoutMs: 40_000 });
    expect(Date.now() - started).toBeLessThan(32_000);
    expectUnreadableBody(run, /^JSON nested more than 64 levels deep: the suite reads no deeper/);
    expectKeyNowhere(run);
  });
});

describe('Content-Type', () => {
  it.each([
    ['a wrong Content-Type', { 'content-type': 'text/plain' }, 'content type text/plain'],
    ['no Content-Type', {}, 'content type \\(none\\)'],
  ])('%s on a JSON body fails ERR-05, naming the type seen', async (_name, headers, seen) => {
    const run = await certifyHostile((_request, response) => {
      response.writeHead(200, headers).end(JSON.stringify([A_PET]));
    }, ['--only', 'LIST-01,ERR-05']);
    expect(run.code, run.stderr).toBe(1);
    // The body itself is a valid page: the listing rule holds, the response-format rule does not.
    expect(ruleOf(run, 'LIST-01').status).toBe('passed');
    const err05 = ruleOf(run, 'ERR-05');
    expect(err05.status).toBe('failed');
    expect(err05.message).toMatch(new RegExp(`expected content type application/json \\(a charset parameter is fine\\), and a body that is JSON, saw ${seen}`));
  });
});

describe('compression the client did not ask for', () => {
  it('a gzip bomb is decoded no further than the cap and fails saying so', async () => {
    const bomb = gzipBomb(256 * MIB);
    const run = await certifyHostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb);
    }, ['--only', 'LIST-01']);
    expectUnreadableBody(run, /^body decodes \(Content-Encoding: gzip\) to more than 1048576 bytes \(--max-response-bytes\); decoding stopped there$/);
    expect(target!.requests[0]?.headers['accept-encoding']).toBeUndefined();
  });

  it('a valid page gzipped unasked is decoded and judged on its content (HTTP allows it)', async () => {
    const page = gzipSync(JSON.stringify([A_PET]));
    const run = await certifyHostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(page);
    }, ['--only', 'LIST-01']);
    expect(run.code, run.stderr).toBe(0);
    expect(ruleOf(run, 'LIST-01').status).toBe('passed');
  });

  it('an encoding the client cannot decode fails naming it', async () => {
    const run = await certifyHostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' }).end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0]));
    }, ['--only', 'LIST-01']);
    expectUnreadableBody(run, /^body sent with Content-Encoding: zstd, which the suite cannot decode/);
  });
});

it('a server that answers sanely passes LIST-01 through the same helpers, so the failures above are the bodies\' doing', async () => {
  const run = await certifyHostile((_request, response) => sendJson(response, 200, [A_PET]), ['--only', 'LIST-01']);
  expect(run.code, run.stderr).toBe(0);
  expect(ruleOf(run, 'LIST-01').status).toBe('passed');
});
