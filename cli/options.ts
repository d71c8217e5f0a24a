import { Command, InvalidArgumentError } from 'commander';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { activeRules, loadCatalog } from '../helpers/catalog.js';
import { AREA_ORDER } from '../helpers/spec-facts.js';
import { BaselineError, checkBaselineTarget, readBaselineFile, type Baseline } from './reports/baseline.js';
import { reporterList } from './reports/reporter-option.js';
import { REPORTER_NAMES, type ReporterName } from './reports/write.js';
import { DEFAULT_OPTIONS, type RunOptions } from './run.js';

/** Bad usage or configuration: one clear line, exit code 2, nothing sent to the target. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type Parsed =
  | { action: 'run'; options: RunOptions; json: boolean }
  | { action: 'list' };

function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    }
    return Number(value);
  };
}

function list(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((item) => item.trim()).filter(Boolean)];
}

export function buildProgram(version: string): Command {
  const defaults = DEFAULT_OPTIONS;
  return new Command('petstore-conformance')
    .description('Certifies that a server implements the Pet Store interface: every rule of the spec, checked against the live server.')
    .version(version, '-V, --version')
    .option('--base-url <url>', 'base URL of the server to certify, ending in /v1 (default: start the bundled reference server)')
    .option('--api-key <key>', 'API key sent as "Authorization: Bearer <key>"; prefer the PETSTORE_API_KEY variable, which stays out of shell history')
    .option('--report-dir <dir>', 'where reports are written', defaults.reportDir)
    .option('--only <ids>', 'run only these areas or rule IDs (comma-separated, repeatable)', list, [])
    .option('--skip <ids>', 'skip these areas or rule IDs (comma-separated, repeatable)', list, [])
    .option('--read-only', 'create nothing on the target; rules that need created pets are reported skipped', false)
    .option('--strict', 'SHOULD failures fail the run too', false)
    .option('--timeout <ms>', 'per-request timeout in milliseconds', integer('--timeout', 100, 600_000), defaults.timeoutMs)
    .option('--max-duration <seconds>', 'stop sending after this many seconds (rate-limit waits included); the rules left are reported skipped', integer('--max-duration', 1, 604_800))
    .option('--max-requests <n>', 'stop cleanly after this many requests; the rules left are reported skipped', integer('--max-requests', 1, 10_000_000))
    .option('--concurrency <n>', 'most requests in flight at once', integer('--concurrency', 1, 64), defaults.concurrency)
    .option('--rate-limit-reserve <n>', 'requests kept in hand in every rate-limit window', integer('--rate-limit-reserve', 0, 1000), defaults.rateLimitReserve)
    .option('--rate-limit-budget <n>', 'most requests the 429 probe may send to exceed the window (0 skips it)', integer('--rate-limit-budget', 0, 1_000_000), defaults.rateLimitBudget)
    .option('--verify-recovery', 'after the 429 probe, wait Retry-After and check that the next request succeeds', false)
    .option('--seed <n>', 'seed of the fuzzing run, to replay one exactly', integer('--seed', 0, 2 ** 31 - 1))
    .option('--fuzz-runs <n>', 'generated invalid bodies sent by the fuzzing rules', integer('--fuzz-runs', 0, 100_000), defaults.fuzzRuns)
    .option('--fuzz-valid-runs <n>', 'generated valid bodies sent (each creates a pet)', integer('--fuzz-valid-runs', 0, 10_000), defaults.fuzzValidRuns)
    .option('--max-response-bytes <n>', 'cap on a response body; the rest is not read', integer('--max-response-bytes', 1024, 1_073_741_824), defaults.maxResponseBytes)
    .option('--read-lag <ms>', 'longest a read may lag the run\'s own writes (replicas, caches): a created pet not yet readable is read again, with backoff, for up to this long', integer('--read-lag', 0, 600_000), defaults.readLagMs)
    .option('--ca-file <pem>', 'trust this CA certificate (PEM) for an https target')
    .option('--json', 'print report.json to stdout (progress goes to stderr)', false)
    .option('--reporter <names>', `report files to write, comma-separated: ${REPORTER_NAMES.join(', ')} (default: all)`, reporterList)
    .option('--baseline <file>', 'rule IDs the target is known to fail, one per line: reported, they do not fail the run; a listed rule that passes fails it (exit 5)')
    .option('--write-baseline <file>', 'write the rules that fail this run as a baseline file')
    .option('--list', 'print the rule catalog and exit', false)
    .addHelpText('after', `
Environment:
  PETSTORE_API_KEY   the API key (recommended over --api-key)

Areas (for --only and --skip; rule IDs work too, see --list):
  ${AREA_ORDER.join(', ')}

Exit codes:
  0  every MUST rule checked holds (--strict: every SHOULD rule too)
  1  a MUST rule failed or errored (--strict: a SHOULD rule too)
  2  bad usage or configuration; nothing was sent
  3  the target cannot be judged: it cannot be reached, or its first answers show a
     wrong --base-url (404 on GET /pets, an HTML page, a login redirect) or a key it refuses
  4  the suite itself broke (an internal error; set DEBUG=1 for the stack)
  5  a rule listed in --baseline passes now: remove it from the file
  130, 143  cancelled by SIGINT or SIGTERM: the reports of what was judged are written

Example:
  PETSTORE_API_KEY=... petstore-conformance --base-url https://staging.example.com/v1

Checking a report folder someone else produced (offline; see verify --help):
  petstore-conformance verify <report-dir>`);
}

/** Turns argv into what to do; every mistake a person can make is a UsageError with the fix in it. */
export function parseArguments(argv: string[], env: NodeJS.ProcessEnv, version: string, write: (text: string) => void): Parsed | { action: 'exit'; code: number } {
  const program = buildProgram(version)
    .exitOverride()
    .configureOutput({ writeOut: write, writeErr: () => undefined });
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    const commanderError = error as { code?: string; message?: string; exitCode?: number };
    if (commanderError.code === 'commander.helpDisplayed' || commanderError.code === 'commander.version') return { action: 'exit', code: 0 };
    throw new UsageError(`${oneLine(commanderError.message ?? String(error))} (see --help)`);
  }
  const o = program.opts();
  if (o.list) return { action: 'list' };
  const baseUrl = o.baseUrl === undefined ? undefined : checkBaseUrl(o.baseUrl as string);
  const apiKey = (o.apiKey as string | undefined) ?? env.PETSTORE_API_KEY;
  if (baseUrl !== undefined && !apiKey) {
    throw new UsageError('no API key: set PETSTORE_API_KEY (recommended) or pass --api-key');
  }
  checkRuleNames([...(o.only as string[]), ...(o.skip as string[])]);
  if (o.caFile !== undefined) checkCaFile(o.caFile as string);
  const baseline = o.baseline === undefined ? undefined : baselineOption(o.baseline as string);
  if (o.writeBaseline !== undefined) baselineOption(o.writeBaseline as string, 'write');
  return {
    action: 'run',
    json: Boolean(o.json),
    options: {
      ...DEFAULT_OPTIONS,
      baseUrl, apiKey,
      reportDir: o.reportDir as string,
      only: o.only as string[],
      skip: o.skip as string[],
      readOnly: Boolean(o.readOnly),
      strict: Boolean(o.strict),
      timeoutMs: o.timeout as number,
      maxRequests: (o.maxRequests as number | undefined) ?? null,
      maxDurationMs: o.maxDuration === undefined ? null : (o.maxDuration as number) * 1000,
      concurrency: o.concurrency as number,
      rateLimitReserve: o.rateLimitReserve as number,
      rateLimitBudget: o.rateLimitBudget as number,
      verifyRecovery: Boolean(o.verifyRecovery),
      seed: (o.seed as number | undefined) ?? randomInt(0, 2 ** 31 - 1),
      fuzzRuns: o.fuzzRuns as number,
      fuzzValidRuns: o.fuzzValidRuns as number,
      maxResponseBytes: o.maxResponseBytes as number,
      readLagMs: o.readLag as number,
      caFile: o.caFile as string | undefined,
      reporters: (o.reporter as ReporterName[] | undefined) ?? REPORTER_NAMES,
      baseline,
      writeBaseline: o.writeBaseline as string | undefined,
    },
  };
}

/** --baseline is read, and --write-baseline's folder checked, before anything is sent. */
export function baselineOption(file: string, mode: 'read' | 'write' = 'read'): Baseline | undefined {
  try {
    if (mode === 'read') return readBaselineFile(file, loadCatalog().rules);
    checkBaselineTarget(file);
    return undefined;
  } catch (error) {
    if (error instanceof BaselineError) throw new UsageError(error.message);
    throw error;
  }
}

/** The base URL, normalised (no trailing slash); shared with the programmatic API so both refuse the same input. */
export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--base-url "${text}" is not a URL; give the full address, e.g. https://staging.example.com/v1`);
  }
  // "localhost:8080/v1" parses as the scheme "localhost:": name the missing scheme, not a strange one.
  if (!text.includes('://')) {
    throw new UsageError(`--base-url "${text}" has no http:// or https:// in front; give the full address, e.g. http://${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--base-url must use http or https, not ${url.protocol.replace(/:$/, '')}; give the server's http:// or https:// address`);
  }
  if (url.search || url.hash) throw new UsageError('--base-url must not carry a query or fragment; give the base address, e.g. https://staging.example.com/v1');
  if (url.username || url.password) throw new UsageError('--base-url must not carry credentials; pass the key with PETSTORE_API_KEY');
  return url.toString().replace(/\/+$/, '');
}

/**
 * Commander's message on one line, with any `=value` of an unknown option cut: a misspelt
 * `--api_key=<key>` must not print the key it carries.
 */
function oneLine(message: string): string {
  return message
    .replace(/^error: /, '')
    .replace(/^(unknown option '[^'=]*)=[^']*'/, "$1=…'")
    .replace(/\s*\n\s*/g, ' ');
}

/** A CA file that cannot be read would only surface mid-handshake, as a crash: name it before any connection. */
function checkCaFile(path: string): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read --ca-file ${path} (${reason}): give the PEM file of the CA that signed the target's certificate`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`--ca-file ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA certificate in PEM form`);
  }
}

/**
 * Every value that may be the key, wherever a person put it: registered before parsing, so that even a
 * usage error that echoes an argument cannot print it.
 */
export function possibleKeys(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const keys = env.PETSTORE_API_KEY ? [env.PETSTORE_API_KEY] : [];
  argv.forEach((arg, i) => {
    if (arg === '--api-key' && argv[i + 1] !== undefined) keys.push(argv[i + 1]!);
    else if (arg.startsWith('--api-key=')) keys.push(arg.slice('--api-key='.length));
  });
  return keys;
}

export function checkRuleNames(names: string[]): void {
  const known = new Set([...activeRules().map((rule) => rule.id), ...AREA_ORDER]);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new UsageError(`unknown rule ID or area in --only/--skip: ${unknown.join(', ')} (list them with --list)`);
  }
}
