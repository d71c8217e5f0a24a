import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packagePath } from '../../helpers/package-root.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { withChildSlot } from '../support/harness.js';

interface CompositeAction {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ id?: string; shell: string; env: Record<string, string>; run: string }> };
}

const action = parse(readFileSync(packagePath('action.yml'), 'utf8')) as CompositeAction;

/** What GitHub does with `${{ inputs.x }}` and `${{ github.action_path }}` in the step's env, the defaults filled in. */
function stepEnvironment(env: Record<string, string>, inputs: Record<string, string>): Record<string, string> {
  const values = (name: string) => inputs[name] ?? action.inputs[name]?.default ?? '';
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value
    .replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, input: string) => values(input))
    .replace(/\$\{\{\s*github\.action_path\s*\}\}/g, packagePath())]));
}

describe('action.yml', () => {
  it('is a composite action with the inputs base-url, api-key, report-dir, baseline and strict, and the outputs verdict and report-dir', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual(['api-key', 'base-url', 'baseline', 'report-dir', 'strict']);
    expect(action.inputs['base-url']?.required).toBe(true);
    expect(Object.keys(action.outputs).sort()).toEqual(['report-dir', 'verdict']);
    // No input is spliced into the script's text: a value with $( ) in it must stay data.
    for (const step of action.runs.steps) expect(step.run).not.toContain('${{');
  });

  it('runs the suite as the Action would: the verdict and report folder as outputs, summary.md on the step summary, the exit code the suite\'s', async () => {
    const server = await startReferenceServer({ apiKeys: ['action-key-51c0de9f'], defects: ['create-200'] });
    try {
      const workspace = mkdtempSync(join(tmpdir(), 'petstore-action-'));
      const [outputFile, summaryFile] = [join(workspace, 'output'), join(workspace, 'summary')];
      writeFileSync(outputFile, '');
      writeFileSync(summaryFile, '');
      const step = action.runs.steps.find((candidate) => candidate.id === 'certify')!;
      const env = stepEnvironment(step.env, { 'base-url': server.url, 'api-key': server.apiKey, strict: 'true' });
      const result = await withChildSlot(() => new Promise<{ code: number; stdout: string }>((resolve, reject) => {
        execFile('bash', ['-e', '-c', step.run], {
          cwd: workspace,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, ...env },
          timeout: 300_000,
          maxBuffer: 64 * 1024 * 1024,
        }, (error, stdout) => {
          if (error && typeof error.code !== 'number') return reject(error);
          resolve({ code: error ? (error.code as number) : 0, stdout });
        });
      }));
      expect(result.code, result.stdout.slice(-2000)).toBe(1);
      expect(readFileSync(outputFile, 'utf8')).toBe('verdict=not-certified\nreport-dir=conformance-reports\n');
      expect(readFileSync(summaryFile, 'utf8')).toBe(readFileSync(join(workspace, 'conformance-reports', 'summary.md'), 'utf8'));
      expect(readFileSync(summaryFile, 'utf8')).toContain('CREATE-01');
      expect(result.stdout).not.toContain(server.apiKey);
    } finally {
      await server.close();
    }
  }, 6 * 60_000);
});
