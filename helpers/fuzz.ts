// Runs one fast-check property against the target, where every run and every shrink step is a request.
import fc from 'fast-check';
import { announceProgress } from './client.js';
import { RuleViolation } from './outcome.js';

export interface FuzzBudget {
  seed: number;
  runs: number;
  /** Most shrink steps (requests) spent on the failure, so that shrinking is effective but finite. */
  maxShrinks: number;
}

/** The smallest failing value the shrink budget found, with the violation the target committed on it. */
export interface FuzzFailure<T> {
  value: T;
  violation: RuleViolation;
  /** Failing values found while shrinking. */
  shrinks: number;
  /** Steps (requests) shrinking took. */
  shrinkSteps: number;
  /** fast-check's replay path of `value` under `seed`. */
  path: string;
}

/**
 * Sends `runs` generated values through `probe`, which throws a RuleViolation when the target breaks the
 * rule; the first failure is shrunk within the budget. Anything else the probe throws (the target cannot be
 * reached, the request budget is spent) stops the run and is rethrown: that is no counterexample.
 */
export async function fuzzForViolation<T>(arbitrary: fc.Arbitrary<T>, budget: FuzzBudget, probe: (value: T) => Promise<void>): Promise<FuzzFailure<T> | undefined> {
  if (budget.runs <= 0) return undefined;
  let last: { value: T; violation: RuleViolation } | undefined;
  let shrinkSteps = 0;
  let stopped: { error: unknown } | undefined;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    // Once stopped or out of budget, every candidate "passes" without a request: fast-check then keeps
    // the last failure as the counterexample and ends.
    if (stopped || (last && shrinkSteps >= budget.maxShrinks)) return true;
    if (last) shrinkSteps += 1;
    else announceProgress('fuzzing', 'generated bodies sent');
    try {
      await probe(value);
      return true;
    } catch (error) {
      if (!(error instanceof RuleViolation)) {
        stopped = { error };
        return true;
      }
      last = { value, violation: error };
      throw error;
    }
  });
  const details = await fc.check(property, { seed: budget.seed, numRuns: budget.runs });
  if (stopped) throw stopped.error;
  if (!details.failed || !last) return undefined;
  return { ...last, shrinks: details.numShrinks, shrinkSteps, path: details.counterexamplePath ?? '' };
}
