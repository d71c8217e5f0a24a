import { curlFor, type Exchange } from './exchange.js';

export type Outcome = 'passed' | 'failed' | 'skipped' | 'errored';

/** An exchange as a report carries it: the record plus the line that reproduces it. */
export interface ExchangeEvidence {
  exchange: Exchange;
  curl: string;
}

/** A fuzz failure: what a vendor needs to replay and fix it. */
export interface Counterexample {
  seed: number;
  path: string;
  mutation?: string;
  body: string;
  replay: string;
}

export interface Evidence {
  message: string;
  expected?: string;
  seen?: string;
  exchanges: ExchangeEvidence[];
  counterexample?: Counterexample;
}

/** What a check hands to the reporter through vitest's task.meta. */
export interface RuleMeta {
  ruleId: string;
  outcome: Outcome;
  message?: string;
  /** INFO findings and notes a passing check wants on record. */
  observations: string[];
  evidence: Evidence[];
  /** Requests this check sent. */
  requests: number;
  /** Pets this check created on the target. */
  created: string[];
}

declare module '@vitest/runner' {
  interface TaskMeta {
    rule?: RuleMeta;
  }
}

/** The server broke the rule: the check states what it expected and what it saw. */
export class RuleViolation extends Error {
  override name = 'RuleViolation';
  readonly evidence: Evidence[];

  constructor(message: string, details: { expected?: string; seen?: string; exchanges?: readonly Exchange[]; counterexample?: Counterexample } = {}) {
    super(message);
    this.evidence = [{
      message,
      expected: details.expected,
      seen: details.seen,
      exchanges: (details.exchanges ?? []).map(toEvidence),
      counterexample: details.counterexample,
    }];
  }

  /** Several violations of one rule (one per operation, say), reported together. */
  static combine(violations: RuleViolation[]): RuleViolation {
    if (violations.length === 1) return violations[0]!;
    const combined = new RuleViolation(`${violations.length} violations: ${violations.map((v) => v.message).join('; ')}`);
    combined.evidence.splice(0, 1, ...violations.flatMap((v) => v.evidence));
    return combined;
  }
}

/** The rule cannot be judged in this run, for a reason the reader can act on (an option, missing data). */
export class SkipCheck extends Error {
  override name = 'SkipCheck';
}

export function toEvidence(exchange: Exchange): ExchangeEvidence {
  return { exchange, curl: curlFor(exchange.request) };
}
