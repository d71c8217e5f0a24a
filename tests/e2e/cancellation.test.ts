// CI jobs get cancelled: SIGTERM (or Ctrl-C's SIGINT) mid-run must still leave the reports of what was
// judged, with an honest "incomplete" verdict, and end within seconds.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { withSwitches } from '../support/switches.js';
import { reportIn } from '../support/cli.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

interface Ended {
  code: number | null;
  /** From the first signal to the process's exit. */
  afterSignalMs: number;
  output: string;
  reportDir: string;
}

/**
 * Runs the CLI against `baseUrl`, sends `signals` (the first `when` it is due: so many ms in, or once the output
 * shows that text; the rest 100 ms apart), and waits for the end.
 */
function runAndSignal(baseUrl: string, apiKey: string, signals: NodeJS.Signals[], when: number | RegExp): Promise<Ended> {
  const reportDir = scratchDir('petstore-cancel-');
  const child = spawn(process.execPath, [packagePath('dist', 'cli', 'main.js'), '--base-url', baseUrl, '--report-dir', reportDir, '--verbose'], {
    env: { PATH: process.env.PATH ?? '', PETSTORE_API_KEY: apiKey },
  });
  let output = '';
  let signalledAt = 0;
  const signal = () => {
    if (signalledAt !== 0) return;
    signalledAt = performance.now();
    signals.forEach((name, index) => setTimeout(() => child.kill(name), index * 100));
  };
  const heard = (chunk: Buffer) => {
    output += chunk;
    if (when instanceof RegExp && when.test(output)) signal();
  };
  child.stdout.on('data', heard);
  child.stderr.on('data', heard);
  if (typeof when === 'number') setTimeout(signal, when);
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, afterSignalMs: performance.now() - signalledAt, output, reportDir })));
}

describe('a cancelled run', () => {
  it('stops on SIGTERM once it has judged a rule, writes every report of what it judged, and exits 143 within 15 s', async () => {
    // 200 ms a response: a full run takes minutes, so the signal lands mid-run. It goes once a rule's line is
    // printed, not at a fixed time: on a loaded machine 8 s in was once before the first verdict.
    const server = await startReferenceServer(withSwitches({ apiKeys: ['cancel-key-5b1d'], variants: ['slow'], rateLimit: { limit: 300, windowMs: 60_000 } }));
    try {
      const ended = await withChildSlot(() => runAndSignal(server.url, server.apiKey, ['SIGTERM'], /^ {2}(PASS|FAIL) /m));
      expect(ended.code, ended.output).toBe(143);
      expect(ended.afterSignalMs).toBeLessThan(15_000);
      for (const file of ['report.json', 'report.html', 'summary.md', 'junit.xml', 'exchanges.har']) expect(existsSync(join(ended.reportDir, file)), file).toBe(true);
      const report = reportIn(ended.reportDir)!;
      expect({ verdict: report.verdict, cancelled: report.cancelled, exitCode: report.exitCode }).toEqual({ verdict: 'incomplete', cancelled: 'SIGTERM', exitCode: 143 });
      const judged = report.rules.filter((rule) => rule.status === 'passed' || rule.status === 'failed');
      const notReached = report.rules.filter((rule) => rule.status === 'skipped' && /cancelled \(SIGTERM\)/.test(rule.message ?? ''));
      expect(judged.length, 'rules judged before the signal').toBeGreaterThan(0);
      expect(notReached.length, 'rules skipped because the run was cancelled').toBeGreaterThan(0);
      expect(report.rules.filter((rule) => rule.status === 'errored').map((rule) => `${rule.id}: ${rule.message}`)).toEqual([]);
      expect(ended.output).toContain('INCOMPLETE (cancelled by SIGTERM)');
      // The reports a person reads name the cancellation too, not only that the run is incomplete.
      expect(readFileSync(join(ended.reportDir, 'report.html'), 'utf8')).toMatch(/id="verdict">Incomplete: cancelled \(SIGTERM\)<\/p>\s*<p class="verdict-why">The run was cancelled \(SIGTERM\) before it judged every rule/);
      expect(readFileSync(join(ended.reportDir, 'summary.md'), 'utf8')).toMatch(/^## ⚠️ Incomplete: the run was cancelled \(SIGTERM\) before it judged every rule: /);
      // Nothing in the report folder but the reports: the cancellation reached the worker on the run's channel.
      expect(readdirSync(ended.reportDir).sort()).toEqual(['badge.svg', 'exchanges.har', 'junit.xml', 'manifest.json', 'report.html', 'report.json', 'summary.md']);
    } finally {
      await server.close();
    }
  }, 5 * 60_000);

  it('exits at once, 130, on a second SIGINT', async () => {
    const server = await startReferenceServer(withSwitches({ apiKeys: ['cancel-key-6c2e'], variants: ['slow'], rateLimit: { limit: 300, windowMs: 60_000 } }));
    try {
      // Once the run prints its first line, by when it listens for signals: at a fixed 3 s, a loaded machine once
      // had the process still loading, and the default action ended it (exit code null).
      const ended = await withChildSlot(() => runAndSignal(server.url, server.apiKey, ['SIGINT', 'SIGINT'], /\S/));
      expect(ended.code, ended.output).toBe(130);
      expect(ended.afterSignalMs).toBeLessThan(2_000);
    } finally {
      await server.close();
    }
  }, 5 * 60_000);
});
