// A certification run inside the test process: the CLI's own argument parsing and run, without the
// start-up of a child (node and the CLI's imports), about a third of what a harness run costs. For
// the mutation harness and the gallery, whose point is each run's verdict; the tests whose point is the
// CLI itself (exit codes, output, key leaks) keep runCli.
import { join } from 'node:path';
import { parseArguments, possibleKeys } from '../../cli/options.js';
import { failedInvocation } from '../../cli/failure.js';
import { resolveRunOptions } from '../../cli/resolve-options.js';
import { certify as certifyRun } from '../../cli/run.js';
import { TOOL } from '../../cli/tool.js';
import { proxyRouteFor } from '../../helpers/http/proxy.js';
import { Redactor } from '../../helpers/http/redact.js';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import { startFront } from './fronts.js';
import { frontOf, withSwitches, type SwitchedServerOptions } from './switches.js';
import { reportIn, runCli, type CliRun } from './cli.js';
import { scratchDir } from './scratch.js';

/** As runCli's, a run that takes longer is cut off. */
const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * As certify, the run in this process; the report is read back from report.json as a user would read it.
 * `whileUp` is given the run while its server still answers (to run the curl lines it printed, say).
 */
export async function certifyInProcess(serverOptions: SwitchedServerOptions, args: readonly string[] = [], options: { timeoutMs?: number; whileUp?: (run: CliRun, server: RunningReferenceServer) => Promise<void> } = {}): Promise<CliRun & { server: RunningReferenceServer }> {
  const server = await startReferenceServer(withSwitches({ apiKeys: ['test-key-4f9a1c'], ...serverOptions }));
  // A defect below the seams stands the server behind a front of its kind, which the run then talks to.
  const kind = frontOf(serverOptions);
  const front = kind ? await startFront(kind, Number(new URL(server.url).port)) : undefined;
  const url = front ? `http://127.0.0.1:${front.port}${new URL(server.url).pathname}` : server.url;
  try {
    const run = await runInProcess(['--base-url', url, ...args], server.apiKey, { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    await options.whileUp?.(run, server);
    return { ...run, server };
  } finally {
    await front?.close();
    await server.close();
  }
}

/**
 * As runCli with the key in the environment, the run in this process. An invocation that throws (bad usage,
 * an unreachable target, a bug of ours) ends as the CLI ends it: the same exit code and stderr.
 */
export async function runInProcess(args: readonly string[], apiKey: string, options: { timeoutMs: number }): Promise<CliRun> {
  const reportDir = scratchDir('petstore-run-');
  const output: string[] = [];
  const ended = (error: unknown): CliRun => {
    const failure = failedInvocation(error, false, new Redactor(possibleKeys(args, { PETSTORE_API_KEY: apiKey })));
    return { code: failure.exitCode, stdout: output.join(''), stderr: failure.stderr, reportDir, report: reportIn(reportDir) };
  };
  let parsed: ReturnType<typeof parseArguments>;
  try {
    parsed = parseArguments([...args, '--report-dir', reportDir], TOOL.version, (text) => output.push(text), {});
  } catch (error) {
    return ended(error);
  }
  if (parsed.action !== 'run') throw new Error(`not a certification: ${args.join(' ')}`);
  try {
    const hooks = { signal: AbortSignal.timeout(options.timeoutMs), print: (line: string) => output.push(`${line}\n`) };
    const resolved = resolveRunOptions({ ...parsed.options, ...hooks }, { PETSTORE_API_KEY: apiKey });
    // A child gets no proxy variables; this process's would send loopback traffic through a proxy.
    if (resolved.baseUrl !== undefined && proxyRouteFor(resolved.baseUrl)) return await runCli(args, { env: { PETSTORE_API_KEY: apiKey }, reportDir, timeoutMs: options.timeoutMs });
    const result = await certifyRun(resolved);
    return { code: result.exitCode, stdout: output.join(''), stderr: '', reportDir, report: reportIn(reportDir) };
  } catch (error) {
    return ended(error);
  }
}
