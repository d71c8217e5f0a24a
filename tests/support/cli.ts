import { execFile } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseOwnJson } from '../../helpers/json.js';
import { packagePath } from '../../helpers/package-root.js';
import type { Report } from '../../cli/reports/report.js';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import { withSwitches, type SwitchedServerOptions } from './switches.js';
import { scratchDir } from './scratch.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  reportDir: string;
  /** report.json, when the run wrote one. */
  report?: Report;
}

/** Runs the built CLI as a user would: a child process, its own report dir, the key in the environment. */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; reportDir?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  const reportDir = options.reportDir ?? scratchDir('petstore-run-');
  const hasReportDir = args.includes('--report-dir');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [packagePath('dist', 'cli', 'main.js'), ...args, ...(hasReportDir ? [] : ['--report-dir', reportDir])], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      timeout: options.timeoutMs ?? 120_000,
      maxBuffer: 64 * 1024 * 1024,
    }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code, stdout, stderr, reportDir, report: reportIn(reportDir) });
    });
  });
}

/** The report.json a run wrote into `dir`, read as a user would read it; undefined when it wrote none. */
export function reportIn(dir: string): Report | undefined {
  const path = join(dir, 'report.json');
  return existsSync(path) ? (parseOwnJson(readFileSync(path, 'utf8')) as unknown as Report) : undefined;
}

/** Starts a reference server (with defects or variants), runs the CLI against it, and stops the server. */
export async function certify(serverOptions: SwitchedServerOptions, args: readonly string[] = [], options: { timeoutMs?: number } = {}): Promise<CliRun & { server: RunningReferenceServer }> {
  const server = await startReferenceServer(withSwitches({ apiKeys: ['test-key-4f9a1c'], ...serverOptions }));
  try {
    const run = await runCli(['--base-url', server.url, ...args], { env: { PETSTORE_API_KEY: server.apiKey }, timeoutMs: options.timeoutMs });
    return { ...run, server };
  } finally {
    await server.close();
  }
}

/** The IDs of the rules a report shows with the given status and levels. */
export function ruleIds(report: Report | undefined, status: string, levels: readonly string[] = ['MUST', 'SHOULD']): string[] {
  return (report?.rules ?? []).filter((rule) => rule.status === status && levels.includes(rule.level)).map((rule) => rule.id).sort();
}
