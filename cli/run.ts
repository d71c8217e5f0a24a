import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { activeRules, deselectionReason, type Rule } from '../helpers/spec/catalog.js';
import { SPEC_VERSION } from '../helpers/spec/facts.js';
import type { Exchange } from '../helpers/http/exchange.js';
import { proxyPassword, proxyRouteFor } from '../helpers/http/proxy.js';
import { isShortSecret, Redactor } from '../helpers/http/redact.js';
import { toEvidence } from '../helpers/judge/outcome.js';
import type { RunConfig } from '../helpers/run-config.js';
import { Collector } from './collector.js';
import { assertReachable } from './preflight.js';
import { countsOf, distinctCreated, requestsByArea, ruleResults, withoutUnjudged, type Report } from './report.js';
import { baselineLines, failingRules, formatBaseline, writeBaselineFile } from './reports/baseline.js';
import { writeReportFiles } from './reports/write.js';
import type { RunOptions } from './resolve-options.js';
import { ReportFolderLock } from './reports/report-folder.js';
import type { RunningReferenceServer } from '../server/reference-server.js';
import { runSuites } from './suite-engine.js';
import { TOOL } from './tool.js';
import { RunChannel } from './run-channel.js';
import { LogRouter, progressLine, summaryText } from './terminal.js';
import { terminalText } from './safe-text.js';
import { judgeRun } from './verdict.js';

export interface RunResult {
  report: Report;
  exitCode: number;
  reportDir: string;
  /** On replay: the requests the recording held no answer for (method and URL), in the order sent. */
  unmatched?: string[];
  /** The run's redactor (its key, its proxy's password): what the caller prints of the run passes through it. */
  redactor: Redactor;
}

/**
 * Certifies one target: the whole run, from the reference server (if needed) to the reports. Takes options
 * resolveRunOptions has checked, wherever they came from: argv, the programmatic API, or a report folder's
 * record of them (`verify`).
 */
export async function certify(options: RunOptions): Promise<RunResult> {
  // The run's own: it redacts this run's secrets, and nothing of a run before it in the same process.
  const redactor = new Redactor([options.apiKey]);
  // Every line passes through the run's redactor, then is made inert for a terminal or a CI log: it may hold a target's bytes.
  const print = (line: string) => options.print?.(terminalText(redactor.redact(line)));
  const status = options.status && ((line: string | undefined) => options.status!(line === undefined ? undefined : terminalText(redactor.redact(line))));
  const replay = options.replay;
  const startedAt = replay ? new Date(replay.startedAt) : new Date();
  const runId = replay?.runId ?? `${startedAt.toISOString().replace(/[-:]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`;
  const reportDir = resolve(options.reportDir);
  mkdirSync(reportDir, { recursive: true });

  const embedded = options.baseUrl === undefined && !replay
    ? await startBundledServer({ apiKeys: [`ref-${randomBytes(12).toString('hex')}`] })
    : undefined;
  const baseUrl = replay?.target.baseUrl ?? embedded?.url ?? options.baseUrl!;
  // On replay no key is sent anywhere; a stand-in is redacted to the same placeholder the recording shows.
  const apiKey = replay ? `replay-${randomBytes(12).toString('hex')}` : embedded?.apiKey ?? options.apiKey ?? '';
  const wasEmbedded = replay ? replay.target.embedded : embedded !== undefined;
  // The key of a target named by the options is known already; these two are born here.
  if (embedded || replay) redactor.add(apiKey);
  if (replay) print(`Re-judging the exchanges recorded from ${baseUrl} (nothing is sent)`);
  else if (embedded) print(`No --base-url given: certifying the bundled reference server at ${baseUrl}`);
  else print(`Certifying ${baseUrl}`);
  if (isShortSecret(apiKey)) {
    print(`Note: the API key is only ${apiKey.length} character${apiKey.length === 1 ? '' : 's'} long. It is masked in headers and wherever it stands alone (a JSON value, a query value); text that merely contains those letters is left as it is, so a body that glues the key to other text would show it.`);
  }

  // The bundled server lives in this process on loopback: a proxy of the environment is never meant for it.
  const proxy = embedded || replay ? undefined : proxyRouteFor(baseUrl);
  const proxySecret = proxyPassword(proxy);
  if (proxySecret) redactor.add(proxySecret);
  if (proxy) print(`Through the proxy ${proxy.shown} (HTTP_PROXY/HTTPS_PROXY; NO_PROXY does not exempt this target)`);
  // The run's one channel with its suite worker: listening before the worker starts, the cancellation sent on it whenever it comes.
  const channel = new RunChannel(runId);
  const onCancel = () => channel.cancel(String(options.signal?.reason ?? 'cancelled'));
  if (options.signal?.aborted) onCancel();
  else options.signal?.addEventListener('abort', onCancel, { once: true });
  // Held until the reports are written: a second run on this folder is refused rather than mixed with this one.
  let folderLock: ReportFolderLock | undefined;
  try {
    folderLock = ReportFolderLock.take(reportDir, runId);
    if (!replay) await assertReachable(baseUrl, options.timeoutMs, options.caFile, proxy);
    const { baseUrl: _url, apiKey: _key, reportDir: _dir, strict: _strict, requireComplete: _requireComplete, reporters: _reporters, baseline: _baseline, writeBaseline: _write, today: chosenToday, print: _print, signal: _signal, status: _status, replay: _replay, ...settings } = options;
    const today = chosenToday ?? new Date().toISOString().slice(0, 10);
    const config: RunConfig = {
      ...settings,
      baseUrl, apiKey, runId, channel: channel.name,
      startedAtMs: startedAt.getTime(),
      embedded: wasEmbedded,
      today,
      ...(proxy ? { proxy } : {}),
      ...(replay ? { replayHarPath: resolve(replay.harPath) } : {}),
    };
    const log = new LogRouter(print, status);
    const collector = new Collector((result) => {
      log.endPhase();
      // Once the target is found unjudgeable every check left stops at once: the summary says why, once.
      if (!log.stopped) print(progressLine(result));
    }, (line) => log.line(line));
    const deselected = (rule: Rule) => deselectionReason(rule, options);
    // Only the suite files of selected areas load: a run of one area costs that area alone.
    const areas = [...new Set(activeRules().filter((rule) => !deselected(rule)).map((rule) => rule.area))];
    await runSuites(config, collector, areas);
    // vitest's report of the checks has come: so have, or soon will, the messages each check counted before it ended.
    if (!await channel.received(collector.runMessages, CHANNEL_DRAIN_MS)) {
      collector.suiteErrors.push(`the suite worker sent ${collector.runMessages} messages on the run's channel, and ${channel.count} came within ${CHANNEL_DRAIN_MS / 1000} s`);
    }

    log.endPhase();
    const { exchanges } = channel;
    const diagnosis = diagnosisWithEvidence(channel, exchanges);
    const judged = ruleResults(activeRules(), collector.results, collector.suiteErrors, deselected);
    const rules = diagnosis ? withoutUnjudged(judged, diagnosis) : judged;
    const created = distinctCreated(rules.flatMap((rule) => rule.created));
    const cancelledBy = options.signal?.aborted ? String(options.signal.reason ?? 'cancelled') : undefined;
    const finishedAt = new Date();
    const { verdict, exitCode, baseline } = judgeRun({
      rules, strict: options.strict, suiteErrors: collector.suiteErrors, diagnosis, cancelledBy, baseline: options.baseline, requireComplete: options.requireComplete,
    });
    const report: Report = {
      tool: { name: TOOL.name, version: TOOL.version },
      specVersion: SPEC_VERSION,
      runId,
      target: replay ? replay.target : { baseUrl, embedded: wasEmbedded, ...(proxy ? { proxy: proxy.shown } : {}) },
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      options: reportedOptions(options),
      verdict,
      exitCode,
      ...(cancelledBy ? { cancelled: cancelledBy } : {}),
      ...(diagnosis ? { diagnosis } : {}),
      rateLimitWaits: channel.waits ?? log.waits,
      counts: countsOf(rules),
      requests: { total: exchanges.length, byArea: requestsByArea(rules) },
      created,
      suiteErrors: collector.suiteErrors,
      ...(baseline ? { baseline } : {}),
      rules,
    };
    writeReportFiles(report, exchanges, reportDir, options.reporters, redactor, today);
    const unmatched = replay ? [...channel.unmatched] : undefined;
    // A run that judged nothing knows no failures: an empty baseline written from it would tolerate nothing later.
    const writeBaseline = diagnosis ? undefined : options.writeBaseline;
    if (writeBaseline) writeBaselineFile(writeBaseline, redactor.redact(formatBaseline(report, options.baseline)));
    print(summaryText(report));
    if (baseline) print(`\n${baselineLines(baseline).join('\n')}`);
    if (writeBaseline) print(`\nBaseline written to ${writeBaseline}: ${failingRules(report).length} rule(s) that fail this run`);
    else if (options.writeBaseline) print(`\nNo baseline written to ${options.writeBaseline}: this run judged no rule`);
    print(`\nReports: ${reportDir}`);
    return { report, exitCode: report.exitCode, reportDir, redactor, ...(unmatched ? { unmatched } : {}) };
  } finally {
    options.signal?.removeEventListener('abort', onCancel);
    channel.close();
    folderLock?.release();
    await embedded?.close();
  }
}

/** Longest the CLI waits, after vitest reported every check, for the channel's messages those checks counted: they are on their way already. */
const CHANNEL_DRAIN_MS = 10_000;

/** The client's diagnosis of a target that cannot be judged, with the exchange that showed it. */
function diagnosisWithEvidence(channel: RunChannel, exchanges: readonly Exchange[]): Report['diagnosis'] {
  const { diagnosis } = channel;
  if (!diagnosis) return undefined;
  const exchange = exchanges.find((candidate) => candidate.seq === diagnosis.seq);
  return { ...diagnosis, ...(exchange ? { exchange: toEvidence(exchange) } : {}) };
}

function reportedOptions(options: RunOptions): Record<string, unknown> {
  const { print: _print, signal: _signal, status: _status, replay: _replay, apiKey, baseline, ...rest } = options;
  return { ...rest, apiKey: apiKey ? '[redacted]' : undefined, baseline: baseline?.file };
}

/** The bundled reference server, loaded only when a run certifies it: a run against --base-url never needs its web framework. */
async function startBundledServer(options: { apiKeys: string[] }): Promise<RunningReferenceServer> {
  const { startReferenceServer } = await import('../server/reference-server.js');
  return startReferenceServer(options);
}
