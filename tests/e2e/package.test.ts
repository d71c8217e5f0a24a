import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../cli/reports/report.js';
import { SPEC_VERSION } from '../../helpers/spec/facts.js';
import { parseJson } from '../../helpers/json.js';
import { packagePath } from '../../helpers/package-root.js';
import { harnessPlan } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

// What a user gets from the registry: the packed tarball, installed into an empty folder with no
// checkout, no devDependencies and no node_modules above it. One pack and one install serve every case.
//
// The Node under test is the one running this file: CI runs it again under Node 22 and 24
// (`npx -y node@24 node_modules/vitest/vitest.mjs run tests/e2e/package.test.ts`), and every child
// process here (npm, npx, the CLI's `#!/usr/bin/env node`) finds that same node first on PATH.
// By hand:  npm run build && npx vitest run tests/e2e/package.test.ts

const VERSION = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
const INSTALL_TIMEOUT_MS = 240_000;
const RUN_TIMEOUT_MS = 180_000;

interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

let work: string;
let consumer: string;
let packedFiles: string[];
/** What npm said while installing the tarball: npm 11 warns there of any script a package runs on install. */
let installOutput: string;

// Nothing of the checkout or of `npm test` may leak in: no npm_* variables, no node_modules/.bin on PATH.
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const path = (process.env.PATH ?? '').split(delimiter).filter((entry) => !entry.includes(`node_modules${sep}.bin`));
  return { PATH: [dirname(process.execPath), ...path].join(delimiter), HOME: process.env.HOME ?? tmpdir(), ...extra };
}

function exec(command: string, args: readonly string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Exec> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: options.cwd, env: cleanEnv(options.env), timeout: options.timeoutMs ?? RUN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`));
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

// `--no` forbids npx to fetch a package of that name from the registry should the local install be broken.
function npxCli(args: readonly string[], env: Record<string, string> = {}): Promise<Exec> {
  return exec('npx', ['--no', '--', 'petstore-conformance', ...args], { cwd: consumer, env });
}

function readReport(reportDir: string): Report {
  return parseJson(readFileSync(join(reportDir, 'report.json'), 'utf8')) as unknown as Report;
}

/** A consumer's line that starts a server with a defect, made with the public overrides: a default page of 10 where the spec says 20. */
const PAGE_OF_TEN_SERVER = 'const server = await startReferenceServer({ overrides: [{ selectPage: (pets, query, reference) => reference(pets, { ...query, limit: query.limit ?? 10 }) }] });';

/**
 * Rules that failed or could not be judged, and MUST rules skipped, with why: the whole story when a
 * certification fails. (A SHOULD skipped by default, such as the recovery check, is no defect.)
 */
function unsettled(report: Report): string[] {
  return report.rules
    .filter((rule) => rule.status === 'failed' || rule.status === 'errored' || (rule.level === 'MUST' && rule.status === 'skipped'))
    .map((rule) => `${rule.id} ${rule.status}: ${rule.message ?? ''}`);
}

function expectVersionsInJunit(reportDir: string): void {
  const junit = readFileSync(join(reportDir, 'junit.xml'), 'utf8');
  expect(junit).toContain(`<property name="tool.version" value="${VERSION}"/>`);
  expect(junit).toContain(`<property name="specVersion" value="${SPEC_VERSION}"/>`);
}

function ancestorsHolding(dir: string, names: readonly string[]): string[] {
  const found: string[] = [];
  for (let parent = dirname(dir); ; parent = dirname(parent)) {
    for (const name of names) if (existsSync(join(parent, name))) found.push(join(parent, name));
    if (dirname(parent) === parent) return found;
  }
}

beforeAll(async () => {
  // Packs the dist already built (`npm test` builds first); --ignore-scripts because `prepare` would
  // rebuild dist while other test files run the CLI from it.
  if (!existsSync(packagePath('dist', 'index.js'))) throw new Error('dist/ is not built: run `npm run build` first');
  work = scratchDir('petstore-package-');
  const pack = await exec('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: packagePath(), timeoutMs: INSTALL_TIMEOUT_MS });
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  packedFiles = packed!.files.map((file) => file.path);

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  const strays = ancestorsHolding(consumer, ['node_modules', 'package.json']);
  if (strays.length > 0) throw new Error(`the install would not stand alone; found above it: ${strays.join(', ')}`);
  const install = await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, packed!.filename)], { cwd: consumer, timeoutMs: INSTALL_TIMEOUT_MS });
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
  installOutput = `${install.stdout}\n${install.stderr}`;
}, INSTALL_TIMEOUT_MS * 2);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the compiled code, the spec, the README and its docs, and no sources, tests or build state', () => {
    expect(packedFiles).toEqual(expect.arrayContaining([
      'package.json', 'README.md', 'docs/running.md', 'dist/cli/main.js', 'dist/index.js', 'dist/index.d.ts', 'spec/rules.yaml', 'spec/openapi.yaml',
      'spec/petstore-interface-spec.md', 'spec/test-design.md',
    ]));
    // dist/helpers/spec/prepared.json: the build's record of the spec, which every process reads instead of parsing it.
    expect(packedFiles).toContain('dist/helpers/spec/prepared.json');
    const unexpected = packedFiles.filter((path) => !/^(package\.json|README\.md|LICENSE|docs\/[a-z-]+\.md|spec\/[^/]+\.yaml|spec\/(petstore-interface-spec|test-design)\.md|dist\/(?!tests\/).+\.(js|d\.ts)|dist\/helpers\/spec\/prepared\.json)$/.test(path));
    expect(unexpected).toEqual([]);
  });

  it('runs no script on install: the installed package.json has none, and npm warns of none', () => {
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', 'petstore-conformance', 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    expect(Object.keys(installed.scripts ?? {}).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);
    expect(installOutput).not.toMatch(/install script|lifecycle script|prepare/i);
  });

  it('installs no test runner: the engine is the package\'s own, and vitest only hosts the suites in the source repository', () => {
    expect(existsSync(join(consumer, 'node_modules', 'petstore-conformance', 'dist', 'cli', 'main.js')), 'the install to look in').toBe(true);
    expect(existsSync(join(consumer, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(consumer, 'node_modules', 'vite'))).toBe(false);
    expect(packedFiles.filter((path) => /\.test\.(js|d\.ts)$/.test(path))).toEqual([]);
  });

  it('holds the reference server, and not the defect and variant catalogs the suite tests itself with', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['dist/server/main.js', 'dist/server/reference-server.js', 'dist/server/seams.d.ts']));
    const catalogs = packedFiles.filter((path) => /^dist\/server\/(defects|variants)(\/|\.)|^dist\/server\/switches\./.test(path));
    expect(catalogs).toEqual([]);
  });

  it('serves its reference server from dist/server/main.js, and answers --defect with one line: the catalogs are not in the package', async () => {
    const main = join(consumer, 'node_modules', 'petstore-conformance', 'dist', 'server', 'main.js');
    const server = spawn(process.execPath, [main, '--key', 'main-key-41c9'], { cwd: consumer, env: cleanEnv() });
    try {
      const url = /listening on (\S+)$/.exec(await firstLine(server))?.[1];
      const answer = await fetch(`${url}/pets?limit=1`, { headers: { authorization: 'Bearer main-key-41c9' } });
      expect(answer.status).toBe(200);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    // Bounded: with the catalogs in the package, this would start a defective server that never exits.
    const run = await exec(process.execPath, [main, '--defect', 'list-default-limit-10'], { cwd: consumer, timeoutMs: 15_000 });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining('ship only with the source repository')]);
    expect(run.stdout).toBe('');
  }, RUN_TIMEOUT_MS);

  it('answers `npx petstore-conformance --help` with the usage', async () => {
    const run = await npxCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: petstore-conformance [options]');
    expect(run.stdout).toContain('--base-url <url>');
  });

  it('answers `--version` with the version of the package', async () => {
    const run = await npxCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(VERSION);
  });

  it('certifies the bundled reference server when no --base-url is given', async () => {
    const reportDir = join(work, 'bundled');
    const run = await npxCli(['--report-dir', reportDir]);
    const report = readReport(reportDir);
    expect(unsettled(report)).toEqual([]);
    expect(report.suiteErrors).toEqual([]);
    expect(report).toMatchObject({ verdict: 'certified', exitCode: 0, target: { embedded: true } });
    expect(report.tool).toEqual({ name: 'petstore-conformance', version: VERSION });
    expect(report.specVersion).toBe(SPEC_VERSION);
    expectVersionsInJunit(reportDir);
    expect(run.code).toBe(0);
  }, RUN_TIMEOUT_MS);

  it('certifies a server given by --base-url, here one started through the installed package', async () => {
    const apiKey = 'package-test-key-7d2e91';
    writeFileSync(join(consumer, 'serve.mjs'), [
      "import { startReferenceServer } from 'petstore-conformance';",
      // The harness's plan: the run fits in one window and its 429 probe sends some hundred requests, not six hundred.
      `const server = await startReferenceServer({ apiKeys: [process.env.SERVER_KEY], rateLimit: ${JSON.stringify(harnessPlan(undefined).rateLimit)} });`,
      "process.stdout.write(`${server.url}\\n`);",
      '// Serves until stdin closes, so a test run that dies takes its server with it.',
      "process.stdin.on('end', () => server.close()).resume();",
    ].join('\n'));
    const server = spawn(process.execPath, ['serve.mjs'], { cwd: consumer, env: cleanEnv({ SERVER_KEY: apiKey }) });
    try {
      const baseUrl = await firstLine(server);
      const reportDir = join(work, 'by-url');
      const run = await npxCli(['--base-url', baseUrl, '--report-dir', reportDir], { PETSTORE_API_KEY: apiKey });
      const report = readReport(reportDir);
      expect(unsettled(report)).toEqual([]);
      expect(report).toMatchObject({ verdict: 'certified', exitCode: 0, target: { baseUrl, embedded: false } });
      expect(readFileSync(join(reportDir, 'report.json'), 'utf8')).not.toContain(apiKey);
      expect(run.code).toBe(0);
    } finally {
      server.stdin.end();
      await new Promise((resolve) => server.once('exit', resolve));
    }
  }, RUN_TIMEOUT_MS);

  it('resolves the programmatic runConformance to the report it writes, and leaves the exit status to the caller', async () => {
    const reportDir = join(work, 'programmatic');
    writeFileSync(join(consumer, 'certify.mjs'), [
      "import { runConformance, startReferenceServer } from 'petstore-conformance';",
      PAGE_OF_TEN_SERVER,
      'try {',
      "  const report = await runConformance({ baseUrl: server.url, apiKey: server.apiKey, only: ['listing'], reportDir: process.argv[2] });",
      '  const { runId, verdict, exitCode, tool, specVersion, options } = report;',
      '  const rules = report.rules.map((rule) => [rule.id, rule.status]);',
      '  process.stdout.write(JSON.stringify({ node: process.version, runId, verdict, exitCode, tool, specVersion, seed: options.seed, rules }));',
      '} finally {',
      '  await server.close();',
      '}',
    ].join('\n'));
    const run = await exec(process.execPath, ['certify.mjs', reportDir], { cwd: consumer });
    expect(run.stderr).toBe('');
    const resolved = JSON.parse(run.stdout) as Record<string, unknown>;
    const written = readReport(reportDir);
    expect(resolved).toEqual({
      node: process.version,
      runId: written.runId,
      verdict: 'not-certified',
      exitCode: 1,
      tool: { name: 'petstore-conformance', version: VERSION },
      specVersion: SPEC_VERSION,
      seed: expect.any(Number),
      rules: written.rules.map((rule) => [rule.id, rule.status]),
    });
    expect(written.rules.find((rule) => rule.id === 'LIST-02')?.status).toBe('failed');
    // A failed rule is a verdict in the report, not the exit status of the program that asked.
    expect(run.code).toBe(0);
  }, RUN_TIMEOUT_MS);

  // Installed, the suites lie under node_modules, which vitest would load natively and Node keep evaluated: the
  // second run found no test in them, every rule a suite error. From a checkout that cannot happen, so only here.
  it('certifies twice in one program, the second run judging as the first', async () => {
    writeFileSync(join(consumer, 'twice.mjs'), [
      "import { runConformance, startReferenceServer } from 'petstore-conformance';",
      PAGE_OF_TEN_SERVER,
      'const runs = [];',
      'try {',
      '  for (const reportDir of process.argv.slice(2)) {',
      "    const report = await runConformance({ baseUrl: server.url, apiKey: server.apiKey, only: ['listing'], reportDir });",
      '    runs.push(report.rules.filter((rule) => rule.area === \'listing\').map((rule) => `${rule.id} ${rule.status}`));',
      '  }',
      '} finally {',
      '  await server.close();',
      '}',
      'process.stdout.write(JSON.stringify(runs));',
    ].join('\n'));
    const run = await exec(process.execPath, ['twice.mjs', join(work, 'twice-1'), join(work, 'twice-2')], { cwd: consumer });
    expect(run.stderr).toBe('');
    const [first, second] = JSON.parse(run.stdout) as [string[], string[]];
    expect(first).toContain('LIST-02 failed');
    expect(first.filter((line) => !/ (passed|failed)$/.test(line))).toEqual([]);
    expect(second).toEqual(first);
  }, RUN_TIMEOUT_MS);

  it('gives a TypeScript consumer the types of the programmatic API', async () => {
    writeFileSync(join(consumer, 'consumer.mts'), [
      "import { runConformance, startReferenceServer, type Overrides, type Report } from 'petstore-conformance';",
      "const server = await startReferenceServer({ apiKeys: ['key'] });",
      "const report: Report = await runConformance({ baseUrl: server.url, apiKey: server.apiKey, only: ['listing'] });",
      "const verdict: 'certified' | 'not-certified' | 'incomplete' | 'not-judged' = report.verdict;",
      '// @ts-expect-error timeoutMs is a number of milliseconds, not a duration string',
      "await runConformance({ timeoutMs: '10s' });",
      "const zeroIsEmpty: Overrides = { parseLimit: (raw, reference) => (raw === '0' ? { value: 0 } : reference(raw)) };",
      'const variant = await startReferenceServer({ overrides: [zeroIsEmpty] });',
      "// @ts-expect-error the package's reference server takes overrides, not the ids of the suite's own catalogs",
      "await startReferenceServer({ defects: ['list-default-limit-10'] });",
      'await variant.close();',
      'await server.close();',
      'export { verdict };',
    ].join('\n'));
    // The checkout's compiler, as a tool only: every type is resolved from the consumer's node_modules.
    const tsc = await exec(process.execPath, [
      packagePath('node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--target', 'es2022',
      '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck',
      '--types', 'node', '--typeRoots', packagePath('node_modules', '@types'), 'consumer.mts',
    ], { cwd: consumer });
    expect(tsc.stdout).toBe('');
    expect(tsc.code).toBe(0);
  }, RUN_TIMEOUT_MS);
});

function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before it listened:\n${stderr}`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
}
