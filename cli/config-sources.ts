// Where each option's value comes from, the way CI sets options: a flag, else a PETSTORE_* environment variable,
// else the config file (petstore-conformance.config.yaml, or --config <file>), else the default. Schemathesis reads
// a TOML file with ${VAR} substitution, Dredd a dredd.yml, OCI's conformance an OCI_* variable per setting; this is
// the same, on commander's own options: every value goes through the parser its flag has.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Command, Option } from 'commander';
import { READ_ONLY_RATE_LIMIT_BUDGET, withoutCredentials } from './resolve-options.js';
import { UsageError } from './usage-error.js';

/** The YAML parser, loaded only when there is a file to read: the command line starts without it (tests/unit/import-graph.test.ts). */
function parseYaml(text: string, options: { maxAliasCount: number }): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text, options);
}

export type ValueSource = 'flag' | 'env' | 'file' | 'default';

/** Where each option's value came from, by attribute name, and the config file read, if one was. */
export type ConfigSources = Map<string, ValueSource> & { file?: string };

/** The file read when --config names none and it is in the working directory. */
export const DEFAULT_CONFIG_FILE = 'petstore-conformance.config.yaml';

/**
 * Options that are actions or say where the configuration is, not configuration; and colour, which NO_COLOR and
 * FORCE_COLOR already set from the environment (a PETSTORE_NO_COLOR beside them would only be a third way).
 */
const NOT_CONFIGURABLE = new Set(['list', 'json', 'config', 'printConfig', 'help', 'version', 'color']);

/** Options whose values are secrets: shown by --print-config only as set or not. */
const SECRET_OPTIONS = new Set(['apiKey']);

/**
 * Options that take several values where a variable holds one string: one per line (PETSTORE_HEADER="A: 1\nB: 2"),
 * since a header's value may hold commas; a line cannot be inside a header value, which is refused anyway.
 */
const ONE_PER_LINE = new Set(['header']);

/** The variable that sets an option: PETSTORE_ and its flag in upper snake case (--base-url: PETSTORE_BASE_URL). */
export function envNameOf(option: Option): string {
  return `PETSTORE_${option.long!.slice(2).toUpperCase().replace(/-/g, '_')}`;
}

/** The options a person may set from the environment or the file. */
function configurable(program: Command): Option[] {
  return program.options.filter((option) => option.long !== undefined && !NOT_CONFIGURABLE.has(option.attributeName()));
}

/**
 * Fills each option the command line left at its default from the environment, else from the config file, each
 * value through the flag's own parser; returns where every configurable option's value came from.
 */
export function applyConfigSources(program: Command, env: NodeJS.ProcessEnv, cwd = process.cwd()): ConfigSources {
  const file = configFile(program, env, cwd);
  const sources: ConfigSources = Object.assign(new Map<string, ValueSource>(), file === undefined ? {} : { file });
  const fromFile = file === undefined ? new Map<string, unknown>() : readConfigFile(file, configurable(program), env);
  for (const option of configurable(program)) {
    const name = option.attributeName();
    if (program.getOptionValueSource(name) === 'cli') {
      sources.set(name, 'flag');
      continue;
    }
    // PETSTORE_API_KEY is the resolver's to read, so that what it says of a key names the variable the key came from.
    if (name === 'apiKey' && env.PETSTORE_API_KEY) {
      sources.set(name, 'env');
      continue;
    }
    const envValue = env[envNameOf(option)];
    if (envValue !== undefined && envValue !== '') {
      const given = ONE_PER_LINE.has(name) ? envValue.split(/\r?\n/).filter((line) => line.trim() !== '') : envValue;
      program.setOptionValueWithSource(name, parsedValue(option, given, envNameOf(option)), 'env');
      sources.set(name, 'env');
    } else if (fromFile.has(name)) {
      program.setOptionValueWithSource(name, parsedValue(option, fromFile.get(name), `${option.long!.slice(2)} in ${file}`), 'config');
      sources.set(name, 'file');
    } else {
      sources.set(name, 'default');
    }
  }
  return sources;
}

/** --config, PETSTORE_CONFIG, or the default file when it is there. */
function configFile(program: Command, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const named = (program.opts().config as string | undefined) ?? (env.PETSTORE_CONFIG || undefined);
  if (named !== undefined) return named;
  const found = `${cwd}/${DEFAULT_CONFIG_FILE}`;
  return existsSync(found) ? found : undefined;
}

/** The file's settings by attribute name, each key written as its flag (base-url) or in camelCase (baseUrl), ${VAR}s filled in. */
function readConfigFile(path: string, options: readonly Option[], env: NodeJS.ProcessEnv): Map<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the config file ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}): name a readable YAML file with --config`);
  }
  let document: unknown;
  try {
    document = parseYaml(text, { maxAliasCount: 0 }) ?? {};
  } catch (error) {
    throw new UsageError(`the config file ${path} is not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof document !== 'object' || Array.isArray(document) || document === null) throw new UsageError(`the config file ${path} must be a mapping of option names to values, e.g. base-url: https://staging.example.com/v1`);
  const byKey = new Map(options.flatMap((option) => [[option.long!.slice(2), option], [option.attributeName(), option]] as const));
  const settings = new Map<string, unknown>();
  for (const [key, value] of Object.entries(document)) {
    const option = byKey.get(key);
    if (!option) throw new UsageError(`the config file ${path} names ${JSON.stringify(key)}, which is no option; it takes ${options.map((each) => each.long!.slice(2)).join(', ')}`);
    settings.set(option.attributeName(), substituted(ONE_PER_LINE.has(option.attributeName()) ? headerLines(value) : value, env, `${key} in ${path}`));
  }
  return settings;
}

/**
 * `header:` in the file, as a list of 'Name: value' strings or a mapping of names to values (the YAML a person
 * writes for headers); either becomes the lines --header takes.
 */
function headerLines(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.entries(value).map(([name, each]) => `${name}: ${typeof each === 'string' ? each : JSON.stringify(each)}`);
}

/** ${VAR} in a string (or in each string of a list) replaced by the variable; one that is not set is refused, never left empty. */
function substituted(value: unknown, env: NodeJS.ProcessEnv, where: string): unknown {
  if (Array.isArray(value)) return value.map((item) => substituted(item, env, where));
  if (typeof value !== 'string') return value;
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const set = env[name];
    if (set === undefined) throw new UsageError(`${where} uses \${${name}}, and ${name} is not set`);
    return set;
  });
}

/** A value from the environment or the file, through the flag's parser: as if it had been written on the command line. */
function parsedValue(option: Option, value: unknown, where: string): unknown {
  if (option.isBoolean()) {
    if (typeof value === 'boolean') return value;
    const text = String(value).trim().toLowerCase();
    if (['true', '1', 'yes'].includes(text)) return true;
    if (['false', '0', 'no'].includes(text)) return false;
    throw new UsageError(`${where} must be true or false, not ${JSON.stringify(value)}`);
  }
  const items = Array.isArray(value) ? value.map(String) : [typeof value === 'object' ? JSON.stringify(value) : String(value)];
  if (!option.parseArg) return items.join(',');
  // A list option (--only) folds each item into the ones before, as repeated flags do.
  return items.reduce<unknown>((previous, item) => option.parseArg!(item, previous), option.defaultValue);
}

/** A value as --print-config shows it: a list joined, a URL without the user and password it may carry. */
function shownValue(value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '(none)';
  if (Array.isArray(value)) return value.join(',');
  const text = String(value);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? withoutCredentials(text) : text;
}

/** The headers of --header by name alone, their values not shown (a line without a colon, not at all). */
function headerNames(lines: readonly string[]): string {
  if (lines.length === 0) return '(none)';
  return `${lines.map((line) => (line.indexOf(':') > 0 ? line.slice(0, line.indexOf(':')).trim() : '(a line that is not Name: value)')).join(', ')} (values not shown)`;
}

/**
 * What --print-config prints: the config file read, then each option, its value and where it came from (the
 * variable named, for one from the environment); a secret only as set or not, a URL without its credentials.
 */
export function describeConfig(program: Command, sources: ConfigSources): string {
  const values = program.opts();
  const head = [
    `# config file: ${sources.file ?? `none (no --config, no PETSTORE_CONFIG, no ${DEFAULT_CONFIG_FILE} here)`}`,
    '# each option: its value (where it came from); each can come from its flag, PETSTORE_<OPTION> or the file',
  ];
  const lines = configurable(program).map((option) => {
    const name = option.attributeName();
    const value = values[name];
    const source = sources.get(name) ?? 'default';
    const shown = SECRET_OPTIONS.has(name) ? (value !== undefined || source === 'env' ? '(set; not shown)' : '(none)')
      : ONE_PER_LINE.has(name) ? headerNames(value as string[])
        : source === 'default' && DEFAULT_SHOWN[name] ? DEFAULT_SHOWN[name](values)
          : shownValue(value);
    const from = source === 'env' ? `env ${envNameOf(option)}` : source;
    return `${option.long!.slice(2)}: ${shown}  (${from})`;
  });
  return `${[...head, ...lines].join('\n')}\n`;
}

/** Defaults that the resolver decides, shown as it will: no --reporter writes every report; --read-only has no 429 probe. */
const DEFAULT_SHOWN: Record<string, (values: Record<string, unknown>) => string> = {
  reporter: () => 'all',
  only: () => 'every rule',
  rateLimitBudget: (values) => (values.readOnly ? `${READ_ONLY_RATE_LIMIT_BUDGET} (the --read-only default)` : String(values.rateLimitBudget)),
};
