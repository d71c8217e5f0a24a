// GET /pets/{petId} is deprecated with removal on 5 December 2030: until that day a server that drops it
// fails, from that day on it is within its rights. The run's date is pinned through the programmatic
// API (`today`), in a child process as a user's script would call it.
// By hand:  npm run build && npx vitest run tests/e2e/deprecation.test.ts
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../cli/report.js';
import { parseJson } from '../../helpers/json.js';
import { packagePath } from '../../helpers/package-root.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { withSwitches } from '../../server/switches.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

const TIMEOUT_MS = 3 * 60_000;
const GET_PET_RULES = ['CREATE-05', 'FETCH-01', 'FETCH-02', 'VER-02'];

/** Runs runConformance() of the built package in a child process, against a server without GET /pets/{petId}. */
async function certifyWithoutGetPet(today: string): Promise<Report> {
  const server = await startReferenceServer(withSwitches({ apiKeys: ['deprecation-key-2b9d'], defects: ['fetch-removed'] }));
  const reportDir = scratchDir('petstore-deprecation-');
  const options = { baseUrl: server.url, apiKey: server.apiKey, reportDir, today, only: ['creating', 'fetching', 'versioning'] };
  const script = `const { runConformance } = await import(${JSON.stringify(packagePath('dist', 'index.js'))});
    await runConformance(${JSON.stringify(options)});`;
  try {
    await withChildSlot(() => new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: TIMEOUT_MS }, (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()));
    }));
  } finally {
    await server.close();
  }
  return parseJson(readFileSync(join(reportDir, 'report.json'), 'utf8')) as unknown as Report;
}

function statuses(report: Report, ids: readonly string[]): Record<string, string | undefined> {
  return Object.fromEntries(ids.map((id) => [id, report.rules.find((rule) => rule.id === id)?.status]));
}

describe('the deprecated GET /pets/{petId}', () => {
  it('must still be served the day before its removal on 5 December 2030', async () => {
    const report = await certifyWithoutGetPet('2030-12-04');
    expect(statuses(report, GET_PET_RULES)).toEqual({ 'CREATE-05': 'failed', 'FETCH-01': 'failed', 'FETCH-02': 'passed', 'VER-02': 'failed' });
    expect(report.rules.find((rule) => rule.id === 'VER-02')?.message).toMatch(/served until 2030-12-05/);
  }, TIMEOUT_MS);

  it('may be gone from the removal day on: the rules that need it are skipped, saying why', async () => {
    const report = await certifyWithoutGetPet('2030-12-05');
    expect(statuses(report, GET_PET_RULES)).toEqual({ 'CREATE-05': 'skipped', 'FETCH-01': 'skipped', 'FETCH-02': 'skipped', 'VER-02': 'skipped' });
    for (const id of GET_PET_RULES) expect(report.rules.find((rule) => rule.id === id)?.message).toMatch(/removal on 2030-12-05; the run's date is 2030-12-05/);
    expect(report.rules.filter((rule) => rule.status === 'failed' || rule.status === 'errored').map((rule) => rule.id)).toEqual([]);
  }, TIMEOUT_MS);
});
