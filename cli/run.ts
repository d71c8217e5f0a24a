import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { activeRules, deselectionReason, type Rule } from '../helpers/spec/catalog.js';
import { SPEC_VERSION } from '../helpers/spec/facts.js';
import type { Exchange } from '../helpers/http/exchange.js';
import { proxyPassword, proxyRouteFor } from '../helpers/http/proxy.js';
import { isShortSecret, Redactor } from '../helpers/http/redact.js';
import { addGatewaySecrets } from '../helpers/http/extra-headers.js';
import { readClientCertificate } from '../helpers/bounded-file.js';
import { toEvidence } from '../helpers/judge/outcome.js';
import type { CheckSettings, RunConfig } from '../helpers/run-config.js';
import { assertReachable } from './preflight.js';
import { countsOf, distinctCreated, requestsByArea, ruleResults, withoutUnjudged, type Report } from './reports/report.js';
import { baselineLines, failingRules, formatBaseline, writeBaselineFile } from './policy/baseline.js';
import { writeReportFiles } from './reports/write.js';
import { prepareReportFolder, type Detail, type RunOptions } from './resolve-options.js';
import { ReportFolderLock } from './reports/report-folder.js';
import type { RunningReferenceServer } from '../server/reference-server.js';
import { runSuites } from '../helpers/engine/engine.js';
import type { RunEvents } from '../helpers/engine/events.js';
import { planLine, quotaLine, readOnlyPlan, type ReadOnlyPlan } from './read-only-plan.js';
import { Heartbeat } from './heartbeat.js';
import { RunContext } from '../helpers/run-context.js';
import { diagnoseRefusedKeyOverRun, wantsListingForRefusedKey, type Diagnosis } from '../helpers/http/diagnosis.js';
import { SUITES } from '../suites/index.js';
import { RunRecord } from './run-record.js';
import { TOOL } from './tool.js';
import { compactSummaryText, LogRouter, progressLine, statusLine, summaryText, verdictLine } from './terminal.js';
import type { CheckResult } from '../helpers/engine/events.js';
import { isFailing } from '../helpers/judge/outcome-meaning.js';
import { getRule } from '../helpers/spec/catalog.js';
import { terminalText } from './reports/safe-text.js';
import { judgeRun } from './policy/verdict.js';

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
  const detail = options.detail ?? 'compact';
  // --cert and --cert-key, read once (the options' check read them before); a replay sends nothing and presents nothing.
  const clientCertificate = options.cert && options.certKey && !options.replay ? readClientCertificate(options.cert, options.certKey) : undefined;
  addGatewaySecrets(redactor, options.headers, clientCertificate);
  // Without a terminal's status line (a CI log), a run that works or waits quietly prints a heartbeat (cli/heartbeat.ts).
  const heartbeat = options.print && !options.status && !options.replay && detail !== 'quiet' ? new Heartbeat((line) => print(line)) : undefined;
  // Every line passes through the run's redactor, then is made inert for a terminal or a CI log: it may hold a target's bytes.
  const print = (line: string) => {
    options.print?.(terminalText(redactor.redact(line)));
    heartbeat?.printed();
  };
  // --quiet prints the verdict line alone: everything else the run says goes through `say`.
  const say = detail === 'quiet' ? () => undefined : print;
  const status = detail === 'quiet' ? undefined : options.status && ((line: string | undefined) => options.status!(line === undefined ? undefined : terminalText(redactor.redact(line))));
  const replay = options.replay;
  const startedAt = replay ? new Date(replay.startedAt) : new Date();
  const runId = replay?.runId ?? `${startedAt.toISOString().replace(/[-:]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`;
  // Before anything is sent, and before the bundled server starts: a folder the reports may not go to is bad usage.
  prepareReportFolder(options);
  const reportDir = resolve(options.reportDir);

  const embedded = options.baseUrl === undefined && !replay
    ? await startBundledServer({ apiKeys: [`ref-${randomBytes(12).toString('hex')}`] })
    : undefined;
  const baseUrl = replay?.target.baseUrl ?? embedded?.url ?? options.baseUrl!;
  // On replay no key is sent anywhere; a stand-in is redacted to the same placeholder the recording shows.
  const apiKey = replay ? `replay-${randomBytes(12).toString('hex')}` : embedded?.apiKey ?? options.apiKey ?? '';
  const wasEmbedded = replay ? replay.target.embedded : embedded !== undefined;
  // The key of a target named by the options is known already; these two are born here.
  if (embedded || replay) redactor.add(apiKey);
  if (replay) say(`Re-judging the exchanges recorded from ${baseUrl} (nothing is sent)`);
  else if (embedded) say(`No --base-url given: certifying the bundled reference server at ${baseUrl}`);
  else say(`Certifying ${baseUrl}`);
  if (isShortSecret(apiKey)) {
    say(`Note: the API key is only ${apiKey.length} character${apiKey.length === 1 ? '' : 's'} long. It is masked in headers and wherever it stands alone (a JSON value, a query value); text that merely contains those letters is left as it is, so a body that glues the key to other text would show it.`);
  }
  const shortHeaders = replay ? [] : Object.entries(options.headers ?? {}).filter(([, value]) => isShortSecret(value)).map(([name]) => name);
  if (shortHeaders.length > 0) say(`Note: the value of --header ${shortHeaders.join(', ')} is shorter than 12 characters: it is masked wherever it stands alone, as a short key is, not inside longer text.`);

  // The bundled server lives in this process on loopback: a proxy of the environment is never meant for it.
  const proxy = embedded || replay ? undefined : proxyRouteFor(baseUrl);
  const proxySecret = proxyPassword(proxy);
  if (proxySecret) redactor.add(proxySecret);
  if (proxy) say(`Through the proxy ${proxy.shown} (HTTP_PROXY/HTTPS_PROXY; NO_PROXY does not exempt this target)`);
  // Held until the reports are written: a second run on this folder is refused rather than mixed with this one.
  let folderLock: ReportFolderLock | undefined;
  try {
    folderLock = ReportFolderLock.take(reportDir, runId);
    const deselected = (rule: Rule) => deselectionReason(rule, options);
    // Only the suites of selected areas run: a run of one area costs that area alone.
    const selectedRules = activeRules().filter((rule) => !deselected(rule));
    const selected = new Set(selectedRules.map((rule) => rule.area));
    // --read-only says what it will spend before it sends anything, and is held to it (on replay too, as it ran).
    const plan = options.readOnly ? readOnlyPlan(selected, options) : undefined;
    if (plan) say(planLine(plan));
    if (!replay) await assertReachable(baseUrl, options.timeoutMs, options.caFile, proxy, clientCertificate);
    const today = options.today ?? new Date().toISOString().slice(0, 10);
    const config = runConfigOf({ ...options, ...(plan ? { maxRequests: plan.requests } : {}) }, {
      baseUrl, apiKey, runId, startedAtMs: startedAt.getTime(), embedded: wasEmbedded, today,
      ...(plan?.cappedBy === 'plan' ? { maxRequestsSource: 'the --read-only plan' } : {}),
      ...(proxy ? { proxy } : {}),
      ...(replay ? { replayHarPath: resolve(replay.harPath) } : {}),
    });
    const log = new LogRouter(say, status, Date.now, detail === 'verbose');
    const showResult = resultShower(detail, log, say, options.baseline, deselected, selectedRules.length);
    const record = new RunRecord(redactor, log, showResult.hear);
    const quota = plan && !replay ? quotaWatch(plan, (line) => log.line(line)) : undefined;
    const listeners = [record.hear, ...(quota ? [quota] : []), ...(heartbeat ? [heartbeat.hear] : [])];
    const hear: RunEvents = listeners.length === 1 ? record.hear : (event) => {
      for (const listener of listeners) listener(event);
    };
    const run = new RunContext(config, hear, options.signal);
    heartbeat?.start();
    try {
      await runSuites(run, SUITES.filter((suite) => selected.has(suite.area)), hear);
      // Every request with the key refused, GET /pets not among them (`--only store`): one GET /pets with the key
      // tells a key of another environment from one operation refusing a good key (diagnoseRefusedKeyOverRun, below).
      if (!record.diagnosis && !options.signal?.aborted && wantsListingForRefusedKey(record.exchanges, baseUrl)) {
        await run.client.send({ path: '/pets', query: { limit: '1' } }).catch(() => undefined);
      }
    } finally {
      heartbeat?.stop();
      await run.close();
    }

    log.endPhase();
    showResult.end();
    const { exchanges } = record;
    // A run too short for the client's early reading is read whole for a refused key once it ends (not when cancelled).
    const refused = record.diagnosis || options.signal?.aborted ? undefined : diagnoseRefusedKeyOverRun(exchanges, baseUrl);
    const diagnosis = diagnosisWithEvidence(record.diagnosis ?? refused, exchanges);
    const suiteErrors: string[] = [];
    const judged = ruleResults(activeRules(), record.results, suiteErrors, deselected);
    const rules = diagnosis ? withoutUnjudged(judged, diagnosis) : judged;
    const created = distinctCreated(rules.flatMap((rule) => rule.created));
    const cancelledBy = options.signal?.aborted ? String(options.signal.reason ?? 'cancelled') : undefined;
    const finishedAt = new Date();
    const { verdict, exitCode, baseline } = judgeRun({
      rules, strict: options.strict, suiteErrors, diagnosis, cancelledBy, baseline: options.baseline, requireComplete: options.requireComplete,
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
      rateLimitWaits: record.waits ?? log.waits,
      counts: countsOf(rules),
      requests: { total: exchanges.length, byArea: requestsByArea(rules) },
      created,
      suiteErrors,
      ...(baseline ? { baseline } : {}),
      rules,
    };
    writeReportFiles(report, exchanges, reportDir, options.reporters, redactor, today);
    const unmatched = replay ? [...record.unmatched] : undefined;
    // A run that judged nothing knows no failures: an empty baseline written from it would tolerate nothing later.
    const writeBaseline = diagnosis ? undefined : options.writeBaseline;
    if (writeBaseline) writeBaselineFile(writeBaseline, redactor.redact(formatBaseline(report, options.baseline)));
    if (detail === 'quiet') print(verdictLine(report));
    else if (detail === 'verbose') print(summaryText(report));
    else print(compactSummaryText(report, options.width ?? DEFAULT_WIDTH));
    if (baseline && detail === 'verbose') say(`\n${baselineLines(baseline).join('\n')}`);
    if (writeBaseline) say(`\nBaseline written to ${writeBaseline}: ${failingRules(report).length} rule(s) that fail this run`);
    else if (options.writeBaseline) say(`\nNo baseline written to ${options.writeBaseline}: this run judged no rule`);
    say(`\nReports: ${reportDir}`);
    return { report, exitCode: report.exitCode, reportDir, redactor, ...(unmatched ? { unmatched } : {}) };
  } finally {
    folderLock?.release();
    await embedded?.close();
  }
}

/** The width compact lines are cut to where no terminal says its own: a CI log's viewer wraps what is longer. */
const DEFAULT_WIDTH = 120;

/**
 * What the terminal shows of each result as it comes. --verbose: a line per rule, a failure its baseline lists
 * marked known, and the rules of a selected area that --only or --skip left out counted in one line at the end.
 * By default: the status line (on a terminal) says how many rules are judged and how many failed.
 */
function resultShower(detail: Detail, log: LogRouter, say: (line: string) => void, baseline: RunOptions['baseline'], deselected: (rule: Rule) => string | undefined, total: number): { hear: (result: CheckResult) => void; end: () => void } {
  const known = new Set(baseline?.entries.map((entry) => entry.id));
  let judged = 0;
  let failing = 0;
  let unselected: { count: number; reason: string } | undefined;
  return {
    hear: (result) => {
      const rule = getRule(result.meta.ruleId);
      const reason = deselected(rule);
      if (reason !== undefined) {
        unselected = { count: (unselected?.count ?? 0) + 1, reason };
        return;
      }
      if (detail === 'verbose') return say(progressLine(result, known.has(rule.id)));
      judged += 1;
      if (isFailing(result.meta.outcome)) failing += 1;
      log.standing(statusLine(judged, total, failing, rule.id));
    },
    end: () => {
      if (detail === 'verbose' && unselected) say(`  ${unselected.count === 1 ? 'one more rule' : `${unselected.count} more rules`} of these areas ${unselected.reason}`);
    },
  };
}

/** Says, once, what share of a daily quota a --read-only run spends, on the first answer to the key that shows one. */
function quotaWatch(plan: ReadOnlyPlan, say: (line: string) => void): RunEvents {
  let said = false;
  return (event) => {
    if (said || event.kind !== 'exchange') return;
    const line = quotaLine(event.exchange, plan);
    if (line === undefined) return;
    said = true;
    say(line);
  };
}

/** What a run is and where it goes, beside the options: the rest of what its checks are told. */
export type RunIdentity = Omit<RunConfig, keyof CheckSettings>;

/** What the checks of a run are told: the settings of its options that the checks read, and the run's identity and target. */
export function runConfigOf(options: RunOptions, identity: RunIdentity): RunConfig {
  const { baseUrl: _url, apiKey: _key, reportDir: _dir, strict: _strict, requireComplete: _requireComplete, reporters: _reporters, baseline: _baseline, writeBaseline: _write, today: _today, print: _print, detail: _detail, width: _width, signal: _signal, status: _status, replay: _replay, ...settings } = options;
  return { ...settings, ...identity };
}

/** The client's diagnosis of a target that cannot be judged, with the exchange that showed it. */
function diagnosisWithEvidence(diagnosis: Diagnosis | undefined, exchanges: readonly Exchange[]): Report['diagnosis'] {
  if (!diagnosis) return undefined;
  const exchange = exchanges.find((candidate) => candidate.seq === diagnosis.seq);
  return { ...diagnosis, ...(exchange ? { exchange: toEvidence(exchange) } : {}) };
}

function reportedOptions(options: RunOptions): Record<string, unknown> {
  const { print: _print, detail: _detail, width: _width, signal: _signal, status: _status, replay: _replay, naming: _naming, apiKey, baseline, headers, ...rest } = options;
  // A header's name is no secret, and verify needs it to re-judge the requests that carried the header.
  const shownHeaders = headers && Object.fromEntries(Object.keys(headers).map((name) => [name, '[redacted]']));
  return { ...rest, apiKey: apiKey ? '[redacted]' : undefined, ...(shownHeaders ? { headers: shownHeaders } : {}), baseline: baseline?.file };
}

/** The bundled reference server, loaded only when a run certifies it: a run against --base-url never needs its web framework. */
async function startBundledServer(options: { apiKeys: string[] }): Promise<RunningReferenceServer> {
  const { startReferenceServer } = await import('../server/reference-server.js');
  return startReferenceServer(options);
}
