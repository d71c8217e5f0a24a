// A run is one process: the engine runs the checks beside the CLI and hands every exchange, the diagnosis, the
// waits and a replay's misses to it as events, so a run writes nothing into its report folder but the reports,
// and a cancellation reaches every request and wait at once.
import { readdirSync, rmSync, watch } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveRunOptions } from '../../cli/resolve-options.js';
import { certify } from '../../cli/run.js';
import { LOCK_FILE } from '../../cli/reports/report-folder.js';
import { proxyRouteFor } from '../../helpers/http/proxy.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { withSwitches } from '../support/switches.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

const REPORT_FILES = ['badge.svg', 'exchanges.har', 'junit.xml', 'manifest.json', 'report.html', 'report.json', 'summary.md'];

/**
 * The run wrote its reports, and nothing beside them: no file was written that is not one of them, but the
 * folder's own lock, the empty file that proves the folder writable before the run sends anything
 * (cli/resolve-options.ts), and the staging folder the reports are written in before they are moved into place
 * (cli/reports/report-folder.ts), all gone when the run ends.
 */
function expectReportFilesOnly(written: Iterable<string>, reportDir: string): void {
  const writing = (name: string) => name === LOCK_FILE || /^\.write-test-[0-9a-f]{8}$/.test(name) || /^\.petstore-conformance-.+\.tmp$/.test(name);
  expect([...written].filter((name) => !REPORT_FILES.includes(name) && !writing(name))).toEqual([]);
  expect(readdirSync(reportDir).sort()).toEqual(REPORT_FILES);
}

const KEY = 'in-process-key-3d7e';

/** Certifies `baseUrl` in this process, noting every name created in the report folder while the run goes. */
async function watchedRun(baseUrl: string, given: Record<string, unknown>): Promise<{ names: Set<string>; run: Awaited<ReturnType<typeof certify>>; reportDir: string }> {
  const reportDir = scratchDir('petstore-in-process-');
  const options = resolveRunOptions({ baseUrl, apiKey: KEY, reportDir, ...given }, {});
  const names = new Set<string>();
  const watcher = watch(reportDir, (_event, name) => {
    if (name) names.add(name.toString());
  });
  try {
    const run = await certify(options);
    return { names, run, reportDir };
  } finally {
    watcher.close();
  }
}

describe('a run in its process', () => {
  it('leave nothing in the report folder but the reports: no exchange log, diagnosis, tally or marker beside them', async (ctx) => {
    const server = await startReferenceServer({ apiKeys: [KEY] });
    if (proxyRouteFor(server.url)) ctx.skip();
    try {
      const { names, run, reportDir } = await withChildSlot(() => watchedRun(server.url, { only: ['listing', 'errors'] }));
      try {
        expect(run.report.requests.total).toBeGreaterThan(0);
        expect(run.report.rules.filter((rule) => rule.area === 'listing').every((rule) => rule.status === 'passed' || rule.level === 'INFO')).toBe(true);
        expectReportFilesOnly(names, reportDir);
      } finally {
        rmSync(reportDir, { recursive: true, force: true });
      }
    } finally {
      await server.close();
    }
  }, 120_000);

  it('stop within seconds of the cancellation, mid-request, and still write every report', async (ctx) => {
    // 200 ms a response: the run is mid-request when it is cancelled.
    const server = await startReferenceServer(withSwitches({ apiKeys: [KEY], variants: ['slow'] }));
    if (proxyRouteFor(server.url)) ctx.skip();
    try {
      const controller = new AbortController();
      let abortedAt = 0;
      const { names, run, reportDir, endedAt } = await withChildSlot(async () => {
        setTimeout(() => {
          abortedAt = performance.now();
          controller.abort('SIGTERM');
        }, 2_500);
        const watched = await watchedRun(server.url, { signal: controller.signal });
        return { ...watched, endedAt: performance.now() };
      });
      try {
        expect(run.report.cancelled).toBe('SIGTERM');
        expect(run.report.rules.some((rule) => rule.status === 'skipped' && /cancelled \(SIGTERM\)/.test(rule.message ?? ''))).toBe(true);
        // Measured at 0.8 s alone and 3.4 s beside two other test files; a run that went on would take minutes.
        expect(endedAt - abortedAt).toBeLessThan(8_000);
        expectReportFilesOnly(names, reportDir);
      } finally {
        rmSync(reportDir, { recursive: true, force: true });
      }
    } finally {
      await server.close();
    }
  }, 120_000);
});
