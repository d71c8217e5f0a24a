#!/usr/bin/env node
import { activeRules } from '../helpers/spec/catalog.js';
import { Redactor } from '../helpers/http/redact.js';
import { stringifyJson } from '../helpers/json.js';
import { parseArguments, possibleKeys } from './options.js';
import { failedInvocation } from './failure.js';
import { resolveRunOptions, UsageError } from './resolve-options.js';
import { TOOL } from './tool.js';
import { cancelledExitCode } from './policy/verdict.js';
import { jsonText } from './reports/safe-text.js';
import { paint, wantsColour } from './colour.js';

// `petstore-conformance … | head` closes stdout early: that is the reader's choice, not a crash.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// Before parsing: a usage error that echoes an argument must not print the key it may be.
const invocationSecrets = new Redactor(possibleKeys(process.argv.slice(2), process.env));

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'verify') return verify(argv.slice(1));
  const parsed = parseArguments(argv, TOOL.version, (text) => process.stdout.write(text));
  if (parsed.action === 'exit') return parsed.code;
  if (parsed.action === 'list') {
    // --json: the catalog as data (each rule's ID, level, area, operations, summary, section and the spec's words), for a script.
    if (parsed.json) process.stdout.write(`${stringifyJson(activeRules(), 2)}\n`);
    else for (const rule of activeRules()) process.stdout.write(`${rule.id.padEnd(10)} ${rule.level.padEnd(6)} ${rule.area.padEnd(10)} ${rule.summary}\n`);
    return 0;
  }
  const json = parsed.json;
  // With --json, stdout carries report.json alone; the person still sees progress on stderr.
  const out = json ? process.stderr : process.stdout;
  // On a terminal, a long phase rewrites one status line; every printed line first clears it.
  let statusShown = false;
  const clearStatus = () => {
    if (statusShown) out.write('\r\x1b[K');
    statusShown = false;
  };
  const status = out.isTTY
    ? (line: string | undefined) => {
      clearStatus();
      if (line !== undefined) out.write(invocationSecrets.redact(line.slice(0, Math.max(20, (out.columns || 80) - 1))));
      statusShown = line !== undefined;
    }
    : undefined;
  const colour = wantsColour(out, process.env, parsed.color);
  const print = (line: string) => {
    clearStatus();
    out.write(`${colour ? line.split('\n').map(paint).join('\n') : line}\n`);
  };
  const cancellation = new AbortController();
  // The hooks go through the one resolver with the rest, as a program's do through runConformance.
  // A terminal says how wide it is; a CI log does not, and the run's default width stands.
  const width = out.isTTY && out.columns ? Math.max(40, out.columns - 1) : undefined;
  const options = resolveRunOptions({ ...parsed.options, status, print, signal: cancellation.signal, ...(width ? { width } : {}) }, process.env);
  // Loaded only for a run: --help, --version, --list and a usage error answer without the engine, the HTTP
  // client, the reporters and the reference server (0.17 s of CPU for --version, against 0.4 s with them).
  const { certify } = await import('./run.js');
  cancelOnSignals(cancellation, out);
  const result = await certify(options);
  if (json) process.stdout.write(`${jsonText(result.redactor.redact(stringifyJson(result.report, 2)))}\n`);
  return result.exitCode;
}

const VERIFY_USAGE = `Usage: petstore-conformance verify <report-dir>

Checks a report folder a reader did not produce: every SHA-256 of its manifest.json, then re-judges the
recorded exchanges (exchanges.har) offline, the recorded answers standing in for the target, and compares
every rule's status and the verdict with report.json. Nothing is sent.

Exit codes:
  0  every hash matches and the verdict follows from the recorded exchanges (a cancelled run: from
     the rules it finished; a run of an older suite version: the rules whose status changed are listed)
  1  a file was altered, or the verdict does not follow from the evidence (the first difference is named)
  2  bad usage, or a folder verify refuses to read: no such folder, no manifest.json in it, a file
     that is not a regular file directly in the folder (a symlink, a path that leaves it), a file
     larger than verify reads, recorded options the CLI itself would refuse, or a suite version
     newer than this one (or no version at all)
`;

/** `petstore-conformance verify <report-dir>`: the one-line statement on stdout, or the first difference on stderr. */
async function verify(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(VERIFY_USAGE);
    return 0;
  }
  if (args.length !== 1 || args[0]!.startsWith('-')) throw new UsageError('verify takes one argument, the report folder: petstore-conformance verify <report-dir>');
  const { NotAReportFolder, verifyReportFolder } = await import('./verify.js');
  try {
    const verification = await verifyReportFolder(args[0]!);
    for (const change of verification.changed) process.stdout.write(`  ${change}\n`);
    (verification.ok ? process.stdout : process.stderr).write(`${verification.line}\n`);
    return verification.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof NotAReportFolder) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * A cancelled CI job (SIGTERM) or Ctrl-C (SIGINT): the first stops the run, which still writes every
 * report for what it judged and exits 143 or 130; a second exits at once.
 */
function cancelOnSignals(controller: AbortController, out: NodeJS.WriteStream): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (controller.signal.aborted) process.exit(cancelledExitCode(signal));
      out.write(`\n${signal}: stopping; the reports of what was judged are being written (send it again to exit at once)\n`);
      controller.abort(signal);
    });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const failure = failedInvocation(error, Boolean(process.env.DEBUG), invocationSecrets);
    process.stderr.write(failure.stderr);
    process.exitCode = failure.exitCode;
  },
);
