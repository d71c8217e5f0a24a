import { execFile } from 'node:child_process';
import { cpSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Har } from 'har-format';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../helpers/json.js';
import { packagePath } from '../../helpers/package-root.js';
import type { Report } from '../../cli/reports/report.js';
import type { Manifest } from '../../cli/reports/manifest.js';
import { sha256Of } from '../../cli/reports/manifest.js';
import type { CliRun } from '../support/cli.js';
import { certifyInProcess } from '../support/in-process.js';
import { resolveRunOptions } from '../../cli/resolve-options.js';
import { certify as certifyRun } from '../../cli/run.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

// A run may first wait for one of the machine's child slots, held by other test files.
const SLOT_WAIT_MS = 6 * 60_000;

// A folder verify refuses is refused before anything is re-judged: in a few seconds, never as a hang.
const REFUSAL_TIMEOUT_MS = 10_000;

/** `petstore-conformance verify <dir>` as a reader runs it: a child process with no key and no target. */
function verify(dir: string, timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [packagePath('dist', 'cli', 'main.js'), 'verify', dir], { env: { PATH: process.env.PATH ?? '' }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

/** A copy of the report folder to tamper with; the original stays as the run wrote it. */
function copyOf(dir: string): string {
  const copy = scratchDir('petstore-tampered-');
  cpSync(dir, copy, { recursive: true });
  return copy;
}

function readJson<T>(path: string): T {
  return parseJson(readFileSync(path, 'utf8')) as unknown as T;
}

/** Rewrites a file and, as a forger would, its hash in manifest.json. */
function forge(dir: string, file: string, text: string): void {
  writeFileSync(join(dir, file), text);
  const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
  for (const entry of manifest.files) if (entry.file === file) entry.sha256 = sha256Of(join(dir, file));
  writeFileSync(join(dir, 'manifest.json'), stringifyJson(manifest, 2));
}

describe('a report folder of a run against a server that answers creates with 200', () => {
  let run: CliRun;

  beforeAll(async () => {
    // The folder is the subject, not the process that wrote it: the run is one in this process. It stops
    // the server once the run ends, so every verify below runs with the target gone. The run takes the area
    // the defect is in: each verify below re-judges all it recorded, some 60 exchanges rather than 550 (a
    // whole run re-judged offline is tests/e2e/hostile-transport.test.ts's, retried requests and all).
    run = await withChildSlot(() => certifyInProcess({ defects: ['create-200'] }, ['--strict', '--only', 'creating'], { timeoutMs: 300_000 }));
    expect(run.report?.verdict).toBe('not-certified');
  }, SLOT_WAIT_MS);

  it('manifest.json holds the SHA-256 of every other file written, the run\'s seed, date and versions, and no key', () => {
    const manifest = readJson<Manifest>(join(run.reportDir, 'manifest.json'));
    expect(manifest.files.map((entry) => entry.file).sort()).toEqual(['badge.svg', 'exchanges.har', 'junit.xml', 'report.html', 'report.json', 'summary.md']);
    for (const entry of manifest.files) expect(entry.sha256, entry.file).toBe(sha256Of(join(run.reportDir, entry.file)));
    expect(manifest).toMatchObject({ runId: run.report!.runId, verdict: 'not-certified', seed: run.report!.options.seed, specVersion: run.report!.specVersion, tool: run.report!.tool });
    expect(manifest.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(manifest.runtime.node).toBe(process.version);
    expect(manifest.options.apiKey).toBe('[redacted]');
    expect(readFileSync(join(run.reportDir, 'manifest.json'), 'utf8')).not.toContain('test-key-4f9a1c');
  });

  it('badge.svg is well-formed SVG that says "not certified", the suite version and the date', () => {
    const svg = readFileSync(join(run.reportDir, 'badge.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" [^>]*>[\s\S]*<\/svg>\n$/);
    // Every element opened is closed, in order: the XML is well-formed.
    const stack: string[] = [];
    for (const [, closing, name, selfClosing] of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
      if (closing) expect(stack.pop(), `</${name}>`).toBe(name);
      else if (!selfClosing) stack.push(name!);
    }
    expect(stack).toEqual([]);
    expect(svg).toContain(`not certified · v${run.report!.tool.version} · ${run.report!.startedAt.slice(0, 10)}`);
    expect(svg).toContain('#e05d44');
  });

  it('verify re-judges the recorded exchanges offline, the target stopped, and exits 0 with one line', async () => {
    const verified = await verify(run.reportDir);
    expect(verified.stderr).toBe('');
    expect(verified.stdout).toMatch(/^verified: 6 files match manifest\.json; the \d+ recorded exchanges, re-judged offline by petstore-conformance \S+, give the same status for all \d+ rules and the verdict not-certified \(run \S+\)\n$/);
    expect(verified.code).toBe(0);
  }, 120_000);

  it('verify refuses report.json whose verdict was edited, with or without its hash updated', async () => {
    const edited = readFileSync(join(run.reportDir, 'report.json'), 'utf8').replace('"verdict": "not-certified"', '"verdict": "certified"');
    const unhashed = copyOf(run.reportDir);
    writeFileSync(join(unhashed, 'report.json'), edited);
    const plain = await verify(unhashed);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/^not verified: report\.json was altered: manifest\.json gives SHA-256 [0-9a-f]{64}, the file has [0-9a-f]{64}\n$/);

    const rehashed = copyOf(run.reportDir);
    forge(rehashed, 'report.json', edited);
    const forged = await verify(rehashed);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toContain("not verified: report.json's verdict (certified) differs from manifest.json's (not-certified)");
  }, 120_000);

  it('verify refuses a verdict edited in both report.json and manifest.json: the re-judgment gives another', async () => {
    const dir = copyOf(run.reportDir);
    forge(dir, 'report.json', readFileSync(join(dir, 'report.json'), 'utf8').replace('"verdict": "not-certified"', '"verdict": "certified"'));
    const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
    writeFileSync(join(dir, 'manifest.json'), stringifyJson({ ...manifest, verdict: 'certified' }, 2));
    const forged = await verify(dir);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toBe('not verified: the verdict does not follow from the recorded exchanges: report.json says certified, the rules it reports give not-certified\n');
  }, 120_000);

  it('verify refuses a recorded response altered with its hash updated: the re-judgment differs, and names the rule', async () => {
    const dir = copyOf(run.reportDir);
    const har = readJson<Har>(join(dir, 'exchanges.har'));
    // The forger makes every create look like a 201, which is what CREATE-01 failed on.
    const creates = har.log.entries.filter((entry) => entry.request.method === 'POST' && entry.response.status === 200);
    expect(creates.length).toBeGreaterThan(0);
    for (const entry of creates) {
      entry.response.status = 201;
      entry.response.statusText = 'Created';
    }
    forge(dir, 'exchanges.har', stringifyJson(har, 2));
    const forged = await verify(dir);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/^not verified: the verdict does not follow from the recorded exchanges: CREATE-01: report\.json says failed, the recorded exchanges give passed\n$/);
  }, 120_000);

  it('verify of a run by another suite version exits 0 and lists the rules whose status the re-judgment changed', async () => {
    const dir = copyOf(run.reportDir);
    // As an earlier version would have written it: judged by 0.0.1, which passed CREATE-01.
    const report = readJson<Report>(join(dir, 'report.json'));
    const older: Report = { ...report, tool: { ...report.tool, version: '0.0.1' }, rules: report.rules.map((rule) => (rule.id === 'CREATE-01' ? { ...rule, status: 'passed' } : rule)) };
    forge(dir, 'report.json', stringifyJson(older, 2));
    const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
    writeFileSync(join(dir, 'manifest.json'), stringifyJson({ ...manifest, tool: older.tool }, 2));
    const upgraded = await verify(dir);
    expect(upgraded.code).toBe(0);
    expect(upgraded.stdout).toMatch(/^ {2}CREATE-01: report\.json says passed, the recorded exchanges give failed \(.+\)\nverified: 6 files match manifest\.json; re-judged offline with petstore-conformance \S+ \(the run used 0\.0\.1\): 1 rule\(s\) changed, verdict not-certified \(recorded not-certified\)\n$/);
  }, 120_000);

  /** The folder's report.json (and its manifest) as `edit` leaves them, hashes made consistent, as a forger would. */
  function forgedReport(edit: (report: Report) => Report): string {
    const dir = copyOf(run.reportDir);
    const report = edit(readJson<Report>(join(dir, 'report.json')));
    forge(dir, 'report.json', stringifyJson(report, 2));
    const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
    writeFileSync(join(dir, 'manifest.json'), stringifyJson({ ...manifest, verdict: report.verdict, tool: report.tool }, 2));
    return dir;
  }

  // Each of these once verified with exit 0: the folder switched the re-judgment off.
  it('verify refuses a not-certified folder that says certified and that the run was cancelled', async () => {
    const dir = forgedReport((report) => ({ ...report, verdict: 'certified', exitCode: 143, cancelled: 'SIGTERM' }));
    const forged = await verify(dir);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toBe('not verified: report.json says the run was cancelled (SIGTERM), exchanges.har does not: the folder does not describe one run\n');
  }, 120_000);

  it('verify refuses it with the recording marked cancelled too, and the failed rule said not reached: the re-judged verdict is a cancelled run\'s', async () => {
    const dir = forgedReport((report) => ({
      ...report, verdict: 'certified', exitCode: 143, cancelled: 'SIGTERM',
      rules: report.rules.map((rule) => (rule.status === 'failed' ? { ...rule, status: 'skipped', message: 'the run was cancelled (SIGTERM) before this rule was judged' } : rule)),
    }));
    const har = readJson<Har>(join(dir, 'exchanges.har'));
    forge(dir, 'exchanges.har', stringifyJson({ ...har, log: { ...har.log, _cancelled: 'SIGTERM' } }, 2));
    const forged = await verify(dir);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toBe('not verified: the verdict does not follow from the recorded exchanges: report.json says certified, the rules it reports give incomplete\n');
  }, 120_000);

  it('verify refuses a folder that names a newer suite version than its own, pointing to it', async () => {
    const dir = forgedReport((report) => ({ ...report, verdict: 'certified', tool: { ...report.tool, version: '9.0.0' } }));
    const refused = await verify(dir, REFUSAL_TIMEOUT_MS);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`petstore-conformance: report.json was written by petstore-conformance 9.0.0, newer than this ${run.report!.tool.version}, which cannot judge for it: verify it with npx petstore-conformance@9.0.0 verify\n`);
  }, 30_000);

  it('verify refuses a folder that names no version at all', async () => {
    const dir = forgedReport((report) => ({ ...report, tool: { ...report.tool, version: 'latest-and-greatest' } }));
    const refused = await verify(dir, REFUSAL_TIMEOUT_MS);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('petstore-conformance: report.json names petstore-conformance "latest-and-greatest", which is no version of it: the folder is no report of a run\n');
  }, 30_000);

  it('verify of a folder that names an older version re-judges it, and refuses the verdict it claims when the re-judgment gives another', async () => {
    const dir = forgedReport((report) => ({
      ...report, verdict: 'certified', tool: { ...report.tool, version: '0.0.1' },
      rules: report.rules.map((rule) => (rule.status === 'failed' ? { ...rule, status: 'passed' } : rule)),
    }));
    const forged = await verify(dir);
    expect(forged.code).toBe(1);
    expect(forged.stdout).toMatch(/^ {2}CREATE-01: report\.json says passed, the recorded exchanges give failed/);
    expect(forged.stderr).toMatch(/^not verified: re-judged offline with petstore-conformance \S+ \(the run used 0\.0\.1\): \d+ rule\(s\) changed, verdict not-certified, where report\.json says certified\n$/);
  }, 120_000);

  // A recording of 500 MB once ended verify in a V8 fatal error: past its cap, one is refused unread.
  it('verify refuses a recording past the 256 MiB it reads, hash and all, in seconds', async () => {
    const dir = copyOf(run.reportDir);
    const har = join(dir, 'exchanges.har');
    truncateSync(har, 300 * 1024 * 1024);
    const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
    const entry = manifest.files.find((file) => file.file === 'exchanges.har')!;
    entry.sha256 = sha256Of(har);
    writeFileSync(join(dir, 'manifest.json'), stringifyJson(manifest, 2));
    const refused = await verify(dir, 30_000);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('petstore-conformance: exchanges.har: it holds more than the 268435456 bytes one file of a report folder may\n');
  }, 60_000);

  it('verify refuses recorded options the CLI would refuse, with their hashes made consistent: exit 2, one line, no hang', async () => {
    const dir = copyOf(run.reportDir);
    const report = readJson<Report>(join(dir, 'report.json'));
    // A concurrency of 0 would leave every replayed request waiting for a slot that never frees.
    forge(dir, 'report.json', stringifyJson({ ...report, options: { ...report.options, concurrency: 0 } }, 2));
    const refused = await verify(dir, REFUSAL_TIMEOUT_MS);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe("petstore-conformance: report.json records options this suite refuses: option '--concurrency <n>' argument '0' is invalid. --concurrency must be an integer from 1 to 64.\n");
  }, 30_000);

  it('verify refuses a manifest entry that leaves the folder, and reads nothing outside it', async () => {
    const dir = copyOf(run.reportDir);
    const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
    const outside = '../../../../etc/hostname';
    manifest.files.push({ file: outside, sha256: sha256Of(join(dir, outside)), bytes: 0 });
    writeFileSync(join(dir, 'manifest.json'), stringifyJson(manifest, 2));
    const refused = await verify(dir, REFUSAL_TIMEOUT_MS);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(`petstore-conformance: "${outside}" is not a file name of the report folder: a report folder names only files directly inside it\n`);
  }, 30_000);

  it('verify refuses a report file that is a symlink (to /dev/zero), without reading it', async () => {
    const dir = copyOf(run.reportDir);
    rmSync(join(dir, 'exchanges.har'));
    symlinkSync('/dev/zero', join(dir, 'exchanges.har'));
    const refused = await verify(dir, REFUSAL_TIMEOUT_MS);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe('petstore-conformance: exchanges.har is a symbolic link: a report folder holds the files a run wrote, and verify reads no other\n');
  }, 30_000);

  it('verify refuses a report.json that matches its hash but is no report of a run', async () => {
    const dir = copyOf(run.reportDir);
    forge(dir, 'report.json', stringifyJson({ ...readJson<Report>(join(dir, 'report.json')), rules: 'all passed' }, 2));
    const refused = await verify(dir, REFUSAL_TIMEOUT_MS);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('petstore-conformance: report.json is not a report of a run: "rules" is not a list of rules with their status\n');
  }, 30_000);

  it('verify refuses a recorded response altered without its hash updated, naming the file', async () => {
    const dir = copyOf(run.reportDir);
    writeFileSync(join(dir, 'exchanges.har'), readFileSync(join(dir, 'exchanges.har'), 'utf8').replace('"status": 200', '"status": 201'));
    const altered = await verify(dir);
    expect(altered.code).toBe(1);
    expect(altered.stderr).toMatch(/^not verified: exchanges\.har was altered: /);
  }, 120_000);
});

describe('a report folder of a run cancelled once it had judged a rule', () => {
  let reportDir: string;
  let report: Report;

  beforeAll(async () => {
    // Cancelled as SIGTERM cancels it, at the line of its first judged rule: whatever the machine's pace, the run
    // has finished a rule and not every one. (runs-in-one-process cancels runs by time; this folder is the subject.)
    const server = await startReferenceServer({ apiKeys: ['cancel-verify-key-4e1a'], latencyMs: 20 });
    try {
      reportDir = scratchDir('petstore-cancelled-');
      const controller = new AbortController();
      const print = (line: string) => {
        if (/^ {2}(PASS|FAIL) /.test(line)) controller.abort('SIGTERM');
      };
      await withChildSlot(async () => {
        const options = resolveRunOptions({ baseUrl: server.url, apiKey: 'cancel-verify-key-4e1a', only: ['listing', 'creating'], reportDir, print, detail: 'verbose', signal: controller.signal }, {});
        await certifyRun(options);
      });
      report = readJson<Report>(join(reportDir, 'report.json'));
    } finally {
      await server.close();
    }
  }, SLOT_WAIT_MS);

  it('is re-judged for the rules it finished, and verified with the verdict of a cancelled run', async () => {
    expect(report.cancelled).toBe('SIGTERM');
    const finished = report.rules.filter((rule) => !(rule.status === 'skipped' && rule.message?.startsWith('the run was cancelled')));
    expect(finished.some((rule) => rule.status === 'passed')).toBe(true);
    const verified = await verify(reportDir);
    expect(verified.stderr).toBe('');
    expect(verified.stdout).toBe(`verified: 6 files match manifest.json; the ${report.requests.total} recorded exchanges, re-judged offline by petstore-conformance ${report.tool.version}, give the same status for the ${finished.length} rules the run finished before it was cancelled (SIGTERM) and the verdict incomplete (run ${report.runId})\n`);
    expect(verified.code).toBe(0);
  }, 120_000);

  it('a rule it finished, its status edited, is named: cancelled or not, what was judged is re-judged', async () => {
    const dir = copyOf(reportDir);
    const passed = report.rules.find((rule) => rule.status === 'passed')!;
    forge(dir, 'report.json', stringifyJson({ ...report, rules: report.rules.map((rule) => (rule.id === passed.id ? { ...rule, status: 'failed' } : rule)) }, 2));
    const forged = await verify(dir);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toBe(`not verified: the verdict does not follow from the recorded exchanges: ${passed.id}: report.json says failed, the recorded exchanges give passed\n`);
  }, 120_000);
});

describe('verify, used wrongly', () => {
  it('a folder that does not exist is a usage error (exit 2) that says so', async () => {
    const missing = join(tmpdir(), 'petstore-no-such-folder-3f1c');
    const result = await verify(missing, REFUSAL_TIMEOUT_MS);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`petstore-conformance: ${missing}: no such folder; give the folder a run wrote its reports to (--report-dir)\n`);
  });


  it('a folder without manifest.json is a usage error (exit 2) that says what to give', async () => {
    const empty = scratchDir('petstore-empty-');
    const result = await verify(empty);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`petstore-conformance: ${empty} holds no manifest.json: give the folder a run wrote its reports to (--report-dir)\n`);
  });
});
