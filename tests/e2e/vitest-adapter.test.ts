// The conformance suites run under vitest (`npx vitest run --project conformance`, tests/support/vitest-adapter.ts)
// come to the same outcome, rule by rule, as the CLI's own engine, on a conforming server and on defective ones.
// Each side certifies a fresh server of its own with the same seed: the 429 probe spends the window it meets.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../helpers/json.js';
import { packagePath } from '../../helpers/package-root.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { withSwitches, type DefectId } from '../support/switches.js';
import { harnessPlan, withChildSlot } from '../support/harness.js';
import { certifyInProcess } from '../support/in-process.js';
import { scratchDir } from '../support/scratch.js';

const KEY = 'adapter-key-5c2b';
const SEED = 4242;
/** The harness's rate limit, the same on both sides: the 429 probe then spends some hundred requests, not a thousand. */
const HARNESS_PLAN = harnessPlan(undefined);

/** What vitest's JSON reporter writes: each test's full name and status. */
interface VitestJson {
  testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }>;
}

/** A rule's outcome as both sides can say it: vitest knows only passed, failed and skipped. */
function asVitestSays(status: string): string {
  return status === 'errored' || status === 'suite-error' ? 'failed' : status === 'pending' ? 'skipped' : status;
}

/** Every rule's outcome under the vitest adapter, against a fresh server with these defects. */
async function adapterOutcomes(defects: readonly DefectId[]): Promise<Record<string, string>> {
  const server = await startReferenceServer(withSwitches({ apiKeys: [KEY], defects, ...HARNESS_PLAN }));
  const output = join(scratchDir('petstore-adapter-'), 'vitest.json');
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [packagePath('node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'conformance', '--reporter=json', `--outputFile=${output}`], {
        cwd: packagePath(),
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: KEY, PETSTORE_SEED: String(SEED) },
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      }, (error) => (error && typeof error.code !== 'number' ? reject(error) : resolve()));
    });
  } finally {
    await server.close();
  }
  const report = parseJson(readFileSync(output, 'utf8')) as unknown as VitestJson;
  return Object.fromEntries(report.testResults.flatMap((file) => file.assertionResults).map((test) => [test.title.split(' ')[0]!, asVitestSays(test.status)]));
}

/** Every rule's outcome under the CLI's engine, against a fresh server with these defects. */
async function cliOutcomes(defects: readonly DefectId[]): Promise<Record<string, string>> {
  const run = await certifyInProcess({ defects, ...HARNESS_PLAN }, ['--seed', String(SEED)]);
  return Object.fromEntries((run.report?.rules ?? []).map((rule) => [rule.id, asVitestSays(rule.status)]));
}

describe.concurrent('the conformance suites under vitest', () => {
  it.each<[string, DefectId[]]>([
    ['the reference server', []],
    ['a default page of 10 (listing)', ['list-default-limit-10']],
    ['a key accepted by its prefix (auth)', ['auth-key-prefix-accepted']],
    ['429 never sent (rate limits)', ['rate-never-429']],
  ])('judge %s rule by rule as the CLI does', async (_name, defects) => {
    const [adapter, cli] = await withChildSlot(async () => [await adapterOutcomes(defects), await cliOutcomes(defects)]);
    expect(Object.keys(adapter).length, 'the adapter ran every rule').toBe(Object.keys(cli).length);
    expect(adapter).toEqual(cli);
    if (defects.length > 0) expect(Object.values(adapter)).toContain('failed');
  }, 300_000);
});
