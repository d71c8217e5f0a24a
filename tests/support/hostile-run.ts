// Certifying a hostile server and reading what the run left behind, for the hostile-* tests.
import { expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RuleResult } from '../../cli/reports/report.js';
import { runCli, type CliRun } from './cli.js';
import { runInProcess } from './in-process.js';

/** The key of every hostile run: distinctive, so that a leak anywhere is found by a plain search. */
export const HOSTILE_KEY = 'hostile-key-Zq81vX30wT';

/**
 * Certifies `baseUrl` through the CLI's own argument parsing, the key given as the environment gives it, the run
 * bounded at a minute. In this process: what a hostile server can do to a run (its verdict, its reports, the key)
 * does not depend on the process around it.
 */
export function runAgainst(baseUrl: string, args: readonly string[] = []): Promise<CliRun> {
  return runInProcess(['--base-url', baseUrl, ...args], HOSTILE_KEY, { timeoutMs: 60_000 });
}

/** As runAgainst, the CLI a child process as a user runs it: for what main.ts does before and after a run (usage, stderr). */
export function runCliAgainst(baseUrl: string, args: readonly string[] = []): Promise<CliRun> {
  return runCli(['--base-url', baseUrl, ...args], { env: { PETSTORE_API_KEY: HOSTILE_KEY }, timeoutMs: 60_000 });
}

/**
 * Fails if the key is in the output or in a file the run wrote, in any form a request carries it
 * (plain, Basic's base64) or a report may show an echo of it in (slashes escaped, once or twice).
 */
export function expectKeyNowhere(run: CliRun, key = HOSTILE_KEY): void {
  const escaped = key.replaceAll('/', '\\/');
  const forms = [...new Set([key, Buffer.from(key).toString('base64'), Buffer.from(`${key}:`).toString('base64'), escaped, JSON.stringify(escaped).slice(1, -1)])];
  const places: Record<string, string> = { stdout: run.stdout, stderr: run.stderr, ...filesUnder(run.reportDir) };
  for (const [place, text] of Object.entries(places)) {
    for (const form of forms) expect(text.includes(form), `the key appears in ${place}`).toBe(false);
  }
}

/** One rule of the run's report.json; fails when there is no report or no such rule. */
export function ruleOf(run: CliRun, id: string): RuleResult {
  const rule = run.report?.rules.find((candidate) => candidate.id === id);
  if (!rule) throw new Error(`no ${id} in the report (exit ${run.code}; stderr: ${run.stderr.slice(0, 500)})`);
  return rule;
}

/** The rules of the report that were judged at all, i.e. not skipped by --only. */
export function rulesRun(run: CliRun): RuleResult[] {
  return (run.report?.rules ?? []).filter((rule) => rule.status !== 'skipped');
}

function filesUnder(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files[path] = readFileSync(path, 'latin1');
    }
  }
  return files;
}
