/**
 * The programmatic API, for teams that drive the suite from their own code or test runner.
 * It is the CLI without argv: the same options (camelCase names, same defaults), the same run,
 * the same reports written, and it resolves to the object report.json holds.
 */
import { randomInt } from 'node:crypto';
import { baselineOption, checkBaseUrl, checkRuleNames, UsageError } from './cli/options.js';
import type { Report } from './cli/report.js';
import { DEFAULT_OPTIONS, runConformance as runWithAllOptions, type RunOptions } from './cli/run.js';

export type { RunOptions } from './cli/run.js';
export type { Report, RuleResult, Verdict } from './cli/report.js';
export { UsageError } from './cli/options.js';
export { TargetUnreachable } from './cli/preflight.js';
export {
  startReferenceServer,
  type ReferenceServerOptions,
  type RunningReferenceServer,
} from './server/reference-server.js';

/** Any subset of the CLI's options; what is left out takes the CLI's default. */
export type ConformanceOptions = Partial<Omit<RunOptions, 'baseline'>> & {
  /** A baseline file, as --baseline: one rule ID per line that the target is known to fail. */
  baseline?: string;
};

/**
 * Certifies one target (the bundled reference server when no baseUrl is given) and writes the
 * reports (report.json, junit.xml, …) into reportDir. A failed rule is a verdict, not an exception:
 * check `report.verdict` or `report.exitCode`. Rejects with UsageError for options the CLI
 * would refuse, and with TargetUnreachable when the target cannot be reached.
 */
export async function runConformance(options: ConformanceOptions = {}): Promise<Report> {
  const { baseline, ...given } = withoutUndefined(options);
  const resolved: RunOptions = {
    ...DEFAULT_OPTIONS,
    // As the CLI: a fresh seed each run, recorded in report.options so the run can be replayed.
    seed: randomInt(0, 2 ** 31 - 1),
    apiKey: process.env.PETSTORE_API_KEY,
    ...given,
    baseline: baseline === undefined ? undefined : baselineOption(baseline),
  };
  if (resolved.baseUrl !== undefined) {
    resolved.baseUrl = checkBaseUrl(resolved.baseUrl);
    if (!resolved.apiKey) throw new UsageError('no API key: pass apiKey or set PETSTORE_API_KEY');
  }
  checkRuleNames([...resolved.only, ...resolved.skip]);
  if (resolved.writeBaseline !== undefined) baselineOption(resolved.writeBaseline, 'write');
  return (await runWithAllOptions(resolved)).report;
}

// `{ reportDir: undefined }` must mean "the default", not "no report folder".
function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
