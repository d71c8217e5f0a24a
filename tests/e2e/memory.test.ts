// Memory in proportion to what a run keeps, not to what it is sent. A conforming server may add a field of any
// size to every answer (extra fields are a freedom the spec leaves); one that adds 900 KB to each once took a
// full run 6.7 GB and three minutes. The budget: a full run against it peaks under 512 MB of resident memory, and
// completes with every JavaScript heap of the process held to 128 MB, which no run that kept what it was sent could.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { isJsonObject, parseJson, stringifyJson, type Json } from '../../helpers/json.js';
import { packagePath } from '../../helpers/package-root.js';
import type { Overrides } from '../../server/seams.js';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import { reportIn } from '../support/cli.js';
import { FUZZING_SAMPLE, harnessPlan, withChildSlot } from '../support/harness.js';
import { scratchDir } from '../support/scratch.js';

/** The budget of a full run's resident memory, whatever the target sends. */
const RSS_BUDGET_BYTES = 512 * 1024 * 1024;
/** The JavaScript heap each thread of the run is held to in the second run: what a run keeps must fit. */
const HEAP_BUDGET_MB = 128;

/** A key for each run: the two go side by side, and on one key they would share, and wait for, one window. */
const KEYS = { rss: 'memory-key-8c2f4e1a', heap: 'memory-key-3b7d90c5' } as const;
const PADDING = 'x'.repeat(900 * 1024);

/**
 * Every JSON answer carries 900 KB more: an object a member `padding`, a page its first pet's (a page of 100 pets
 * each so padded would pass the 1 MiB body cap, which is the cap's business, not this test's).
 */
const padded: Overrides = {
  outgoing: (request, reply, payload, reference) => {
    const sent = reference(request, reply, payload);
    if (!(typeof sent === 'string' || Buffer.isBuffer(sent)) || !String(reply.getHeader('content-type') ?? '').includes('json')) return sent;
    let body: Json;
    try {
      body = parseJson(sent.toString());
    } catch {
      return sent;
    }
    if (Array.isArray(body) && isJsonObject(body[0])) body[0] = { ...body[0], padding: PADDING };
    else if (isJsonObject(body)) body = { ...body, padding: PADDING };
    else return sent;
    return stringifyJson(body);
  },
};

let server: RunningReferenceServer;

beforeAll(async () => {
  // The harness's plan and fuzzing sample: some 400 answers of 900 KB, 350 MB that a run keeping them could not hold
  // in 128 MB of heap, where the Business plan's 429 probe made it 1,000 (and 55 s of CPU for the two runs).
  server = await startReferenceServer({ apiKeys: Object.values(KEYS), overrides: [padded], ...harnessPlan(undefined, undefined, true) });
});

afterAll(async () => {
  await server.close();
});

/** A full run of the CLI in a child, with `nodeFlags`; its peak resident memory as the process saw it at exit. */
function fullRun(key: string, nodeFlags: readonly string[]): Promise<{ code: number; maxRssBytes: number; stderr: string; reportDir: string }> {
  const reportDir = scratchDir('petstore-memory-');
  // Read as the process exits: the high-water mark of every thread of it.
  const preload = 'data:text/javascript,import fs from "node:fs"; process.on("exit", () => fs.writeSync(2, `maxRSS ${process.resourceUsage().maxRSS}\\n`));';
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...nodeFlags, '--import', preload, packagePath('dist', 'cli', 'main.js'), '--base-url', server.url, '--report-dir', reportDir, ...FUZZING_SAMPLE], {
      env: { PATH: process.env.PATH ?? '', PETSTORE_API_KEY: key }, timeout: 170_000, maxBuffer: 64 * 1024 * 1024,
    }, (error, _stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      const kilobytes = Number(/maxRSS (\d+)/.exec(stderr)?.[1]);
      resolve({ code: error ? (error.code as number) : 0, maxRssBytes: kilobytes * 1024, stderr, reportDir });
    });
  });
}

// Two runs side by side: each waits on the server as much as it computes.
describe.concurrent('a conforming server that adds 900 KB to every answer', () => {
  it(`is certified in a full run that peaks under ${RSS_BUDGET_BYTES / 1024 / 1024} MB`, async ({ expect }) => {
    const run = await withChildSlot(() => fullRun(KEYS.rss, []));
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(reportIn(run.reportDir)?.verdict).toBe('certified');
    expect(run.maxRssBytes).toBeGreaterThan(0);
    expect(run.maxRssBytes).toBeLessThan(RSS_BUDGET_BYTES);
  }, 180_000);

  it(`is certified with every JavaScript heap held to ${HEAP_BUDGET_MB} MB: what a run keeps of an answer is bounded`, async ({ expect }) => {
    const run = await withChildSlot(() => fullRun(KEYS.heap, [`--max-old-space-size=${HEAP_BUDGET_MB}`]));
    expect(run.stderr).not.toContain('heap out of memory');
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(reportIn(run.reportDir)?.verdict).toBe('certified');
    // A record keeps 16 KiB of a body and 4 KiB of a string: the recording of 400 answers of 900 KB is some 10 MB, not 350.
    expect(statSync(join(run.reportDir, 'exchanges.har')).size).toBeLessThan(64 * 1024 * 1024);
  }, 180_000);
});
