import { deselectionReason, getRule } from '../spec/catalog.js';
import type { RunConfig } from '../run-config.js';

/**
 * fast-check builds the tables of the fuzzing arbitraries (every code point a name may hold) in about a
 * second of CPU when they are first loaded. Loaded while the first requests of the run are in flight, that
 * second is spent waiting for a target far away instead of after the checks before fuzzing.
 */
export function warmUpFuzzing(config: RunConfig): void {
  const fuzzed = ['FUZZ-01', 'FUZZ-02'].some((id) => deselectionReason(getRule(id), config) === undefined);
  if (fuzzed) void import('./arbitraries.js');
}
