import { Command, Option } from 'commander';
import { AREA_ORDER } from '../helpers/spec/facts.js';
import { applyConfigSources, DEFAULT_CONFIG_FILE, describeConfig, envNameOf, type ValueSource } from './config-sources.js';
import { REPORTER_NAMES } from './reports/names.js';
import { DEFAULT_OPTIONS, INTEGER_OPTIONS, UsageError, type GivenOptions } from './resolve-options.js';

export type Parsed =
  | { action: 'run'; options: GivenOptions; json: boolean; color: boolean | undefined }
  | { action: 'list'; json: boolean };

/**
 * Digits become a number; anything else stays the text it was, so that the resolver's refusal can quote it.
 * The ranges are the resolver's (INTEGER_OPTIONS), which the programmatic API goes through too.
 */
function integer(value: string): number | string {
  return /^\d+$/.test(value.trim()) ? Number(value) : value;
}

function list(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((item) => item.trim()).filter(Boolean)];
}

/** --header, repeated: each one whole (a value may hold commas), checked by the resolver. */
function repeated(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function buildProgram(version: string): Command {
  const defaults = DEFAULT_OPTIONS;
  const flags = Object.fromEntries(Object.entries(INTEGER_OPTIONS).map(([name, option]) => [name, option.flag])) as Record<keyof typeof INTEGER_OPTIONS, string>;
  return new Command('petstore-conformance')
    .description('Certifies that a server implements the Pet Store interface: every rule of the spec, checked against the live server.')
    .version(version, '-V, --version')
    .option('--base-url <url>', 'base URL of the server to certify, ending in /v1 (default: start the bundled reference server)')
    .option('--api-key <key>', 'API key sent as "Authorization: Bearer <key>"; prefer the PETSTORE_API_KEY variable, which stays out of shell history')
    .option('--report-dir <dir>', 'where reports are written', defaults.reportDir)
    // Shown as what they mean, not as the empty list they start from ("default: []").
    .addOption(new Option('--only <ids>', 'run only these areas or rule IDs (comma-separated, repeatable)').argParser(list).default([], 'every rule'))
    .addOption(new Option('--skip <ids>', 'skip these areas or rule IDs (comma-separated, repeatable)').argParser(list).default([], 'none'))
    .option('--read-only', 'send only reads (GET, HEAD, OPTIONS), and no 429 probe unless --rate-limit-budget is given; rules that need writes are reported skipped', false)
    .option('--strict', 'SHOULD failures fail the run too', false)
    .option('--require-complete', 'a run that leaves MUST rules unjudged (verdict incomplete: --only, a budget, a skip) fails with exit 6', false)
    .option(flags.timeoutMs, 'per-request timeout in milliseconds', integer, defaults.timeoutMs)
    .option(flags.maxDurationMs, 'stop sending after this many seconds (rate-limit waits included); the rules left are reported skipped', integer)
    .option(flags.maxRequests, 'stop cleanly after this many requests; the rules left are reported skipped', integer)
    .option(flags.concurrency, 'most requests in flight at once', integer, defaults.concurrency)
    .option(flags.rateLimitReserve, 'requests kept in hand in every rate-limit window', integer, defaults.rateLimitReserve)
    .option(flags.rateLimitBudget, 'most requests the 429 probe may send to exceed the window (0 skips it)', integer, defaults.rateLimitBudget)
    .option('--verify-recovery', 'after the 429 probe, wait Retry-After and check that the next request succeeds', false)
    .option(flags.seed, 'seed of the fuzzing run, to replay one exactly', integer)
    .option(flags.fuzzRuns, 'generated invalid bodies sent by the fuzzing rules', integer, defaults.fuzzRuns)
    .option(flags.fuzzValidRuns, 'generated valid bodies sent (each creates a pet)', integer, defaults.fuzzValidRuns)
    .option(flags.exploreRuns, 'generated sequences of creates, lists and fetches (each at most 8 requests and 3 pets), beside the fixed ones', integer, defaults.exploreRuns)
    .option(flags.maxResponseBytes, 'cap on a response body; the rest is not read', integer, defaults.maxResponseBytes)
    .option(flags.readLagMs, 'longest a read may lag the run\'s own writes (replicas, caches): a created pet not yet readable is read again, with backoff, for up to this long', integer, defaults.readLagMs)
    .option('--ca-file <pem>', 'trust this CA certificate (PEM) for an https target')
    .option('--header <header>', 'send this header on every request, e.g. \'X-Gateway-Token: ...\' (repeatable; the value is kept out of every output)', repeated, [])
    .option('--cert <pem>', 'client certificate (PEM) presented to an https target that asks for one (mTLS); with --cert-key')
    .option('--cert-key <pem>', 'private key (PEM, unencrypted) of --cert')
    .option('--json', 'print report.json to stdout (progress goes to stderr)', false)
    .option('--verbose', 'print every rule as it is judged, and every failure with its evidence and curl line', false)
    .option('--quiet', 'print the verdict line only', false)
    .option('--no-color', 'no colour, even on a terminal (NO_COLOR and FORCE_COLOR are followed too)')
    .option('--reporter <names>', `report files to write, comma-separated: ${REPORTER_NAMES.join(', ')} (default: all)`, list)
    .option('--baseline <file>', 'rule IDs the target is known to fail, one per line: reported, they do not fail the run; a listed rule that passes fails it (exit 5)')
    .option('--write-baseline <file>', 'write the rules that fail this run as a baseline file')
    .option('--list', 'print the rule catalog and exit', false)
    .option('--config <file>', `read options from this YAML file (default: ${DEFAULT_CONFIG_FILE} when the working directory holds one)`)
    .option('--print-config', 'print every option, its value and where it came from (flag, environment, file, default), secrets not shown, and exit', false)
    .addHelpText('after', `
Environment and config file:
  PETSTORE_API_KEY   the API key (recommended over --api-key)
  PETSTORE_HEADER    headers for every request, one 'Name: value' per line
  Every option can also come from PETSTORE_<OPTION> (--base-url: PETSTORE_BASE_URL, --read-only:
  PETSTORE_READ_ONLY=true) and from the config file, written as its flag (base-url: ...), where
  \${VAR} is replaced by the variable. A flag wins over the environment, which wins over the file.

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
  6  with --require-complete: nothing failed, but MUST rules were not judged (incomplete)
  130, 143  cancelled by SIGINT or SIGTERM: the reports of what was judged are written

Example:
  PETSTORE_API_KEY=... petstore-conformance --base-url https://staging.example.com/v1

Checking a report folder someone else produced (offline; see verify --help):
  petstore-conformance verify <report-dir>`);
}

/**
 * Turns argv into what to do and the options as given; resolveRunOptions checks them, as it checks the
 * programmatic API's. A mistake commander itself sees (an unknown option) is a UsageError here.
 */
export function parseArguments(argv: string[], version: string, write: (text: string) => void, env: NodeJS.ProcessEnv = process.env): Parsed | { action: 'exit'; code: number } {
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
  const sources = applyConfigSources(program, env);
  // Before --print-config too: it shows what a run would take, and a run refuses this.
  if (program.opts().verbose && program.opts().quiet) throw new UsageError(`--verbose and --quiet ask for opposite things: give one (${describeSource(program, 'verbose', sources)}, ${describeSource(program, 'quiet', sources)})`);
  if (program.opts().printConfig) {
    write(describeConfig(program, sources));
    return { action: 'exit', code: 0 };
  }
  const o = program.opts();
  if (o.list) return { action: 'list', json: Boolean(o.json) };
  return {
    action: 'run',
    json: Boolean(o.json),
    // Only --no-color says anything: without it, the environment and the terminal decide (cli/colour.ts).
    color: o.color === false ? false : undefined,
    options: {
      detail: o.quiet ? 'quiet' : o.verbose ? 'verbose' : 'compact',
      baseUrl: o.baseUrl,
      apiKey: o.apiKey,
      reportDir: o.reportDir,
      only: o.only,
      skip: o.skip,
      readOnly: o.readOnly,
      strict: o.strict,
      requireComplete: o.requireComplete,
      timeoutMs: o.timeout,
      maxRequests: o.maxRequests,
      maxDurationMs: typeof o.maxDuration === 'number' ? o.maxDuration * 1000 : o.maxDuration,
      concurrency: o.concurrency,
      rateLimitReserve: o.rateLimitReserve,
      // Left out when not given, so that --read-only can leave the probe out unless asked for (cli/resolve-options.ts).
      rateLimitBudget: sources.get('rateLimitBudget') === 'default' ? undefined : o.rateLimitBudget,
      verifyRecovery: o.verifyRecovery,
      seed: o.seed,
      fuzzRuns: o.fuzzRuns,
      fuzzValidRuns: o.fuzzValidRuns,
      exploreRuns: o.exploreRuns,
      maxResponseBytes: o.maxResponseBytes,
      readLagMs: o.readLag,
      caFile: o.caFile,
      headers: o.header,
      cert: o.cert,
      certKey: o.certKey,
      reporters: o.reporter,
      baseline: o.baseline,
      writeBaseline: o.writeBaseline,
    },
  };
}

/** Where a switch was set, for a refusal that names both sides: "--quiet from PETSTORE_QUIET". */
function describeSource(program: Command, name: 'verbose' | 'quiet', sources: ReadonlyMap<string, ValueSource>): string {
  const option = program.options.find((each) => each.attributeName() === name)!;
  const where = { flag: 'the command line', env: envNameOf(option), file: 'the config file', default: 'the command line' }[sources.get(name) ?? 'flag'];
  return `${option.long} from ${where}`;
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

/**
 * Every value that may be the key, wherever a person put it, and the password of any proxy the environment
 * names: known before parsing, so that even a usage error that echoes an argument cannot print them.
 */
export function possibleKeys(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const keys = env.PETSTORE_API_KEY ? [env.PETSTORE_API_KEY] : [];
  // A header's value is a secret too; a line without a colon may be nothing but a value.
  const headerValues = (line: string) => [line.slice(line.indexOf(':') + 1).trim(), line.trim()].filter((value) => value.length > 0);
  for (const line of (env.PETSTORE_HEADER ?? '').split(/\r?\n/)) keys.push(...headerValues(line));
  argv.forEach((arg, i) => {
    if (arg === '--api-key' && argv[i + 1] !== undefined) keys.push(argv[i + 1]!);
    else if (arg.startsWith('--api-key=')) keys.push(arg.slice('--api-key='.length));
    else if (arg === '--header' && argv[i + 1] !== undefined) keys.push(...headerValues(argv[i + 1]!));
    else if (arg.startsWith('--header=')) keys.push(...headerValues(arg.slice('--header='.length)));
    else if (arg === '--base-url' && argv[i + 1] !== undefined) keys.push(...urlPasswords(argv[i + 1]!));
    else if (arg.startsWith('--base-url=')) keys.push(...urlPasswords(arg.slice('--base-url='.length)));
  });
  return [...keys, ...proxyPasswords(env)];
}

/** The password a URL carries (`user:password@`), as written and decoded, even when the URL is too malformed to parse. */
function urlPasswords(text: string): string[] {
  const password = /:([^/\s@:]+)@/.exec(text)?.[1];
  if (!password) return [];
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}

function proxyPasswords(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env).flatMap(([name, value]) => {
    if (!/^(https?|all)_proxy$/i.test(name) || !value) return [];
    try {
      const password = new URL(value.includes('://') ? value : `http://${value}`).password;
      return password ? [decodeURIComponent(password)] : [];
    } catch {
      return [];
    }
  });
}

