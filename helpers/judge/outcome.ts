import { curlFor, describeExchange, type Exchange } from '../http/exchange.js';
import { NoAnswer, type NoAnswerReason } from '../http/no-answer.js';

/**
 * What became of one check: the rule held, the target broke it, it could not be judged for a reason the
 * reader can act on (skipped) or because the target broke first (errored), no run could judge it on this
 * target (not-applicable: what the target holds leaves the rule's situation out of every run's reach, such as a
 * store so full that no page can show a pet a run creates), or the suite's own code broke (suite-error: a bug
 * of petstore-conformance, which says nothing of the target).
 */
export type Outcome = 'passed' | 'failed' | 'skipped' | 'not-applicable' | 'errored' | 'suite-error';

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
  /** The shrunk body; for a sequence (FUZZ-03), its shrunk commands, one a line. */
  body: string;
  /** The command line that replays the run's fuzzing. */
  replay: string;
  /**
   * A sequence's replay script (FUZZ-03): a comment with the seed, then for each command a comment and its
   * curl line (requests in flight together joined by `&`), the key left as $PETSTORE_API_KEY.
   */
  script?: string;
  /**
   * The rules a sequence's last answer broke (FUZZ-03): the statement it failed first, then any other the same
   * answer broke. A report reader (the mutation harness too) finds them here without parsing the message.
   */
  breaks?: string[];
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

/** What a check came to: its rule's record, which the engine hands to every consumer of the run. */
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

/**
 * Where a check puts what it finds: the check's context, or a part of the check whose findings are kept apart
 * (a fuzz probe, a part judged with others in turn). Recording a finding never ends anything: the check
 * decides whether to go on.
 */
export interface Findings {
  /** Records that the server broke the rule, stated by its facts. */
  violation(facts: ViolationFacts): void;
}

/** One finding as a report carries it: its message rendered from its facts, expected and seen, the cause key, the exchanges with their curl lines. */
export function evidenceOf(facts: ViolationFacts): Evidence {
  return {
    message: violationMessage(facts),
    expected: facts.expected,
    seen: facts.body === undefined ? facts.seen : `${facts.seen}; body ${facts.body}`,
    cause: { expected: facts.expected, seen: facts.seen },
    exchanges: (facts.exchanges ?? []).map(toEvidence),
    counterexample: facts.counterexample,
  };
}

/** The one line a rule's findings read as: the finding's own message, or "3 violations: first; second; third". */
export function findingsMessage(findings: readonly ViolationFacts[]): string {
  const messages = findings.map(violationMessage);
  return messages.length === 1 ? messages[0]! : `${messages.length} violations: ${messages.join('; ')}`;
}

/**
 * The rule could not be judged: the base of every error that says so, which carries the outcome it means.
 * `skipped`: for a reason the reader can act on (an option, a spent budget, a cancelled run).
 * `errored`: the target broke before the rule could be judged (no answer, no fixture).
 */
export abstract class NotJudged extends Error {
  abstract readonly outcome: 'skipped' | 'not-applicable' | 'errored';

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

/**
 * No run could judge the rule on this target, as the run's own answers show: what the target holds puts the
 * situation the rule speaks of out of reach (a store whose every page is full of older pets never lists one a run
 * creates, and the spec shows no paging beyond limit). The reason says what the target showed and what target would
 * judge it. It leaves a verdict certified: nothing a rerun could do would judge more.
 */
export class NotApplicable extends NotJudged {
  override name = 'NotApplicable';
  readonly outcome = 'not-applicable';
}

// Only a mistake in code can throw these: the target's bytes reach our code as parsed values and findings,
// never as a TypeError. A plain Error (a fixture the target would not create) stays the target's.
const PROGRAMMING_ERRORS = ['TypeError', 'ReferenceError', 'RangeError', 'SyntaxError', 'AssertionError'];

/**
 * What each reason the client gives for leaving a request unanswered means for the rule: an option, a budget or a
 * cancellation the reader can act on is a skip; a target that broke first leaves the rule errored.
 */
const OUTCOME_OF_NO_ANSWER: Record<NoAnswerReason, 'skipped' | 'errored'> = {
  cancelled: 'skipped', budget: 'skipped', 'wait-too-long': 'skipped', 'read-only': 'skipped',
  transport: 'errored', 'rate-limited': 'errored', 'not-judgeable': 'errored',
};

/** What a check that threw comes to: only what is no finding is thrown (a skip, a dead target, a bug of ours). */
export function outcomeOfThrown(error: unknown): 'skipped' | 'not-applicable' | 'errored' | 'suite-error' {
  if (error instanceof NotJudged) return error.outcome;
  if (error instanceof NoAnswer) return OUTCOME_OF_NO_ANSWER[error.reason];
  if (error instanceof Error && PROGRAMMING_ERRORS.includes(error.name)) return 'suite-error';
  return 'errored';
}

/** The request that showed why a check could not be judged, when the error that ended it names one. */
export function exchangeOfThrown(error: unknown): Exchange | undefined {
  return error instanceof NotJudged || error instanceof NoAnswer ? error.exchange : undefined;
}

export function toEvidence(exchange: Exchange): ExchangeEvidence {
  return { exchange, curl: curlFor(exchange.request) };
}
