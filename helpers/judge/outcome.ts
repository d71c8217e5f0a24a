import { curlFor, describeExchange, type Exchange } from '../http/exchange.js';

/**
 * What became of one check: the rule held, the target broke it, it could not be judged for a reason the
 * reader can act on (skipped) or because the target broke first (errored), or the suite's own code broke
 * (suite-error: a bug of petstore-conformance, which says nothing of the target).
 */
export type Outcome = 'passed' | 'failed' | 'skipped' | 'errored' | 'suite-error';

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

/**
 * What explains a finding, recorded with it: what was expected and what was seen instead, without the case,
 * the request or the body that showed it. Findings with one cause key are one fix (outcome-meaning.ts groups them).
 */
export interface CauseKey {
  expected: string;
  seen: string;
}

export interface Evidence {
  message: string;
  expected?: string;
  seen?: string;
  /** Absent where a finding states no expected and seen (a check that errored), and in reports written before it. */
  cause?: CauseKey;
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
    /** How many messages the run's channel carried from the worker when the check ended (helpers/run-channel.ts). */
    runMessages?: number;
  }
}

/** One finding, each fact stated once: the message a report leads with is rendered from these. */
export interface ViolationFacts {
  /** The case, where a rule judges several: `limit=0`, `createPet 400: 2 of 5 response(s) break the rule`. */
  what?: string;
  expected: string;
  seen: string;
  /** The body behind `seen`, for the report's seen field; the one-line message leaves it out. */
  body?: string;
  /** The exchanges that show it, named at the end of the message: `(GET /v1/pets → 200)`. */
  exchanges?: readonly Exchange[];
  /** How the finding was reached, after the statement: `seed 7, shrunk in 3 step(s)`. */
  note?: string;
  counterexample?: Counterexample;
}

/**
 * The house form of a finding: "limit=0: expected a 4xx, saw 500 (GET /v1/pets?limit=0 → 500)". The
 * "expected …, saw …" statement is the cause a reader fixes, so the case goes before it and the exchanges
 * and the note after it; reports group by the cause key recorded beside the message, never by its text.
 */
export function violationMessage(facts: ViolationFacts): string {
  const exchanges = facts.exchanges ?? [];
  const shownBy = exchanges.length > 0 ? ` (${exchanges.map(describeExchange).join(', then ')})` : '';
  return `${facts.what ? `${facts.what}: ` : ''}expected ${facts.expected}, saw ${facts.seen}${shownBy}${facts.note ? `; ${facts.note}` : ''}`;
}

/** The server broke the rule: the check states what it expected and what it saw. */
export class RuleViolation extends Error {
  override name = 'RuleViolation';
  readonly evidence: Evidence[];
  /** What a single finding was stated as, so that a wrapper (a fuzz counterexample) can restate it. */
  readonly facts?: ViolationFacts;

  private constructor(message: string, evidence: Evidence[], facts?: ViolationFacts) {
    super(message);
    this.evidence = evidence;
    this.facts = facts;
  }

  /** One finding, its message rendered from its facts. */
  static of(facts: ViolationFacts): RuleViolation {
    const message = violationMessage(facts);
    return new RuleViolation(message, [{
      message,
      expected: facts.expected,
      seen: facts.body === undefined ? facts.seen : `${facts.seen}; body ${facts.body}`,
      cause: { expected: facts.expected, seen: facts.seen },
      exchanges: (facts.exchanges ?? []).map(toEvidence),
      counterexample: facts.counterexample,
    }], facts);
  }

  /** Several violations of one rule (one per operation, say), reported together. */
  static combine(violations: RuleViolation[]): RuleViolation {
    if (violations.length === 1) return violations[0]!;
    return new RuleViolation(`${violations.length} violations: ${violations.map((v) => v.message).join('; ')}`, violations.flatMap((v) => v.evidence));
  }
}

/**
 * The rule could not be judged: the base of every error that says so, which carries the outcome it means.
 * `skipped`: for a reason the reader can act on (an option, a spent budget, a cancelled run).
 * `errored`: the target broke before the rule could be judged (no answer, no fixture).
 */
export abstract class NotJudged extends Error {
  abstract readonly outcome: 'skipped' | 'errored';

  /** `exchange`: the request that showed why, when there was one. */
  constructor(message: string, readonly exchange?: Exchange) {
    super(message);
  }
}

/** The rule cannot be judged in this run, for a reason the reader can act on (an option, missing data). */
export class SkipCheck extends NotJudged {
  override name = 'SkipCheck';
  readonly outcome = 'skipped';
}

// Only a mistake in code can throw these: the target's bytes reach our code as parsed values and findings,
// never as a TypeError. A plain Error (a fixture the target would not create) stays the target's.
const PROGRAMMING_ERRORS = ['TypeError', 'ReferenceError', 'RangeError', 'SyntaxError', 'AssertionError'];

/** What a check that threw something other than a violation comes to. */
export function outcomeOfThrown(error: unknown): 'skipped' | 'errored' | 'suite-error' {
  if (error instanceof NotJudged) return error.outcome;
  if (error instanceof Error && PROGRAMMING_ERRORS.includes(error.name)) return 'suite-error';
  return 'errored';
}

export function toEvidence(exchange: Exchange): ExchangeEvidence {
  return { exchange, curl: curlFor(exchange.request) };
}
