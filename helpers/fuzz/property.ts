// Runs one fast-check property against the target, where every run and every shrink step is a request.
// The runs' values are a function of the seed alone, so they are generated first and sent together;
// shrinking, where each step depends on the last answer, stays one request at a time.
import fc from 'fast-check';
import type { ViolationFacts } from '../judge/outcome.js';

export interface FuzzBudget {
  seed: number;
  runs: number;
  /** Most shrink steps (requests) spent on the failure, so that shrinking is effective but finite. */
  maxShrinks: number;
}

/**
 * Sends one value and judges the answer: the finding it breaks the rule with, or undefined when it holds. What
 * it throws is no verdict (the target cannot be reached, the request budget is spent) and stops the run.
 */
export type Probe<T> = (value: T) => Promise<ViolationFacts | undefined>;

/** The smallest failing value the shrink budget found, with the finding the target's answer to it showed. */
export interface FuzzFailure<T> {
  value: T;
  finding: ViolationFacts;
  /** Failing values found while shrinking. */
  shrinks: number;
  /** Steps (requests) shrinking took. */
  shrinkSteps: number;
  /** fast-check's replay path of `value` under `seed`. */
  path: string;
}

/** How the target answered one generated value: fine, a violation, or something that is no verdict at all. */
type RunOutcome = { kind: 'passed' } | { kind: 'violated'; finding: ViolationFacts } | { kind: 'stopped'; error: unknown };

/** The runs of one property, generated from the seed and sent: what shrinking starts from. */
export interface SentRuns<T> {
  arbitrary: fc.Arbitrary<T>;
  budget: FuzzBudget;
  /** In fast-check's order, so the first failure is the one a one-at-a-time run would have met first. */
  values: readonly T[];
  outcomes: readonly RunOutcome[];
}

/** The values fast-check tries, in order, for `runs` runs of `seed`: generated without a request. */
export function generatedValues<T>(arbitrary: fc.Arbitrary<T>, seed: number, runs: number): T[] {
  const values: T[] = [];
  if (runs <= 0) return values;
  fc.check(fc.property(arbitrary, (value) => {
    values.push(value);
    return true;
  }), { seed, numRuns: runs });
  return values;
}

/**
 * Generates the runs from the seed and sends every one at once; the client keeps --concurrency in flight.
 * The same seed sends the same multiset of values whatever order the answers come back in. `onSend` hears
 * each generated run as it goes (the run's progress line), not the shrink steps.
 */
export async function sendGenerated<T>(arbitrary: fc.Arbitrary<T>, budget: FuzzBudget, probe: Probe<T>, onSend: () => void = () => {}): Promise<SentRuns<T>> {
  const values = generatedValues(arbitrary, budget.seed, budget.runs);
  const outcomes = await Promise.all(values.map(async (value): Promise<RunOutcome> => {
    onSend();
    const finding = await probe(value).catch((error: unknown) => ({ error }));
    if (finding === undefined) return { kind: 'passed' };
    return 'error' in finding ? { kind: 'stopped', error: finding.error } : { kind: 'violated', finding };
  }));
  return { arbitrary, budget, values, outcomes };
}

/**
 * Replays the property under the same seed with the answers already seen, so fast-check meets the first
 * failure exactly where a one-at-a-time run would; from there each shrink step is a real request, in turn, and
 * a step whose probe returns a finding is a failing run (the predicate returns false). Anything the probe
 * throws (the target cannot be reached, the request budget is spent) before the first failure stops the run and
 * is rethrown: that is no counterexample.
 */
export async function shrinkFirstFailure<T>(sent: SentRuns<T>, probe: Probe<T>): Promise<FuzzFailure<T> | undefined> {
  const { arbitrary, budget, outcomes } = sent;
  const firstFailure = outcomes.findIndex((outcome) => outcome.kind !== 'passed');
  if (firstFailure === -1) return undefined;
  const first = outcomes[firstFailure]!;
  if (first.kind === 'stopped') throw first.error;
  if (first.kind !== 'violated') return undefined;
  let run = 0;
  let last: { value: T; finding: ViolationFacts } | undefined;
  let shrinkSteps = 0;
  let stopped: { error: unknown } | undefined;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    if (!last) {
      // A generated run: its answer is known. Runs before the first failure passed; that one fails again.
      const index = run++;
      if (index < firstFailure) return true;
      last = { value, finding: first.finding };
      return false;
    }
    // Once stopped or out of budget, fast-check is interrupted: it keeps the last failure as the
    // counterexample and ends. (Letting every further candidate pass instead walked the whole rest of the
    // shrink tree without a request: for a long string, seconds of CPU.) fast-check has no way to interrupt
    // but this exception of its own, which it catches itself.
    if (stopped || shrinkSteps >= budget.maxShrinks) throw new fc.PreconditionFailure(true);
    shrinkSteps += 1;
    const finding = await probe(value).catch((error: unknown) => {
      stopped = { error };
      return undefined;
    });
    if (finding === undefined) return true;
    last = { value, finding };
    return false;
  });
  const details = await fc.check(property, { seed: budget.seed, numRuns: budget.runs });
  if (stopped) throw stopped.error;
  if (!details.failed || !last) return undefined;
  return { ...last, shrinks: details.numShrinks, shrinkSteps, path: details.counterexamplePath ?? '' };
}
