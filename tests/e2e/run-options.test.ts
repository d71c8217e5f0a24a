// The programmatic API refuses what the CLI refuses, with the CLI's words, before anything is sent: both
// go through one resolver. A refusal settles at once; a value the CLI never lets through (concurrency 0)
// once left the API's promise waiting forever.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_OPTIONS, resolveRunOptions, UsageError as ResolverUsageError } from '../../cli/resolve-options.js';
import { runConformance, startReferenceServer, UsageError, type ConformanceOptions } from '../../index.js';
import { runCli } from '../support/cli.js';
import { withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

const scratch = scratchDir('petstore-run-options-');
const aFile = join(scratch, 'a-file');
writeFileSync(aFile, 'not a folder, and not a certificate either\n');
// Nothing listens there; the resolver refuses before a connection would be tried.
const target = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'key-of-the-options-test', reportDir: join(scratch, 'reports') };

beforeAll(() => {
  vi.stubEnv('PETSTORE_API_KEY', '');
});

afterAll(() => {
  vi.unstubAllEnvs();
});

/** The API's refusal of an integer option: its own name, its own unit, the value as given. */
const integerRange = (option: string, value: string, range: string) => new RegExp(`^${option} must be an integer from ${range}, not ${value.replace('.', '\\.')}$`);

const REFUSED: Array<[string, ConformanceOptions, RegExp]> = [
  ['a base URL without a scheme', { baseUrl: '127.0.0.1:9/v1' }, /^baseUrl "127\.0\.0\.1:9\/v1" is not a URL; give the full address/],
  ['a base URL read as a scheme of its own', { baseUrl: 'localhost:9/v1' }, /^baseUrl "localhost:9\/v1" has no http:\/\/ or https:\/\/ in front/],
  ['a base URL with another scheme', { baseUrl: 'ftp://127.0.0.1:9/v1' }, /^baseUrl must use http or https, not ftp/],
  ['a base URL with a query', { baseUrl: 'http://127.0.0.1:9/v1?x=1' }, /^baseUrl must not carry a query or fragment/],
  ['a base URL with credentials', { baseUrl: 'http://user:pw@127.0.0.1:9/v1' }, /^baseUrl must not carry credentials/],
  ['a base URL without a key', { baseUrl: target.baseUrl, apiKey: undefined }, /^no API key: set PETSTORE_API_KEY \(recommended\) or pass apiKey$/],
  ['an unknown rule ID in only', { only: ['listing', 'LIST-99'] }, /^unknown rule ID or area in only\/skip: LIST-99 \(list them with petstore-conformance --list\)$/],
  ['an unknown area in skip', { skip: ['listings'] }, /^unknown rule ID or area in only\/skip: listings/],
  ['a report dir that cannot be created', { reportDir: join(aFile, 'reports') }, /^cannot write reports to .*a-file\/reports \(.*a-file is a file, not a folder\): choose a writable folder with reportDir$/],
  ['a report dir under \/proc', { reportDir: '/proc/petstore-reports' }, /^cannot write reports to \/proc\/petstore-reports \(.*ENOENT\)\): choose a writable folder/],
  ['a CA file that does not exist', { caFile: join(scratch, 'missing.pem') }, /^cannot read caFile .*missing\.pem \(no such file\)/],
  ['a CA file without a PEM certificate', { caFile: aFile }, /^caFile .*a-file holds no PEM certificate/],
  ['a baseline file that does not exist', { baseline: join(scratch, 'missing.txt') }, /^cannot read baseline .*missing\.txt \(no such file\)/],
  ['a baseline to write into a missing folder', { writeBaseline: join(scratch, 'missing', 'baseline.txt') }, /^cannot write baseline .*: the folder .*missing does not exist$/],
  ['an unknown reporter', { reporters: ['json', 'pdf'] as never }, /^reporters takes html, summary, har, junit, json, badge, not "pdf"\.$/],
  ['no reporter at all', { reporters: [] }, /^reporters takes /],
  ['a today that is no date', { today: '31.01.2026' }, /^today must be a date written YYYY-MM-DD/],
  ['a today that does not exist', { today: '2026-02-30' }, /^today must be a date written YYYY-MM-DD/],
  ['concurrency 0', { concurrency: 0 }, integerRange('concurrency', '0', '1 to 64')],
  ['concurrency 65', { concurrency: 65 }, integerRange('concurrency', '65', '1 to 64')],
  ['a timeout of 0', { timeoutMs: 0 }, integerRange('timeoutMs', '0', '100 to 600000')],
  ['a timeout as text', { timeoutMs: '10s' as never }, integerRange('timeoutMs', '"10s"', '100 to 600000')],
  ['a request cap of 0', { maxRequests: 0 }, integerRange('maxRequests', '0', '1 to 10000000')],
  ['a duration cap of 0', { maxDurationMs: 0 }, integerRange('maxDurationMs', '0', '1000 to 604800000')],
  ['a negative reserve', { rateLimitReserve: -1 }, integerRange('rateLimitReserve', '-1', '0 to 1000')],
  ['a fractional probe budget', { rateLimitBudget: 1.5 }, integerRange('rateLimitBudget', '1.5', '0 to 1000000')],
  ['a seed past 2^31 - 1', { seed: 2 ** 31 }, integerRange('seed', '2147483648', '0 to 2147483647')],
  ['too many fuzz runs', { fuzzRuns: 100_001 }, integerRange('fuzzRuns', '100001', '0 to 100000')],
  ['too many valid fuzz runs', { fuzzValidRuns: 10_001 }, integerRange('fuzzValidRuns', '10001', '0 to 10000')],
  ['too many explored sequences', { exploreRuns: 1001 }, integerRange('exploreRuns', '1001', '0 to 1000')],
  ['a response cap under 1 KiB', { maxResponseBytes: 10 }, integerRange('maxResponseBytes', '10', '1024 to 1073741824')],
  ['a read lag past ten minutes', { readLagMs: 600_001 }, integerRange('readLagMs', '600001', '0 to 600000')],
  ['a flag that is not a boolean', { strict: 'yes' as never }, /^strict must be true or false, not "yes"$/],
  ['a requireComplete that is not a boolean', { requireComplete: 'true' as never }, /^requireComplete must be true or false, not "true"$/],
  // The hooks too: each would otherwise break the run only at its first line printed, or its first signal.
  ['a print that is not a function', { print: 'console.log' as never }, /^print must be a function, not "console\.log"$/],
  ['a status that is not a function', { status: 5 as never }, /^status must be a function, not 5$/],
  ['a signal that is not an AbortSignal', { signal: { aborted: false } as never }, /^signal must be an AbortSignal/],
  ['a replay that names no recording', { replay: { runId: 'r' } as never }, /^replay must name the recording \(harPath\)/],
];

describe('runConformance refuses what the CLI refuses, in its own option names', () => {
  it.each(REFUSED)('%s, with UsageError naming the API\'s options', async (_case, options, message) => {
    const refusal = runConformance({ ...target, ...options });
    await expect(refusal).rejects.toBeInstanceOf(UsageError);
    await expect(refusal).rejects.toThrow(message);
  }, 5_000);

  it('exports the UsageError the resolver throws, so a caller can catch it by class', () => {
    expect(UsageError).toBe(ResolverUsageError);
  });
});

describe('resolveRunOptions', () => {
  it('fills in the defaults, the key from PETSTORE_API_KEY and a seed in range', () => {
    const resolved = resolveRunOptions({ baseUrl: 'http://127.0.0.1:9/v1/', reportDir: target.reportDir }, { PETSTORE_API_KEY: 'key-from-the-environment' });
    expect(resolved).toMatchObject({ ...DEFAULT_OPTIONS, baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'key-from-the-environment', reportDir: target.reportDir });
    expect(resolved.seed).toBeGreaterThanOrEqual(0);
    expect(resolved.seed).toBeLessThan(2 ** 31);
  });

  it('keeps what was given over the defaults and the environment, null caps included', () => {
    const given = { ...target, concurrency: 1, maxRequests: null, maxDurationMs: 1_500, seed: 7, strict: true, reporters: ['json', 'json'] } as const;
    const resolved = resolveRunOptions(given, { PETSTORE_API_KEY: 'key-from-the-environment' });
    expect(resolved).toMatchObject({ apiKey: target.apiKey, concurrency: 1, maxRequests: null, maxDurationMs: 1_500, seed: 7, strict: true, reporters: ['json'] });
  });
});

// A CI gate reads the exit code: an --only run, or one whose budget ran out, must not pass it unnoticed.
describe('--require-complete', () => {
  const only = ['store'];

  it('fails an incomplete run with exit 6, neither 0 nor the usage code 2, and says why', async () => {
    const server = await startReferenceServer({ apiKeys: ['require-complete-key-3b71'] });
    try {
      const run = await withChildSlot(() => runCli(['--base-url', server.url, '--only', only.join(','), '--require-complete'], { env: { PETSTORE_API_KEY: server.apiKey } }));
      expect(run.code, run.stderr).toBe(6);
      expect(run.report).toMatchObject({ verdict: 'incomplete', exitCode: 6, options: { requireComplete: true } });
      expect(run.stdout).toMatch(/--require-complete: \d+ MUST rule\(s\) were not judged, so the run fails \(exit 6\)/);
      const without = await withChildSlot(() => runCli(['--base-url', server.url, '--only', only.join(',')], { env: { PETSTORE_API_KEY: server.apiKey } }));
      expect({ code: without.code, verdict: without.report?.verdict }).toEqual({ code: 0, verdict: 'incomplete' });
    } finally {
      await server.close();
    }
  }, 300_000);

  it('gives the programmatic API the same rule: report.exitCode is 6 for it, 0 without it', async () => {
    const server = await startReferenceServer({ apiKeys: ['require-complete-key-3b71'] });
    try {
      const options = { baseUrl: server.url, apiKey: server.apiKey, only };
      const gated = await runConformance({ ...options, requireComplete: true, reportDir: join(scratch, 'require-complete') });
      expect({ verdict: gated.verdict, exitCode: gated.exitCode }).toEqual({ verdict: 'incomplete', exitCode: 6 });
      const ungated = await runConformance({ ...options, reportDir: join(scratch, 'without-require-complete') });
      expect({ verdict: ungated.verdict, exitCode: ungated.exitCode }).toEqual({ verdict: 'incomplete', exitCode: 0 });
    } finally {
      await server.close();
    }
  }, 300_000);
});
