// Bad usage: every mistake a person can make on the command line is one line naming the problem and
// its fix, exit code 2, no report, and nothing sent: a recording server at the would-be target sees
// no connection at all, not even the reachability preflight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliRun } from '../support/cli.js';
import { expectKeyNowhere, HOSTILE_KEY, runCliAgainst } from '../support/hostile-run.js';
import { sendJson, startHttpServer, type LoopbackServer } from '../support/hostile-servers.js';
import { scratchDir } from '../support/scratch.js';

let target: LoopbackServer;
const scratch = scratchDir('petstore-hostile-usage-');
const aFile = join(scratch, 'a-file');
writeFileSync(aFile, 'not a folder, and not a certificate either\n');
const fifo = join(scratch, 'a-fifo');
execFileSync('mkfifo', [fifo]);
const readOnly = readOnlyFolder(join(scratch, 'read-only'));
const bigFile = join(scratch, 'big-file');
writeFileSync(bigFile, '# a baseline is a list of rule IDs, not megabytes\n'.repeat(50_000));

beforeAll(async () => {
  target = await startHttpServer((_request, response) => sendJson(response, 200, []));
});

afterAll(async () => {
  readOnly.release();
  await target.close();
});

/**
 * A folder no file can be written to, even by root: immutable (chattr +i) when running as root, which
 * permissions do not stop; without write permission otherwise. `missing` says why neither could be made.
 */
function readOnlyFolder(dir: string): { dir: string; missing?: string; release: () => void } {
  mkdirSync(dir);
  const asRoot = process.getuid?.() === 0;
  const release = () => (asRoot ? spawnSync('chattr', ['-i', dir]) : chmodSync(dir, 0o755));
  if (asRoot) spawnSync('chattr', ['+i', dir]);
  else chmodSync(dir, 0o555);
  try {
    writeFileSync(join(dir, 'probe'), '');
    return { dir, missing: asRoot ? 'chattr +i is not available here (no CAP_LINUX_IMMUTABLE, or a file system without it)' : 'chmod 555 did not stop a write', release };
  } catch {
    return { dir, release };
  }
}

/** The whole of a usage error: exit 2, one line on stderr, nothing on stdout, no report, no connection, no key. */
function expectUsageError(run: CliRun, message: RegExp, key = HOSTILE_KEY): void {
  expect(run.code, run.stderr).toBe(2);
  const lines = run.stderr.split('\n').filter((line) => line.length > 0);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^petstore-conformance: /);
  expect(lines[0]).toMatch(message);
  expect(run.stdout).toBe('');
  expect(run.report).toBeUndefined();
  expect(target.connections, 'connections the target accepted').toBe(0);
  expectKeyNowhere(run, key);
}

describe('a malformed --base-url', () => {
  it('without a scheme is answered with the full address to give', async () => {
    const run = await runCliAgainst(`127.0.0.1:${target.port}/v1`);
    expectUsageError(run, /--base-url "127\.0\.0\.1:\d+\/v1" is not a URL; give the full address, e\.g\. https:\/\//);
  });

  it('that a URL parser reads as a scheme of its own (localhost:8080) is told to add http:// or https://', async () => {
    const run = await runCliAgainst(`localhost:${target.port}/v1`);
    expectUsageError(run, new RegExp(`--base-url "localhost:${target.port}/v1" has no http:// or https:// in front; give the full address, e\\.g\\. http://localhost:${target.port}/v1`));
  });

  it.each([
    ['a missing colon', (port: number) => `http//deploy:${HOSTILE_KEY}@127.0.0.1:${port}/v1`],
    ['no scheme', (port: number) => `deploy:${HOSTILE_KEY}@127.0.0.1:${port}/v1`],
    ['its password percent-encoded', (port: number) => `http//deploy:${encodeURIComponent(`${HOSTILE_KEY}/`)}@127.0.0.1:${port}/v1`],
  ])('with credentials and %s is named without its password', async (_case, url) => {
    const run = await runCli(['--base-url', url(target.port)]);
    expectUsageError(run, /--base-url "(http\/\/)?…@127\.0\.0\.1:\d+\/v1" (is not a URL|has no http:\/\/ or https:\/\/ in front)/);
    expect(run.stderr).not.toContain('deploy');
  });

  it('with a scheme other than http or https names the scheme and the two allowed', async () => {
    const run = await runCliAgainst(`ftp://127.0.0.1:${target.port}/v1`);
    expectUsageError(run, /--base-url must use http or https, not ftp/);
  });
});

describe('a missing or misplaced key', () => {
  it('is answered with both ways to give one when neither --api-key nor PETSTORE_API_KEY is set', async () => {
    const run = await runCli(['--base-url', target.baseUrl]);
    expectUsageError(run, /no API key: set PETSTORE_API_KEY \(recommended\) or pass --api-key/);
  });

  it('is redacted when the key is given where the URL belongs', async () => {
    const run = await runCliAgainst(HOSTILE_KEY);
    expectUsageError(run, /--base-url "\$PETSTORE_API_KEY" is not a URL/);
  });

  it('is not echoed when a misspelt option carries it after "="', async () => {
    const run = await runCli(['--base-url', target.baseUrl, `--api_key=${HOSTILE_KEY}`]);
    expectUsageError(run, /unknown option '--api_key=…'.*--help/);
  });
});

describe('a key no HTTP header can carry', () => {
  // Each once hung a run forever: the HTTP client refused the header on every request, and the run never ended.
  it.each([
    ['a trailing newline (a CI secret stored with it)', `${HOSTILE_KEY}\n`, /PETSTORE_API_KEY ends with a line break \(\\n\), which no HTTP header can carry/],
    ['a trailing CR LF', `${HOSTILE_KEY}\r\n`, /PETSTORE_API_KEY ends with a line break \(\\r\\n\)/],
    ['a line break inside', `${HOSTILE_KEY.slice(0, 8)}\n${HOSTILE_KEY.slice(8)}`, /PETSTORE_API_KEY holds a line break inside it/],
    ['a control character', `${HOSTILE_KEY}\u0007`, /PETSTORE_API_KEY holds a control character \(U\+0007\)/],
    ['a character outside Latin-1', `${HOSTILE_KEY}\u2019`, /PETSTORE_API_KEY holds a character no HTTP header can carry \(U\+2019, outside Latin-1\)/],
    ['a space at its end', `${HOSTILE_KEY} `, /PETSTORE_API_KEY begins or ends with a space or tab/],
  ])('with %s is refused in a second, before any connection, without showing the key', async (_case, key, message) => {
    const started = Date.now();
    const run = await runCli(['--base-url', target.baseUrl], { env: { PETSTORE_API_KEY: key }, timeoutMs: 20_000 });
    expectUsageError(run, message, HOSTILE_KEY);
    // A child's start (node and the CLI's imports) is most of it; a run that hangs is stopped at 20 s.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('given with --api-key is named so', async () => {
    const run = await runCli(['--base-url', target.baseUrl, '--api-key', `${HOSTILE_KEY}\n`]);
    expectUsageError(run, /--api-key ends with a line break/);
  });
});

describe('a key that is also a word the reports are written with', () => {
  // Every pet's status became $PETSTORE_API_KEY, which told the reader the key, and verify refused the genuine folder.
  it.each([
    ['a pet status', 'available', 'spec/petstore-interface-spec.md'],
    ['a field of the interface', 'categoryId', 'spec/petstore-interface-spec.md'],
    ['a word of every finding', 'saw', 'the words of the suite\'s own lines'],
  ])('(%s) is refused in one line, before any connection', async (_case, key, where) => {
    const run = await runCli(['--base-url', target.baseUrl], { env: { PETSTORE_API_KEY: key }, timeoutMs: 20_000 });
    expectUsageError(run, new RegExp(`PETSTORE_API_KEY is also a word the reports are written with \\(it occurs in ${where.replace('.', '\\.')}\\): replaced by \\$PETSTORE_API_KEY there, it would garble every report`));
    expect(run.stderr).not.toMatch(new RegExp(`\\b${key}\\b`));
  });
});

describe('unknown names', () => {
  it('an unknown option is one line with commander\'s suggestion and the pointer to --help', async () => {
    const run = await runCliAgainst(target.baseUrl, ['--timout', '300']);
    expectUsageError(run, /unknown option '--timout' \(Did you mean --timeout\?\) \(see --help\)/);
  });

  it.each([
    ['--only', 'LIST-99'],
    ['--skip', 'listings'],
  ])('an unknown rule ID or area in %s names it and points to --list', async (option, name) => {
    const run = await runCliAgainst(target.baseUrl, [option, `listing,${name}`]);
    expectUsageError(run, new RegExp(`unknown rule ID or area in --only/--skip: ${name} \\(list them with --list\\)`));
  });
});

describe('files the run cannot use', () => {
  it('a report dir that cannot be created names it and --report-dir', async () => {
    const run = await runCliAgainst(target.baseUrl, ['--report-dir', join(aFile, 'reports')]);
    expectUsageError(run, /cannot write reports to .*a-file\/reports \(.*a-file is a file, not a folder\): choose a writable folder with --report-dir/);
  });

  // Node's recursive mkdir once spun here forever: /proc answers a new folder with ENOENT, read as "make the parent first".
  it('a report dir under /proc is refused within seconds, not created forever', async () => {
    const started = Date.now();
    const run = await runCli(['--base-url', target.baseUrl, '--report-dir', '/proc/petstore-reports/run'], { env: { PETSTORE_API_KEY: HOSTILE_KEY }, timeoutMs: 20_000 });
    expectUsageError(run, /cannot write reports to \/proc\/petstore-reports\/run \(\/proc\/petstore-reports: the file system does not take new files there \(ENOENT\)\)/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.each([
    ['under /sys', '/sys/petstore-reports', /\/sys\/petstore-reports \((not permitted \((EPERM|EACCES)\)|a read-only file system)\)/],
    ['that is a FIFO', fifo, /a-fifo is a FIFO, not a folder/],
    ['that is a file', aFile, /a-file is a file, not a folder/],
  ])('a report dir %s is refused, naming why', async (_case, dir, reason) => {
    const run = await runCli(['--base-url', target.baseUrl, '--report-dir', dir], { env: { PETSTORE_API_KEY: HOSTILE_KEY }, timeoutMs: 20_000 });
    expectUsageError(run, reason);
  });

  // Root passes every permission check: only a folder the file system itself refuses (immutable) is read-only to it.
  it.skipIf(readOnly.missing !== undefined)(`a read-only report dir is refused${readOnly.missing ? ` (skipped: ${readOnly.missing})` : ''}`, async () => {
    const run = await runCliAgainst(target.baseUrl, ['--report-dir', readOnly.dir]);
    expectUsageError(run, /cannot write reports to .*read-only \(not permitted \((EPERM|EACCES)\)\)/);
  });

  // Each once hung the run before it began (a FIFO nobody writes to), or grew it to gigabytes (/dev/zero).
  it.each([
    ['--baseline', 'a FIFO', () => fifo, /cannot read baseline .*a-fifo \(a FIFO, not a regular file\)/],
    ['--baseline', '/dev/zero', () => '/dev/zero', /cannot read baseline \/dev\/zero \(a device, not a regular file\)/],
    ['--baseline', 'a file of 2 MiB', () => bigFile, /cannot read baseline .*big-file \(it holds more than the 1048576 bytes a baseline may\)/],
    ['--ca-file', 'a FIFO', () => fifo, /cannot read --ca-file .*a-fifo \(a FIFO, not a regular file\)/],
    ['--ca-file', '/dev/zero', () => '/dev/zero', /cannot read --ca-file \/dev\/zero \(a device, not a regular file\)/],
    ['--write-baseline', 'a FIFO', () => fifo, /cannot write baseline .*a-fifo: it is a FIFO, not a regular file; name a file/],
    ['--write-baseline', '/dev/null', () => '/dev/null', /cannot write baseline \/dev\/null: it is a device, not a regular file; name a file/],
  ])('%s naming %s is refused in a second, before any connection', async (option, _case, path, message) => {
    const started = Date.now();
    const run = await runCli(['--base-url', target.baseUrl, option, path()], { env: { PETSTORE_API_KEY: HOSTILE_KEY }, timeoutMs: 20_000 });
    expectUsageError(run, message);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a --ca-file that does not exist is named, before any connection', async () => {
    const run = await runCliAgainst(`https://127.0.0.1:${target.port}/v1`, ['--ca-file', join(scratch, 'missing.pem')]);
    expectUsageError(run, /cannot read --ca-file .*missing\.pem \(no such file\): give the PEM file of the CA that signed the target's certificate/);
  });

  it('a --ca-file that holds no PEM certificate is named', async () => {
    const run = await runCliAgainst(`https://127.0.0.1:${target.port}/v1`, ['--ca-file', aFile]);
    expectUsageError(run, /--ca-file .*a-file holds no PEM certificate \(-----BEGIN CERTIFICATE-----\)/);
  });
});

describe('out-of-range numbers', () => {
  it.each([
    ['--timeout', '0', 'an integer from 100 to 600000'],
    ['--timeout', '10s', 'an integer from 100 to 600000'],
    ['--max-requests', '0', 'an integer from 1 to 10000000'],
    ['--concurrency', '65', 'an integer from 1 to 64'],
    ['--rate-limit-reserve', '-1', 'an integer from 0 to 1000'],
    ['--rate-limit-budget', '1.5', 'an integer from 0 to 1000000'],
    ['--seed', '2147483648', 'an integer from 0 to 2147483647'],
    ['--fuzz-runs', '1e3', 'an integer from 0 to 100000'],
    ['--fuzz-valid-runs', '10001', 'an integer from 0 to 10000'],
    ['--max-response-bytes', '10', 'an integer from 1024 to 1073741824'],
  ])('%s %s names the option, the value and the range', async (option, value, range) => {
    const run = await runCliAgainst(target.baseUrl, [option, value]);
    expectUsageError(run, new RegExp(`option '${option} <\\w+>' argument '${value.replace('.', '\\.')}' is invalid\\. ${option} must be ${range}\\.`));
  });
});

it('the recording target does see a run with valid options, so the zero counts above mean something', async () => {
  const run = await runCliAgainst(target.baseUrl, ['--only', 'LIST-01', '--timeout', '2000']);
  expect(run.code, run.stderr).toBe(0);
  expect(target.connections).toBeGreaterThan(0);
  expect(target.requests.map((request) => `${request.method} ${request.url}`)).toContain('GET /v1/pets');
  expectKeyNowhere(run);
});
