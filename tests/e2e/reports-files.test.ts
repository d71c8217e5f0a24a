import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Har } from 'har-format';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../helpers/json.js';
import { certify, runCli, type CliRun } from '../support/cli.js';
import { certifyInProcess } from '../support/in-process.js';
import { withChildSlot } from '../support/harness.js';

// A run may first wait for one of the machine's child slots, held by other test files.
const SLOT_WAIT_MS = 5 * 60_000;

// The HAR 1.2 JSON Schemas published as har-schema: an independent statement of the format.
function harValidator() {
  const schemas = createRequire(import.meta.url)('har-schema') as Record<string, { $id: string }>;
  const draft06 = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json') as object;
  // strict off: har-schema carries keywords JSON Schema does not know ("optional", "min").
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addMetaSchema(draft06);
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return { validate: ajv.getSchema('har.json#')!, errors: () => ajv.errorsText(ajv.getSchema('har.json#')!.errors) };
}

describe('report files of a run against a server with a defect', () => {
  let run: CliRun;
  let har: Har;

  beforeAll(async () => {
    // The files are the subject, not the process that wrote them: the run is one in this process.
    run = await withChildSlot(() => certifyInProcess({ defects: ['list-default-limit-10'] }, ['--only', 'listing'], { timeoutMs: 120_000 }));
    har = parseJson(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as unknown as Har;
  }, SLOT_WAIT_MS);

  it('writes every report by default', () => {
    expect(readdirSync(run.reportDir).sort()).toEqual(['badge.svg', 'exchanges.har', 'junit.xml', 'manifest.json', 'report.html', 'report.json', 'summary.md']);
  });

  it('exchanges.har validates against the HAR 1.2 schema', () => {
    const { validate, errors } = harValidator();
    expect(validate(har), errors()).toBe(true);
    expect(har.log.version).toBe('1.2');
  });

  it('exchanges.har holds every request of the run, each once', () => {
    const seqs = har.log.entries.map((entry) => (entry as { _seq?: number })._seq);
    expect(run.report!.requests.total).toBeGreaterThan(0);
    expect(har.log.entries).toHaveLength(run.report!.requests.total);
    expect(new Set(seqs).size).toBe(seqs.length);
    const cited = run.report!.rules.flatMap((rule) => rule.evidence.flatMap((evidence) => evidence.exchanges.map((item) => item.exchange)));
    expect(cited.length).toBeGreaterThan(0);
    for (const exchange of cited) {
      const entry = har.log.entries.find((candidate) => (candidate as { _seq?: number })._seq === exchange.seq);
      expect.soft(entry?.request.url, `request #${exchange.seq}`).toBe(exchange.request.url);
      expect.soft(entry?.response.content.text, `response #${exchange.seq}`).toBe(exchange.response?.rawBody);
    }
  });

  it('exchanges.har names the check that sent each request, as many for each rule as the report counts', () => {
    // The listing checks run side by side and share fixtures: each request is put down to the check that sent it.
    const byRule: Record<string, number> = {};
    for (const entry of har.log.entries) {
      const rule = /^sent by the check of (\S+)$/.exec(entry.comment ?? '')?.[1] ?? '(no check)';
      byRule[rule] = (byRule[rule] ?? 0) + 1;
    }
    const counted = Object.fromEntries(run.report!.rules.filter((rule) => rule.requests > 0).map((rule) => [rule.id, rule.requests]));
    expect(Object.keys(counted).length).toBeGreaterThan(1);
    expect(byRule).toEqual(counted);
  });

  it('exchanges.har shows Authorization redacted, and timings that add up inside the run', () => {
    const started = Date.parse(run.report!.startedAt);
    const finished = Date.parse(run.report!.finishedAt);
    for (const entry of har.log.entries) {
      const authorization = entry.request.headers.find((header) => header.name.toLowerCase() === 'authorization');
      expect.soft(authorization?.value, entry.request.url).toBe('Bearer $PETSTORE_API_KEY');
      const { send = -1, wait, receive } = entry.timings;
      expect.soft(Math.min(send, wait, receive)).toBeGreaterThanOrEqual(0);
      expect.soft(entry.time).toBeCloseTo(send + wait + receive, 5);
      expect.soft(Date.parse(entry.startedDateTime)).toBeGreaterThanOrEqual(started);
      expect.soft(Date.parse(entry.startedDateTime)).toBeLessThanOrEqual(finished);
    }
  });

  it('summary.md states the verdict, the counts by level and outcome, and each failed rule on one line with its ID', () => {
    const summary = readFileSync(join(run.reportDir, 'summary.md'), 'utf8');
    const counts = run.report!.counts;
    expect(summary.split('\n')[0]).toBe(`## ❌ Not certified: \`${run.report!.target.baseUrl}\``);
    expect(summary).toContain('| Level | Passed | Failed | Errored | Skipped |');
    for (const level of ['MUST', 'SHOULD', 'INFO'] as const) {
      const c = counts[level];
      expect(summary).toContain(`| ${level} | ${c.passed} | ${c.failed} | ${c.errored} | ${c.skipped} |`);
    }
    const failedLines = summary.split('\n').filter((line) => line.startsWith('- `'));
    expect(failedLines).toEqual([
      '- `LIST-02` MUST return exactly 20 pets when no limit is given and more than 20 exist: expected exactly 20 pets without limit (the target holds at least 26), saw 10 pets (GET /v1/pets → 200)',
      '- `LIST-14` MUST apply the default page size of 20 with a status filter (exactly 20 when more than 20 of that status exist): status=available without limit: expected exactly 20 pets (the target had shown 21 available), saw 10 pets (GET /v1/pets?status=available → 200)',
    ]);
  });
});

describe('--reporter and --json', () => {
  it('--reporter writes only the files named; --json still prints report.json to stdout', async () => {
    const run = await withChildSlot(() => certify({}, ['--only', 'LIST-01', '--reporter', 'summary', '--reporter', 'har', '--json']));
    expect(readdirSync(run.reportDir).sort()).toEqual(['exchanges.har', 'manifest.json', 'summary.md']);
    const printed = parseJson(run.stdout) as unknown as { verdict: string; rules: Array<{ id: string; status: string }> };
    expect(printed.rules.find((rule) => rule.id === 'LIST-01')?.status).toBe('passed');
    expect(run.code).toBe(0);
  }, SLOT_WAIT_MS);

  it('an unknown reporter is a usage error that names the known ones, before anything runs', async () => {
    const run = await runCli(['--reporter', 'html,pdf']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--reporter takes html, summary, har, junit, json, badge (comma-separated), not "pdf"');
    expect(readdirSync(run.reportDir)).toEqual([]);
  });
});
