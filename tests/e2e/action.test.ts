// action.yml run the way a GitHub runner runs a composite action: each `run:` step as a bash script, its
// `${{ inputs.* }}` filled into the step's environment, GITHUB_ACTION_PATH pointing at the action's
// checkout, and a GITHUB_OUTPUT and a GITHUB_STEP_SUMMARY file of its own. `uses:` steps (the npm cache)
// only make a runner faster and are not run here.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packagePath } from '../../helpers/package-root.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { withSwitches } from '../support/switches.js';
import { reportIn } from '../support/cli.js';
import { harnessPlan, withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

interface Step { id?: string; uses?: string; shell?: string; env?: Record<string, string>; run?: string }
interface CompositeAction {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(packagePath('action.yml'), 'utf8')) as CompositeAction;
const scratch = scratchDir('petstore-action-');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface StepRun { code: number; log: string; outputs: Record<string, string>; summary: string }

/** What the runner does with `${{ inputs.x }}` in a step's env: the given value, else the input's default. */
function stepEnvironment(env: Record<string, string>, inputs: Record<string, string>): Record<string, string> {
  const value = (name: string) => inputs[name] ?? action.inputs[name]?.default ?? '';
  return Object.fromEntries(Object.entries(env).map(([name, text]) => [name, text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, input: string) => value(input))]));
}

/** GITHUB_OUTPUT lines, `name=value` each (the action writes no multi-line value). */
function outputsIn(file: string): Record<string, string> {
  return Object.fromEntries(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/** One `run:` step, as the runner runs `shell: bash`: `bash --noprofile --norc -eo pipefail <script file>`. */
function runStep(step: Step, actionPath: string, workspace: string, inputs: Record<string, string>, timeoutMs: number): Promise<StepRun> {
  const files = mkdtempSync(join(scratch, 'step-'));
  const [script, outputs, summary] = ['script.sh', 'output', 'summary'].map((name) => join(files, name)) as [string, string, string];
  writeFileSync(script, step.run!);
  writeFileSync(outputs, '');
  writeFileSync(summary, '');
  // The project's node_modules/.bin stays off PATH: the action must bring its own tools.
  const path = (process.env.PATH ?? '').split(delimiter).filter((entry) => !entry.includes(`node_modules${sep}.bin`));
  const env = {
    PATH: [dirname(process.execPath), ...path].join(delimiter),
    HOME: process.env.HOME ?? tmpdir(),
    RUNNER_OS: 'Linux',
    GITHUB_ACTION_PATH: actionPath,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputs,
    GITHUB_STEP_SUMMARY: summary,
    ...stepEnvironment(step.env ?? {}, inputs),
  };
  return new Promise((resolve, reject) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: workspace, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(new Error(`${error.message}\n${stderr.slice(-3000)}`));
      resolve({ code: error ? Number(error.code) : 0, log: `${stdout}\n${stderr}`, outputs: outputsIn(outputs), summary: readFileSync(summary, 'utf8') });
    });
  });
}

/** Every `run:` step in order, as a job runs the action; the last one's result (the certify step). */
async function runAction(actionPath: string, workspace: string, inputs: Record<string, string>, timeoutMs = 300_000): Promise<StepRun> {
  let last: StepRun | undefined;
  for (const step of action.runs.steps.filter((candidate) => candidate.run !== undefined)) {
    last = await runStep(step, actionPath, workspace, inputs, timeoutMs);
    if (last.code !== 0) return last;
  }
  return last!;
}

function git(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim())));
  });
}

describe('action.yml', () => {
  it('is a composite action whose step is action/certify.sh, every input passed through the environment', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual([
      'api-key', 'args', 'base-url', 'baseline', 'ca-file', 'max-duration', 'only', 'read-only', 'report-dir', 'require-complete', 'skip', 'strict',
    ]);
    expect(action.inputs['base-url']?.required).toBe(true);
    expect(Object.keys(action.outputs).sort()).toEqual(['exit-code', 'report-dir', 'verdict']);
    const certify = action.runs.steps.find((step) => step.id === 'certify')!;
    expect(certify.run?.trim()).toBe('bash "$GITHUB_ACTION_PATH/action/certify.sh"');
    const passed = Object.keys(action.inputs).map((input) => (input === 'api-key' ? 'PETSTORE_API_KEY' : `INPUT_${input.toUpperCase().replace(/-/g, '_')}`));
    expect(Object.keys(certify.env ?? {}).sort()).toEqual(passed.sort());
    // No input is spliced into a script's text: a value with $( ) in it must stay data.
    for (const step of action.runs.steps) expect(step.run ?? '').not.toContain('${{');
  });

  it('runs the suite with the inputs: the verdict, report folder and exit code as outputs, summary.md on the step summary', async () => {
    const server = await startReferenceServer(withSwitches({ apiKeys: ['action-key-51c0de9f'], defects: ['create-200'], ...harnessPlan(undefined) }));
    try {
      const workspace = mkdtempSync(join(scratch, 'workspace-'));
      // The creating area alone, where the defect is: the inputs reach the run, whatever its size (a whole run is the fresh clone's, below).
      const run = await withChildSlot(() => runAction(packagePath(), workspace, { 'base-url': server.url, 'api-key': server.apiKey, strict: 'true', only: 'creating', args: '--concurrency 2\n--seed 7' }));
      expect(run.code, run.log.slice(-2000)).toBe(1);
      expect(run.outputs).toEqual({ verdict: 'not-certified', 'report-dir': 'conformance-reports', 'exit-code': '1' });
      const reportDir = join(workspace, 'conformance-reports');
      expect(run.summary).toBe(readFileSync(join(reportDir, 'summary.md'), 'utf8'));
      expect(run.summary).toContain('CREATE-01');
      expect(reportIn(reportDir)?.options).toMatchObject({ strict: true, only: ['creating'], concurrency: 2, seed: 7 });
      expect(run.log).not.toContain(server.apiKey);
    } finally {
      await server.close();
    }
  }, 6 * 60_000);

  it('fails an incomplete run with require-complete (exit 6), and refuses a flag input that is neither true nor false', async () => {
    const server = await startReferenceServer({ apiKeys: ['action-key-51c0de9f'] });
    try {
      const workspace = mkdtempSync(join(scratch, 'workspace-'));
      const inputs = { 'base-url': server.url, 'api-key': server.apiKey, only: 'store,listing', skip: 'listing', 'read-only': 'true', 'require-complete': 'true', 'report-dir': 'gate' };
      const gated = await withChildSlot(() => runAction(packagePath(), workspace, inputs));
      expect(gated.code, gated.log.slice(-2000)).toBe(6);
      expect(gated.outputs).toEqual({ verdict: 'incomplete', 'report-dir': 'gate', 'exit-code': '6' });
      expect(reportIn(join(workspace, 'gate'))?.options).toMatchObject({ only: ['store', 'listing'], skip: ['listing'], readOnly: true, requireComplete: true });
      expect(gated.summary).toContain('Incomplete');

      const typo = await runAction(packagePath(), workspace, { ...inputs, 'require-complete': 'yes' });
      expect(typo.code).toBe(2);
      expect(typo.outputs).toEqual({ verdict: 'none', 'report-dir': 'gate', 'exit-code': '2' });
      expect(typo.log).toContain('::error title=petstore-conformance::the input require-complete takes true or false, not "yes"');
      expect(typo.summary).toContain('Not run: the input require-complete takes true or false, not "yes".');
    } finally {
      await server.close();
    }
  }, 6 * 60_000);

  it('reports no verdict from an earlier run\'s report.json when this one wrote none', async () => {
    const workspace = mkdtempSync(join(scratch, 'workspace-'));
    const inputs = { 'base-url': 'http://127.0.0.1:9/v1', 'api-key': 'action-key-51c0de9f', 'report-dir': 'reused' };
    const earlier = join(workspace, 'reused');
    mkdirSync(earlier);
    writeFileSync(join(earlier, 'report.json'), JSON.stringify({ verdict: 'certified', startedAt: '2020-01-01T00:00:00.000Z' }));
    writeFileSync(join(earlier, 'summary.md'), 'an earlier summary\n');
    // As an earlier run left them: its manifest names them (a folder of files the suite did not write is refused, exit 2).
    writeFileSync(join(earlier, 'manifest.json'), JSON.stringify({ tool: { name: 'petstore-conformance', version: '0.1.0' }, files: [{ file: 'report.json' }, { file: 'summary.md' }] }));
    const run = await runAction(packagePath(), workspace, { ...inputs, 'max-duration': '30' }, 60_000);
    expect(run.code, run.log.slice(-2000)).toBe(3);
    expect(run.outputs).toEqual({ verdict: 'none', 'report-dir': 'reused', 'exit-code': '3' });
    expect(run.summary).toMatch(/^### Pet Store conformance\n\nThe run ended with exit 3 before writing a report/);
  }, 60_000);

  // The test runs what is committed: a `uses:` checkout is a clone of a tag, without dist/ or node_modules.
  it('certifies a conforming server from a fresh clone at HEAD with no dist/, installing and building itself', async () => {
    const clone = join(scratch, 'petstore-conformance');
    await git(['clone', '--quiet', '--no-checkout', packagePath(), clone], scratch);
    await git(['checkout', '--quiet', '--detach', await git(['rev-parse', 'HEAD'], packagePath())], clone);
    expect(existsSync(join(clone, 'dist')) || existsSync(join(clone, 'node_modules'))).toBe(false);
    const server = await startReferenceServer({ apiKeys: ['action-key-51c0de9f'], ...harnessPlan(undefined) });
    try {
      const workspace = mkdtempSync(join(scratch, 'workspace-'));
      const run = await withChildSlot(() => runAction(clone, workspace, { 'base-url': server.url, 'api-key': server.apiKey, 'max-duration': '600', 'require-complete': 'true' }, 8 * 60_000));
      expect(run.code, run.log.slice(-3000)).toBe(0);
      expect(run.outputs).toEqual({ verdict: 'certified', 'report-dir': 'conformance-reports', 'exit-code': '0' });
      expect(run.log).toContain('::group::Installing petstore-conformance in');
      expect(existsSync(join(clone, 'dist', 'cli', 'main.js'))).toBe(true);
      const reportDir = join(workspace, 'conformance-reports');
      expect(run.summary).toBe(readFileSync(join(reportDir, 'summary.md'), 'utf8'));
      expect(run.summary).toMatch(/Certified/);
      expect(reportIn(reportDir)?.options).toMatchObject({ maxDurationMs: 600_000, requireComplete: true });
      expect(run.log).not.toContain(server.apiKey);
    } finally {
      await server.close();
    }
  }, 10 * 60_000);
});
