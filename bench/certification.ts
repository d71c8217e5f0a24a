// npm run bench: what a certification costs, in wall time and in requests, on loopback and against a target
// 100 ms and 250 ms away. Prints a table, writes bench-results/bench.json.
// Figures, not assertions: the machine's load decides the numbers, so nothing here fails on a slow run.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { Report } from '../cli/reports/report.js';
import { DEFAULT_OPTIONS } from '../cli/resolve-options.js';
import { packagePath } from '../helpers/package-root.js';
import { startReferenceServer, type ReferenceServerOptions } from '../server/reference-server.js';
import { runCli } from '../tests/support/cli.js';

const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 5);
const KEY = 'bench-key-7d1e';
// Round trips of a target away from loopback (staging sits 50–300 ms away): BENCH_LATENCIES_MS="100,250", "" for none.
const LATENCIES_MS = (process.env.BENCH_LATENCIES_MS ?? '100,250').split(',').filter((value) => value.trim() !== '').map(Number);
// The run's default --concurrency: the floor of a latency-bound run divides by it.
const CONCURRENCY = DEFAULT_OPTIONS.concurrency;
// The most --concurrency allows, which no check fills: the run that measures the longest chain holds no request back.
const UNBOUNDED_CONCURRENCY = 64;

interface Timed {
  wallMs: number;
  report: Report;
  reportDir: string;
}

/** One full certification of a fresh reference server, timed from outside as a user would feel it. */
async function certifyOnce(serverOptions: ReferenceServerOptions = {}, args: string[] = []): Promise<Timed> {
  const server = await startReferenceServer({ apiKeys: [KEY], ...serverOptions });
  try {
    const started = performance.now();
    const run = await runCli(['--base-url', server.url, ...args], { env: { PETSTORE_API_KEY: KEY }, timeoutMs: 15 * 60_000 });
    const wallMs = performance.now() - started;
    if (!run.report) throw new Error(`the run wrote no report (exit ${run.code}): ${run.stderr.slice(0, 500)}`);
    return { wallMs, report: run.report, reportDir: run.reportDir };
  } finally {
    await server.close();
  }
}

interface HarEntry {
  request: { method: string; url: string; headers: Array<{ name: string; value: string }>; postData?: { text: string } };
}

/**
 * The floor: the same requests, back to back, with a bare undici client against a fresh server.
 * The run's wall time over this is what the suite itself costs (start-up, pacing, checks, reports).
 */
async function replayFloor(reportDir: string): Promise<number> {
  const har = JSON.parse(readFileSync(join(reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: HarEntry[] } };
  const server = await startReferenceServer({ apiKeys: [KEY] });
  const agent = new Agent({ connections: 4 });
  try {
    const origin = new URL(server.url).origin;
    const started = performance.now();
    for (const entry of har.log.entries) {
      const url = new URL(entry.request.url);
      const headers: Record<string, string> = {};
      for (const { name, value } of entry.request.headers) {
        // The framing is undici's to choose (a chunked body was recorded with the header it went with).
        if (['transfer-encoding', 'content-length', 'connection'].includes(name.toLowerCase())) continue;
        headers[name.toLowerCase()] = value.replace('$PETSTORE_API_KEY', KEY);
      }
      const response = await request(`${origin}${url.pathname}${url.search}`, {
        method: entry.request.method as 'GET', headers, body: entry.request.postData?.text, dispatcher: agent,
      });
      await response.body.text();
    }
    return performance.now() - started;
  } finally {
    await agent.close();
    await server.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function checkedRules(report: Report): number {
  return report.rules.filter((rule) => rule.status === 'passed' || rule.status === 'failed').length;
}

/**
 * The longest chain of requests that had to go one after another: a request sent once k answers had come (its
 * `_sentAfter`) is one step deeper than the deepest of those k. Measured on a run whose --concurrency never holds a
 * request back, the chain is what the checks themselves wait for, each answer before the request that needs it.
 */
function longestChain(reportDir: string): number {
  const har = JSON.parse(readFileSync(join(reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: Array<{ _seq: number; _sentAfter?: number }> } };
  const entries = [...har.log.entries].sort((a, b) => a._seq - b._seq);
  // deepest[k]: the deepest chain among the first k answers, in the order they came.
  const deepest = [0];
  for (const entry of entries) {
    const depth = 1 + deepest[Math.min(entry._sentAfter ?? 0, deepest.length - 1)]!;
    deepest.push(Math.max(deepest.at(-1)!, depth));
  }
  return deepest.at(-1)!;
}

async function main(): Promise<void> {
  // Cold: the first run of this process tree, with nothing of the CLI in the OS's file cache beyond what the build left.
  const cold = await certifyOnce();
  const warm: Timed[] = [];
  for (let i = 0; i < WARM_RUNS; i++) warm.push(await certifyOnce());
  const typical = warm[Math.floor(warm.length / 2)]!;
  const floorMs = await replayFloor(typical.reportDir);
  // Without the 429 probe, whose length is the window it exhausts: what every other check costs on loopback.
  const withoutProbe: Timed[] = [];
  for (let i = 0; i < WARM_RUNS; i++) withoutProbe.push(await certifyOnce({}, ['--rate-limit-budget', '0']));

  // Fuzz throughput: a larger run of the fuzzing area alone, cases over the run's own duration (its checks run
  // together, so the sum of their durations would count the same seconds twice).
  const fuzz = await certifyOnce({ rateLimit: { limit: 100_000, windowMs: 60_000 } }, ['--only', 'fuzzing', '--fuzz-runs', '500', '--fuzz-valid-runs', '50']);
  const fuzzRules = fuzz.report.rules.filter((rule) => rule.area === 'fuzzing');
  const fuzzCases = fuzzRules.reduce((sum, rule) => sum + rule.requests, 0);
  const fuzzSeconds = fuzz.report.durationMs / 1000;

  // Rate-limited: the Free plan's 60 requests a minute, scaled to 60 per 6 s so the bench stays short;
  // the floor is what that plan allows for the requests the run needed.
  const windowMs = Number(process.env.BENCH_FREE_WINDOW_MS ?? 6_000);
  const limited = await certifyOnce({ rateLimit: { limit: 60, windowMs } });
  const limitedFloorMs = (limited.report.requests.total / 60) * windowMs;
  // The first window is spent at once, so a perfectly paced run can beat requests / rate by one window.
  const limitedStrictFloorMs = (Math.max(0, limited.report.requests.total - 60) / 60) * windowMs;

  // Latency-bound: every response held for a round trip to a target far away, the 429 probe left out (it
  // only exhausts a window). The floor is the requests spread over --concurrency, each one round trip long.
  // Two floors: the requests spread over --concurrency, and the longest chain of them that must go in turn (from a
  // run whose concurrency holds nothing back). The run can beat neither; the larger is the one it is held to.
  const latencyBound = [];
  for (const latencyMs of LATENCIES_MS) {
    const run = await certifyOnce({ latencyMs }, ['--rate-limit-budget', '0']);
    const unbounded = await certifyOnce({ latencyMs }, ['--rate-limit-budget', '0', '--concurrency', String(UNBOUNDED_CONCURRENCY)]);
    const requests = run.report.requests.total;
    const floorMs = (requests * latencyMs) / CONCURRENCY;
    const chain = longestChain(unbounded.reportDir);
    const chainFloorMs = chain * latencyMs;
    latencyBound.push({
      latencyMs,
      verdict: run.report.verdict,
      requests,
      wallMs: Math.round(run.wallMs),
      floorMs: Math.round(floorMs),
      chain,
      chainFloorMs,
      ratioToFloor: Number((run.wallMs / Math.max(floorMs, chainFloorMs)).toFixed(2)),
      oneAtATimeMs: requests * latencyMs,
    });
  }

  const figures = {
    machine: { node: process.version, cpus: (await import('node:os')).cpus().length },
    fullRun: {
      coldMs: Math.round(cold.wallMs),
      warmMedianMs: Math.round(median(warm.map((run) => run.wallMs))),
      warmRunsMs: warm.map((run) => Math.round(run.wallMs)),
      withoutProbeMedianMs: Math.round(median(withoutProbe.map((run) => run.wallMs))),
      withoutProbeRunsMs: withoutProbe.map((run) => Math.round(run.wallMs)),
      withoutProbeRequests: withoutProbe[0]!.report.requests.total,
      verdict: typical.report.verdict,
      requests: typical.report.requests.total,
      requestsByArea: typical.report.requests.byArea,
      rulesChecked: checkedRules(typical.report),
      requestsPerRuleChecked: Number((typical.report.requests.total / checkedRules(typical.report)).toFixed(1)),
      replayFloorMs: Math.round(floorMs),
      overheadRatio: Number((median(warm.map((run) => run.wallMs)) / floorMs).toFixed(1)),
    },
    fuzz: { cases: fuzzCases, seconds: Number(fuzzSeconds.toFixed(2)), casesPerSecond: Math.round(fuzzCases / fuzzSeconds) },
    rateLimited: {
      plan: `60 per ${windowMs / 1000} s (the Free plan, scaled ${60_000 / windowMs}×)`,
      verdict: limited.report.verdict,
      requests: limited.report.requests.total,
      wallMs: Math.round(limited.wallMs),
      planFloorMs: Math.round(limitedFloorMs),
      ratioToFloor: Number((limited.wallMs / limitedFloorMs).toFixed(2)),
      floorAfterFirstWindowMs: Math.round(limitedStrictFloorMs),
      ratioToFloorAfterFirstWindow: Number((limited.wallMs / limitedStrictFloorMs).toFixed(2)),
    },
    latencyBound,
  };

  const rows: Array<[string, string]> = [
    ['full run, cold', `${(figures.fullRun.coldMs / 1000).toFixed(2)} s`],
    [`full run, warm (median of ${WARM_RUNS})`, `${(figures.fullRun.warmMedianMs / 1000).toFixed(2)} s`],
    [`full run without the 429 probe (median of ${WARM_RUNS})`, `${(figures.fullRun.withoutProbeMedianMs / 1000).toFixed(2)} s for ${figures.fullRun.withoutProbeRequests} requests`],
    ['verdict', figures.fullRun.verdict],
    ['requests per full run', String(figures.fullRun.requests)],
    ...Object.entries(figures.fullRun.requestsByArea).map(([area, count]): [string, string] => [`  ${area}`, String(count)]),
    ['rules checked (passed or failed)', String(figures.fullRun.rulesChecked)],
    ['requests per rule checked', String(figures.fullRun.requestsPerRuleChecked)],
    ['replay floor (bare undici, same requests)', `${(figures.fullRun.replayFloorMs / 1000).toFixed(2)} s`],
    ['overhead ratio (warm / floor)', `${figures.fullRun.overheadRatio}×`],
    ['fuzz throughput', `${figures.fuzz.casesPerSecond} cases/s (${figures.fuzz.cases} cases in ${figures.fuzz.seconds} s)`],
    [`rate-limited run (${figures.rateLimited.plan})`, `${(figures.rateLimited.wallMs / 1000).toFixed(1)} s for ${figures.rateLimited.requests} requests, ${figures.rateLimited.verdict}`],
    ['  plan floor (requests / allowed rate)', `${(figures.rateLimited.planFloorMs / 1000).toFixed(1)} s`],
    ['  ratio to the floor', `${figures.rateLimited.ratioToFloor}×`],
    ['  floor after the first window (spent at once)', `${(figures.rateLimited.floorAfterFirstWindowMs / 1000).toFixed(1)} s, ratio ${figures.rateLimited.ratioToFloorAfterFirstWindow}×`],
    ...latencyBound.flatMap((run): Array<[string, string]> => [
      [`${run.latencyMs} ms a response, without the probe`, `${(run.wallMs / 1000).toFixed(1)} s for ${run.requests} requests, ${run.verdict}`],
      [`  floor (requests × ${run.latencyMs} ms ÷ ${CONCURRENCY})`, `${(run.floorMs / 1000).toFixed(1)} s (one at a time: ${(run.oneAtATimeMs / 1000).toFixed(1)} s)`],
      [`  dependency floor (longest chain ${run.chain} × ${run.latencyMs} ms)`, `${(run.chainFloorMs / 1000).toFixed(1)} s`],
      ['  ratio to the larger floor', `${run.ratioToFloor}×`],
    ]),
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n'));
  // Beside the report folder, not in it: a run refuses a folder that holds files it did not write.
  const out = packagePath('bench-results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'bench.json'), `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`\nwritten: ${join(out, 'bench.json')}`);
}

await main();
