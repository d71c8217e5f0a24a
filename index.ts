/**
 * The programmatic API, for teams that drive the suite from their own code or test runner.
 * It is the CLI without argv: the same options (camelCase names, same defaults, same checks), the same
 * run, the same reports written, and it resolves to the object report.json holds.
 */
import type { Report } from './cli/reports/report.js';
import { resolveRunOptions, type ConformanceOptions } from './cli/resolve-options.js';
import { certify } from './cli/run.js';

export type { ConformanceOptions, RunOptions } from './cli/resolve-options.js';
export type { Report, RuleResult, Verdict } from './cli/reports/report.js';
export { UsageError } from './cli/resolve-options.js';
export { TargetUnreachable } from './cli/failure.js';
export {
  startReferenceServer,
  type Answer,
  type Overrides,
  type ReferenceServerOptions,
  type RunningReferenceServer,
  type Seams,
} from './server/reference-server.js';

/**
 * Certifies one target (the bundled reference server when no baseUrl is given) and writes the
 * reports (report.json, junit.xml, …) into reportDir. A failed rule is a verdict, not an exception:
 * check `report.verdict` or `report.exitCode`. Rejects with UsageError for options the CLI
 * would refuse (before anything is sent), and with TargetUnreachable when the target cannot be reached.
 */
export async function runConformance(options: ConformanceOptions = {}): Promise<Report> {
  return (await certify(resolveRunOptions(options, process.env, 'api'))).report;
}
