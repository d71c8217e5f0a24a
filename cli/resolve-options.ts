import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readCaFile, UnreadableFile } from '../helpers/bounded-file.js';
import { activeRules, loadCatalog } from '../helpers/spec/catalog.js';
import { AREA_ORDER } from '../helpers/spec/facts.js';
import type { CheckSettings } from '../helpers/run-config.js';
import type { Report } from './reports/report.js';
import { BaselineError, checkBaselineTarget, readBaselineFile, type Baseline } from './policy/baseline.js';
import { REPORTER_NAMES, type ReporterName } from './reports/names.js';
import { fieldValueProblem, vocabularyProblem } from './secret-check.js';
import { checkClientCertificate, checkedHeaders } from './gateway-options.js';
import { UsageError } from './usage-error.js';
import { foreignEntries, foreignEntriesReason } from './reports/report-folder.js';

export { UsageError } from './usage-error.js';

/** Every option of a run, resolved: defaults filled in, each value checked. */
export interface RunOptions extends CheckSettings {
  /** The target's base URL, ending in /v1; none certifies the bundled reference server. */
  baseUrl?: string;
  apiKey?: string;
  reportDir: string;
  /** Set when the programmatic API resolved the options: its refusals name its own options, not the CLI's flags. */
  naming?: OptionNaming;
  strict: boolean;
  /** --require-complete: a run that leaves MUST rules unjudged (verdict incomplete) exits 6, not 0. */
  requireComplete: boolean;
  /** Which report files are written (--reporter). */
  reporters: ReporterName[];
  /** Rules the target is known to fail (--baseline): reported, they do not fail the run. */
  baseline?: Baseline;
  /** Where to write this run's failures as a baseline (--write-baseline). */
  writeBaseline?: string;
  /** ISO date (YYYY-MM-DD) the date-aware checks take as today, e.g. to replay a run as of the getPet removal date; default the real date. */
  today?: string;
  /**
   * Cancels the run (the CLI aborts it on SIGINT or SIGTERM, with the signal's name as the reason): nothing
   * more is sent, the rules not reached are skipped, and every report is still written.
   */
  signal?: AbortSignal;
  /** Where progress and the summary go; nothing is printed when absent. */
  print?: (line: string) => void;
  /** How much `print` is given: 'compact' when absent (see Detail). */
  detail?: Detail;
  /** The width `print`'s compact lines are cut to (a terminal's columns); 120 when absent. */
  width?: number;
  /**
   * Rewrites one status line in place (a terminal): long phases show their progress there, undefined
   * clears it. Absent (a CI log), a long phase prints a line every few seconds instead.
   */
  status?: (line: string | undefined) => void;
  /**
   * `verify`: re-judges a recorded run offline. Its exchanges.har answers every request, its run ID and
   * start time are taken over (pet names and the rate-limit clock depend on them), and nothing is sent.
   */
  replay?: { harPath: string; runId: string; startedAt: string; target: Report['target'] };
}

/**
 * How much the terminal shows: `compact` (the default) a status line while the run works, then the verdict, the
 * counts and each failing rule as a headline; `verbose` every rule as it is judged and every failure's evidence;
 * `quiet` the verdict line alone.
 */
export const DETAILS = ['compact', 'verbose', 'quiet'] as const;
export type Detail = typeof DETAILS[number];

/** Any subset of the options, as the programmatic API takes them; what is left out takes the CLI's default. */
export type ConformanceOptions = Partial<Omit<RunOptions, 'baseline' | 'headers'>> & {
  /** A baseline file, as --baseline: one rule ID per line that the target is known to fail. */
  baseline?: string;
  /** As --header: sent on every request; a record of names to values, or a list of "Name: value" strings. */
  headers?: Readonly<Record<string, string>> | readonly string[];
};

/** What the CLI or a program hands over before it is checked: a JavaScript caller's values may be of any type. */
export type GivenOptions = { readonly [name in keyof ConformanceOptions]?: unknown };

/** The 429 probe's budget under --read-only when none is given: none, so the probe does not run. */
export const READ_ONLY_RATE_LIMIT_BUDGET = 0;

export const DEFAULT_OPTIONS: Omit<RunOptions, 'seed'> = {
  reportDir: 'reports',
  only: [],
  skip: [],
  readOnly: false,
  strict: false,
  requireComplete: false,
  timeoutMs: 10_000,
  maxResponseBytes: 1_048_576,
  maxRequests: null,
  maxDurationMs: null,
  concurrency: 4,
  rateLimitReserve: 2,
  rateLimitBudget: 1_100,
  verifyRecovery: false,
  fuzzRuns: 100,
  fuzzValidRuns: 10,
  exploreRuns: 2,
  readLagMs: 5_000,
  reporters: [...REPORTER_NAMES],
};

type IntegerOption = 'timeoutMs' | 'maxDurationMs' | 'maxRequests' | 'concurrency' | 'rateLimitReserve' | 'rateLimitBudget'
  | 'seed' | 'fuzzRuns' | 'fuzzValidRuns' | 'exploreRuns' | 'maxResponseBytes' | 'readLagMs';

/**
 * The range of every integer option, in the unit of its flag (`perFlagUnit` converts: --max-duration is
 * seconds, maxDurationMs milliseconds). A zero concurrency would wait forever for a free slot; the other
 * bounds keep a typo from becoming a run of days.
 */
export const INTEGER_OPTIONS: Record<IntegerOption, { flag: string; min: number; max: number; perFlagUnit?: number }> = {
  timeoutMs: { flag: '--timeout <ms>', min: 100, max: 600_000 },
  maxDurationMs: { flag: '--max-duration <seconds>', min: 1, max: 604_800, perFlagUnit: 1000 },
  maxRequests: { flag: '--max-requests <n>', min: 1, max: 10_000_000 },
  concurrency: { flag: '--concurrency <n>', min: 1, max: 64 },
  rateLimitReserve: { flag: '--rate-limit-reserve <n>', min: 0, max: 1000 },
  rateLimitBudget: { flag: '--rate-limit-budget <n>', min: 0, max: 1_000_000 },
  seed: { flag: '--seed <n>', min: 0, max: 2 ** 31 - 1 },
  fuzzRuns: { flag: '--fuzz-runs <n>', min: 0, max: 100_000 },
  fuzzValidRuns: { flag: '--fuzz-valid-runs <n>', min: 0, max: 10_000 },
  exploreRuns: { flag: '--explore-runs <n>', min: 0, max: 1000 },
  maxResponseBytes: { flag: '--max-response-bytes <n>', min: 1024, max: 1_073_741_824 },
  readLagMs: { flag: '--read-lag <ms>', min: 0, max: 600_000 },
};

const NO_CAP = ['maxRequests', 'maxDurationMs'] as const;

/** Whose names a refusal speaks in: the command line's flags, or the programmatic API's option names. */
export type OptionNaming = 'cli' | 'api';
type NamedOption = 'apiKey' | 'baseUrl' | 'only' | 'skip' | 'caFile' | 'baseline' | 'writeBaseline' | 'reporters' | 'reportDir' | 'headers' | 'cert' | 'certKey';
const FLAG_OF: Record<NamedOption, string> = {
  apiKey: '--api-key', baseUrl: '--base-url', only: '--only', skip: '--skip', caFile: '--ca-file', baseline: '--baseline',
  writeBaseline: '--write-baseline', reporters: '--reporter', reportDir: '--report-dir', headers: '--header', cert: '--cert', certKey: '--cert-key',
};

function nameOf(option: NamedOption, naming: OptionNaming): string {
  return naming === 'cli' ? FLAG_OF[option] : option;
}
const FLAGS = ['readOnly', 'strict', 'requireComplete', 'verifyRecovery'] as const;

/**
 * The one resolver of a run's options, for the CLI and the programmatic API alike: defaults, the key from
 * PETSTORE_API_KEY, and every check, each refusal a UsageError worded as the CLI words it. It runs before
 * anything is sent.
 */
export function resolveRunOptions(given: GivenOptions, env: NodeJS.ProcessEnv, naming: OptionNaming = 'cli'): RunOptions {
  const value = withoutUndefined(given);
  const named = (option: NamedOption) => nameOf(option, naming);
  const integers = Object.fromEntries(Object.keys(INTEGER_OPTIONS).map((name) => {
    const option = name as IntegerOption;
    const chosen = value[option] ?? (option === 'seed' ? randomSeed() : DEFAULT_OPTIONS[option as Exclude<IntegerOption, 'seed'>]);
    return [option, chosen === null && (NO_CAP as readonly string[]).includes(option) ? null : checkInteger(option, chosen, naming)];
  })) as Pick<RunOptions, IntegerOption>;
  const flags = Object.fromEntries(FLAGS.map((name) => [name, flag(value[name] ?? DEFAULT_OPTIONS[name], name)])) as Pick<RunOptions, (typeof FLAGS)[number]>;
  // --read-only is gentle: the 429 probe exhausts the key's window for every client sharing it, so it runs only when asked for.
  if (flags.readOnly && value.rateLimitBudget === undefined) integers.rateLimitBudget = READ_ONLY_RATE_LIMIT_BUDGET;
  const apiKey = optionalString(value.apiKey, named('apiKey')) ?? (env.PETSTORE_API_KEY || undefined);
  if (apiKey !== undefined) checkSecret(apiKey, value.apiKey !== undefined ? named('apiKey') : 'PETSTORE_API_KEY');
  const baseUrl = value.baseUrl === undefined ? undefined : checkBaseUrl(optionalString(value.baseUrl, named('baseUrl'))!, named('baseUrl'));
  if (baseUrl !== undefined && !apiKey) throw new UsageError(`no API key: set PETSTORE_API_KEY (recommended) or pass ${named('apiKey')}`);
  const only = ruleNames(value.only, named('only'));
  const skip = ruleNames(value.skip, named('skip'));
  checkRuleNames([...only, ...skip], `${named('only')}/${named('skip')}`);
  const caFile = optionalString(value.caFile, named('caFile'));
  if (caFile !== undefined) checkCaFile(caFile, named('caFile'));
  const headers = checkedHeaders(value.headers, named('headers'));
  const cert = optionalString(value.cert, named('cert'));
  const certKey = optionalString(value.certKey, named('certKey'));
  // A replay (verify) presents no certificate: it sends nothing.
  if (value.replay === undefined) checkClientCertificate(cert, certKey, { cert: named('cert'), certKey: named('certKey') }, baseUrl);
  const baselineFile = optionalString(value.baseline, named('baseline'));
  const writeBaseline = optionalString(value.writeBaseline, named('writeBaseline'));
  const baseline = baselineFile === undefined ? undefined : baselineOption(baselineFile);
  if (writeBaseline !== undefined) baselineOption(writeBaseline, 'write');
  const reporters = value.reporters === undefined ? DEFAULT_OPTIONS.reporters : reporterNames(value.reporters, named('reporters'));
  const today = value.today === undefined ? undefined : checkToday(value.today);
  const hooks = {
    ...(value.signal !== undefined ? { signal: checkSignal(value.signal) } : {}),
    ...(value.print !== undefined ? { print: checkFunction(value.print, 'print') as RunOptions['print'] } : {}),
    ...(value.status !== undefined ? { status: checkFunction(value.status, 'status') as RunOptions['status'] } : {}),
    ...(value.detail !== undefined ? { detail: checkDetail(value.detail) } : {}),
    ...(value.width !== undefined ? { width: checkWidth(value.width) } : {}),
    ...(value.replay !== undefined ? { replay: checkReplay(value.replay) } : {}),
  };
  const reportDir = optionalString(value.reportDir, named('reportDir')) ?? DEFAULT_OPTIONS.reportDir;
  // An empty name once meant the current folder, and the reports replaced whatever of the same name was there.
  if (reportDir.trim() === '') throw new UsageError(`${named('reportDir')} is empty: name the folder the reports go to, e.g. ${naming === 'cli' ? '--report-dir reports' : "reportDir: 'reports'"}`);
  return {
    ...DEFAULT_OPTIONS,
    ...flags,
    ...integers,
    baseUrl, apiKey, only, skip, caFile, reportDir, writeBaseline, reporters, baseline, today,
    ...(headers ? { headers } : {}), ...(cert !== undefined ? { cert, certKey } : {}),
    ...hooks,
    ...(naming === 'api' ? { naming } : {}),
  };
}

/**
 * The folder a run writes its reports to: created if need be, and holding nothing of the person's (the baselines a
 * run reads or writes may live there: they stay theirs). A run checks it before it sends anything; the vitest
 * adapter, which writes no reports, does not. It leaves a trace (the folder), so it comes after every other check.
 */
export function prepareReportFolder(options: Pick<RunOptions, 'reportDir' | 'baseline' | 'writeBaseline' | 'naming'>): void {
  ensureWritable(options.reportDir, nameOf('reportDir', options.naming ?? 'cli'));
  const kept = [options.baseline?.file, options.writeBaseline].filter((file): file is string => file !== undefined);
  const foreign = foreignEntries(resolve(options.reportDir), kept);
  if (foreign.length > 0) throw new UsageError(foreignEntriesReason(options.reportDir, foreign));
}

/** The key is checked as the header it becomes, before anything is sent: the HTTP client would refuse it on every request. */
function checkSecret(secret: string, name: string): void {
  const problem = fieldValueProblem(secret, name) ?? vocabularyProblem(secret, name);
  if (problem) throw new UsageError(problem);
}

/** A caller's hooks are checked here too: a print that is not a function would only break the run at its first line. */
function checkFunction(value: unknown, name: string): (...args: never[]) => unknown {
  if (typeof value !== 'function') throw new UsageError(`${name} must be a function, not ${JSON.stringify(value) ?? typeof value}`);
  return value as (...args: never[]) => unknown;
}

function checkDetail(value: unknown): Detail {
  if (!(DETAILS as readonly unknown[]).includes(value)) throw new UsageError(`detail must be one of ${DETAILS.join(', ')}, not ${JSON.stringify(value) ?? String(value)}`);
  return value as Detail;
}

/** Narrower than a headline's mark and ID, a cut line would say nothing; a terminal's columns are never this few. */
function checkWidth(value: unknown): number {
  if (!Number.isInteger(value) || (value as number) < 40) throw new UsageError(`width must be an integer of at least 40 columns, not ${JSON.stringify(value) ?? String(value)}`);
  return value as number;
}

function checkSignal(value: unknown): AbortSignal {
  if (!(value instanceof AbortSignal)) throw new UsageError('signal must be an AbortSignal (from an AbortController, or AbortSignal.timeout)');
  return value;
}

/** What `verify` hands over to re-judge a recorded run; it comes from a report folder whose shape verify checked. */
function checkReplay(value: unknown): NonNullable<RunOptions['replay']> {
  const replay = value as Partial<NonNullable<RunOptions['replay']>> | null;
  const target = replay?.target as Partial<Report['target']> | undefined;
  const valid = typeof replay === 'object' && replay !== null && typeof replay.harPath === 'string' && typeof replay.runId === 'string'
    && typeof replay.startedAt === 'string' && !Number.isNaN(Date.parse(replay.startedAt))
    && typeof target === 'object' && target !== null && typeof target.baseUrl === 'string' && typeof target.embedded === 'boolean';
  if (!valid) throw new UsageError('replay must name the recording (harPath), the run ID, its start (startedAt, a date) and its target (baseUrl, embedded)');
  return replay as NonNullable<RunOptions['replay']>;
}

// As the CLI: a fresh seed each run, recorded in report.options so the run can be replayed.
function randomSeed(): number {
  return randomInt(0, INTEGER_OPTIONS.seed.max);
}

// `{ reportDir: undefined }` means "the default", not "no report folder".
function withoutUndefined(given: GivenOptions): GivenOptions {
  return Object.fromEntries(Object.entries(given).filter(([, entry]) => entry !== undefined));
}

/** The option's value, checked against its range in the flag's unit; the message shows the value as the flag would take it. */
function checkInteger(option: IntegerOption, value: unknown, naming: OptionNaming = 'cli'): number {
  const { flag, min, max, perFlagUnit = 1 } = INTEGER_OPTIONS[option];
  if (typeof value === 'number' && Number.isInteger(value) && value >= min * perFlagUnit && value <= max * perFlagUnit) return value;
  // The API takes the value in its own unit (maxDurationMs in milliseconds), and says so in its own name.
  if (naming === 'api') throw new UsageError(`${option} must be an integer from ${min * perFlagUnit} to ${max * perFlagUnit}, not ${JSON.stringify(value) ?? String(value)}`);
  const shown = typeof value === 'number' ? value / perFlagUnit : value;
  const name = flag.split(' ')[0]!;
  throw new UsageError(`option '${flag}' argument '${String(shown)}' is invalid. ${name} must be an integer from ${min} to ${max}.`);
}

function flag(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw new UsageError(`${name} must be true or false, not ${JSON.stringify(value)}`);
  return value;
}

function optionalString(value: unknown, flagName: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UsageError(`${flagName} takes a string, not ${JSON.stringify(value)}`);
  return value;
}

function ruleNames(value: unknown, flagName: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) {
    throw new UsageError(`${flagName} takes a list of rule IDs or areas, not ${JSON.stringify(value)}`);
  }
  return value as string[];
}

/** --reporter: known names only, each once; an empty list would write no report at all. */
function reporterNames(value: unknown, name: string): ReporterName[] {
  const names = Array.isArray(value) ? (value as unknown[]) : [value];
  const unknown = names.filter((name) => !(REPORTER_NAMES as readonly unknown[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(`${name} takes ${REPORTER_NAMES.join(', ')}${name.startsWith('--') ? ' (comma-separated)' : ''}, not "${unknown.map(String).join(',')}".`);
  }
  return [...new Set(names as ReporterName[])];
}

/** The date a replay or a test pins as today; a malformed one would silently judge the getPet removal date wrong. */
function checkToday(value: unknown): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)) || new Date(value).toISOString().slice(0, 10) !== value) {
    throw new UsageError(`today must be a date written YYYY-MM-DD, e.g. 2026-01-31, not ${JSON.stringify(value)}`);
  }
  return value;
}

/** --baseline is read, and --write-baseline's folder checked, before anything is sent. */
function baselineOption(file: string, mode: 'read' | 'write' = 'read'): Baseline | undefined {
  try {
    if (mode === 'read') return readBaselineFile(file, loadCatalog().rules);
    checkBaselineTarget(file);
    return undefined;
  } catch (error) {
    if (error instanceof BaselineError) throw new UsageError(error.message);
    throw error;
  }
}

/** The base URL, normalised (no trailing slash). */
function checkBaseUrl(text: string, name: string): string {
  let url: URL;
  const shown = withoutCredentials(text);
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${name} "${shown}" is not a URL; give the full address, e.g. https://staging.example.com/v1`);
  }
  // "localhost:8080/v1" parses as the scheme "localhost:": name the missing scheme, not a strange one.
  if (!text.includes('://')) {
    throw new UsageError(`${name} "${shown}" has no http:// or https:// in front; give the full address, e.g. http://${shown}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${name} must use http or https, not ${url.protocol.replace(/:$/, '')}; give the server's http:// or https:// address`);
  }
  if (url.search || url.hash) throw new UsageError(`${name} must not carry a query or fragment; give the base address, e.g. https://staging.example.com/v1`);
  if (url.username || url.password) throw new UsageError(`${name} must not carry credentials; pass the key with PETSTORE_API_KEY`);
  return url.toString().replace(/\/+$/, '');
}

/**
 * The URL as a message may show it: whatever stands before an `@` in its first segment (`user:password@`) is
 * left out, so that a URL too malformed to parse still never shows its password.
 */
export function withoutCredentials(text: string): string {
  return text.replace(/[^/\s@]*@/, '…@');
}

function checkRuleNames(names: string[], name: string): void {
  const known = new Set([...activeRules().map((rule) => rule.id), ...AREA_ORDER]);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new UsageError(`unknown rule ID or area in ${name}: ${unknown.join(', ')} (list them with ${name.startsWith('--') ? '--list' : 'petstore-conformance --list'})`);
  }
}

/** A CA file that cannot be read would only surface mid-handshake, as a crash: name it before any connection. */
function checkCaFile(path: string, name: string): void {
  let text: string;
  try {
    text = readCaFile(path).toString('utf8');
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    throw new UsageError(`cannot read ${name} ${path} (${error.reason}): give the PEM file of the CA that signed the target's certificate`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`${name} ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA certificate in PEM form`);
  }
}

/**
 * A report folder that cannot be written would fail the run at its very end, after every request. Created
 * one level at a time: Node's recursive mkdir never returns under /proc, where ENOENT does not mean a
 * missing parent. Proved writable by writing a file in it, not by access(): root passes every permission
 * check, but not a read-only file system or an immutable folder.
 */
function ensureWritable(dir: string, name: string): void {
  const reason = unwritableReason(resolve(dir));
  if (reason) throw new UsageError(`cannot write reports to ${dir} (${reason}): choose a writable folder with ${name}`);
}

/** Why `dir` cannot hold the reports, or undefined once it exists and a file could be written in it. */
function unwritableReason(dir: string): string | undefined {
  // The nearest part of the path that exists must be a folder: what is missing is created below it.
  const missing: string[] = [];
  let existing = dir;
  let stat = statOf(existing);
  while (stat === 'missing' && dirname(existing) !== existing) {
    missing.unshift(existing);
    existing = dirname(existing);
    stat = statOf(existing);
  }
  const at = (path: string) => (path === dir ? '' : `${path}: `);
  if (typeof stat === 'string') return `${at(existing)}${fileSystemReason(stat)}`;
  if (!stat.isDirectory()) return `${existing} is ${kindOf(stat)}, not a folder`;
  let step = existing;
  try {
    for (const folder of missing) {
      step = folder;
      mkdirUnlessThere(folder);
    }
    step = dir;
    const probe = join(dir, `.write-test-${randomBytes(4).toString('hex')}`);
    writeFileSync(probe, '', { flag: 'wx' });
    rmSync(probe);
    return undefined;
  } catch (error) {
    return `${at(step)}${fileSystemReason((error as NodeJS.ErrnoException).code ?? 'unknown error')}`;
  }
}

/** Another run may create the same folder at the same moment. */
function mkdirUnlessThere(folder: string): void {
  try {
    mkdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** The file's stat; 'missing' when nothing is there (or a file stands where a folder of the path should); else the error code. */
function statOf(path: string): Stats | string {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : code;
  }
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'a file';
}

function fileSystemReason(code: string): string {
  switch (code) {
    case 'EROFS': return 'a read-only file system';
    case 'EACCES':
    case 'EPERM': return `not permitted (${code})`;
    case 'ENOSPC': return 'no space left on the device';
    // /proc and /sys answer a new folder or file with ENOENT: there is nothing to write there.
    case 'ENOENT': return 'the file system does not take new files there (ENOENT)';
    default: return code;
  }
}
