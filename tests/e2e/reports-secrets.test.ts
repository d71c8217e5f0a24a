import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../server/reference-server.js';
import { withSwitches } from '../support/switches.js';
import { runCli } from '../support/cli.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

/** Every form the key could leak in: as sent, in a Basic credential, URL-encoded. */
function keyForms(key: string): string[] {
  return [key, Buffer.from(key).toString('base64'), Buffer.from(`${key}:`).toString('base64'), encodeURIComponent(key)];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('the API key', () => {
  it('appears in no file the run wrote, nor in its stdout or stderr', async () => {
    const key = `secret-${randomBytes(9).toString('hex')}`;
    // The defects put exchanges that carried the key (as Bearer, and under Basic) into the evidence.
    const server = await startReferenceServer(withSwitches({ apiKeys: [key], defects: ['auth-basic-accepted', 'list-default-limit-10'] }));
    try {
      const reportDir = scratchDir('petstore-secrets-');
      // The key on the command line, the harder case: nothing may echo an argument back.
      const run = await withChildSlot(() => runCli([
        '--base-url', server.url, '--api-key', key, '--json',
        '--rate-limit-budget', '0', '--fuzz-runs', '20', '--fuzz-valid-runs', '2',
        '--write-baseline', join(reportDir, 'baseline.txt'),
      ], { reportDir, timeoutMs: 300_000 }));
      const files = filesUnder(run.reportDir);
      expect(files.map((file) => file.slice(run.reportDir.length + 1)).sort()).toEqual(['badge.svg', 'baseline.txt', 'exchanges.har', 'junit.xml', 'manifest.json', 'report.html', 'report.json', 'summary.md']);
      expect(run.report?.rules.find((rule) => rule.id === 'AUTH-04')?.status, 'the Basic exchange is in the evidence').toBe('failed');
      const places = [...files.map((file) => ({ name: file, text: readFileSync(file, 'utf8') })), { name: 'stdout', text: run.stdout }, { name: 'stderr', text: run.stderr }];
      const leaks = places.flatMap(({ name, text }) => keyForms(key).filter((form) => text.includes(form)).map((form) => `${name} contains ${form === key ? 'the key' : `the key encoded as ${form}`}`));
      expect(leaks).toEqual([]);
      expect(run.stdout).toContain('$PETSTORE_API_KEY');
      expect(readFileSync(join(run.reportDir, 'manifest.json'), 'utf8'), 'the manifest names the key only as redacted').toContain('"apiKey": "[redacted]"');
    } finally {
      await server.close();
    }
  }, 6 * 60_000); // a full run, which may first wait for one of the machine's child slots
});
