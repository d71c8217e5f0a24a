import { deselectionReason, getRule, type Area, type Rule } from '../spec/catalog.js';
import type { PetstoreClient } from '../http/client.js';
import {
  evidenceOf, exchangeOfThrown, findingsMessage, NotApplicable, outcomeOfThrown, SkipCheck, toEvidence, type Findings, type RuleMeta, type ViolationFacts,
} from './outcome.js';
import type { RunConfig } from '../run-config.js';
import type { RunContext } from '../run-context.js';

export interface CheckContext extends Findings {
  /** The run's context: what the run holds for all its checks (fixtures, shared values, the clock, the events). */
  run: RunContext;
  /** The run's one client (`run.client`), as this check holds it: every request it sends is put down to its rule. */
  client: PetstoreClient;
  /** What the run was told (`run.config`). */
  config: RunConfig;
  rule: Rule;
  /** Puts a finding on record: the whole point of an INFO rule, a useful note for the others. */
  observe(note: string): void;
  /**
   * Records that the server broke the rule, stated by its facts: the one way a finding is put on record, the
   * expect helpers' too. Nothing ends: the check decides whether to go on, and every broken case is reported.
   */
  violation(facts: ViolationFacts): void;
  /** Ends the check as skipped, with a reason that names what would enable it. */
  skip(reason: string): never;
  /**
   * Ends the check as not applicable: the run's own answers show that no run could judge the rule on this target.
   * The reason says what the target showed, and what target would judge it.
   */
  notApplicable(reason: string): never;
  /** Records a pet this check created on the target. */
  recordCreated(id: string): void;
}

export interface CheckOptions {
  /**
   * The check may run while its neighbours run: it only reads what the fixtures left, and no check reads
   * what it sends. Consecutive concurrent checks of an area run together, the client keeping --concurrency
   * requests in flight; a check without it waits for all of them and holds the next ones back.
   */
  concurrent?: boolean;
  /**
   * The check judges what the whole run sent, beyond its own requests (every 401 the run was answered, every id it
   * was given): it runs once every area that sends has ended, so that it sees all of it whatever their timing.
   */
  wholeRun?: boolean;
  /**
   * Areas whose checks must all have ended before this one begins: it judges by what they sent (every pet they
   * created), and needs all of it. Areas run in catalog order, so these come before its own (the engine refuses others).
   */
  after?: readonly Area[];
}

/** The check of one catalog rule, as a value: its rule, how it may be scheduled, and its body. */
export interface Check {
  readonly rule: Rule;
  readonly concurrent: boolean;
  readonly wholeRun: boolean;
  readonly after: readonly Area[];
  readonly body: (ctx: CheckContext) => Promise<void>;
}

export interface SuiteOptions {
  /**
   * Every check of the area judges what the whole run sent (the store model, the errors, the rate limits): the
   * area runs after every area that sends, in catalog order with the others like it.
   */
  wholeRun?: boolean;
}

/** The suite of one area of the spec: its checks in catalog order, as the engine and the vitest adapter take them. */
export interface Suite {
  readonly area: Area;
  readonly checks: readonly Check[];
  readonly wholeRun: boolean;
}

/** The check of the catalog rule `id`; an unknown ID throws when the area's module loads. */
export function check(id: string, body: (ctx: CheckContext) => Promise<void>, options: CheckOptions = {}): Check {
  return Object.freeze({ rule: getRule(id), concurrent: options.concurrent ?? false, wholeRun: options.wholeRun ?? false, after: Object.freeze([...options.after ?? []]), body });
}

/** An area's suite; a check of another area's rule is a mistake of ours, named when the module loads. */
export function suite(area: Area, checks: readonly Check[], options: SuiteOptions = {}): Suite {
  const stray = checks.find((each) => each.rule.area !== area);
  if (stray) throw new Error(`${stray.rule.id} belongs to the ${stray.rule.area} area, not ${area}`);
  return Object.freeze({ area, checks: Object.freeze([...checks]), wholeRun: options.wholeRun ?? false });
}

/**
 * Judges one check on the run's context: the rule's record, whatever the check did. A check records its
 * findings and never throws them; what it throws is no finding (a skip, a target that stopped answering, a
 * spent budget, a bug of ours), and a finding already on record stands, whatever stopped the check after it.
 */
export async function judgeCheck({ rule, body }: Check, run: RunContext): Promise<RuleMeta> {
  const meta: RuleMeta = { ruleId: rule.id, outcome: 'passed', observations: [], evidence: [], requests: 0, created: [] };
  const { config } = run;
  const client = run.client.forRule(rule.id);
  const notRun = deselectionReason(rule, config)
    ?? (rule.needs?.includes('write') && config.readOnly ? 'creates pets on the target; not run with --read-only' : undefined)
    ?? client.cancellationReason;
  if (notRun) return { ...meta, outcome: 'skipped', message: notRun };

  const findings: ViolationFacts[] = [];
  const context: CheckContext = {
    run, client, config, rule,
    observe: (note) => meta.observations.push(note),
    violation: (facts) => findings.push(facts),
    skip: (reason) => {
      throw new SkipCheck(reason);
    },
    notApplicable: (reason) => {
      throw new NotApplicable(reason);
    },
    recordCreated: (petId) => meta.created.push(petId),
  };
  try {
    await body(context);
  } catch (error) {
    if (findings.length === 0) classifyThrown(error, meta);
    else meta.observations.push(`the check stopped early: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    meta.requests = client.exchanges.filter((exchange) => exchange.rule === rule.id).length;
  }
  if (findings.length > 0) concludeBroken(findings, rule, meta);
  return meta;
}

/** Turns a check's recorded findings into its outcome: an observation of an INFO rule, else a failure. */
function concludeBroken(findings: readonly ViolationFacts[], rule: Rule, meta: RuleMeta): void {
  const message = findingsMessage(findings);
  if (rule.level === 'INFO') {
    // An INFO rule never fails: what it found is an observation.
    meta.observations.push(message);
    return;
  }
  meta.outcome = 'failed';
  meta.message = message;
  meta.evidence = findings.map(evidenceOf);
}

/** Turns what a check threw, with nothing on record, into its outcome. */
function classifyThrown(error: unknown, meta: RuleMeta): void {
  const outcome = outcomeOfThrown(error);
  meta.outcome = outcome;
  const notJudged = outcome === 'skipped' || outcome === 'not-applicable';
  meta.message = notJudged ? (error as Error).message : outcome === 'suite-error' ? describeBug(error as Error) : describeThrown(error);
  const exchange = exchangeOfThrown(error);
  if (exchange && !notJudged) meta.evidence = [{ message: meta.message, exchanges: [toEvidence(exchange)] }];
}

/**
 * A context for one part of a check whose findings are kept apart, for the caller to pass on in its own order
 * or to read (a fuzz probe's finding); all else (the client, observations, skip) is the check's.
 */
export function findingsApart(ctx: CheckContext): { ctx: CheckContext; findings: ViolationFacts[] } {
  const findings: ViolationFacts[] = [];
  return { ctx: { ...ctx, violation: (facts) => findings.push(facts) }, findings };
}

function describeThrown(error: unknown): string {
  return error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
}

/** The error and where our code threw it: what a maintainer needs from the bug report. */
function describeBug(error: Error): string {
  const frame = error.stack?.split('\n').find((line) => /^\s+at /.test(line))?.trim();
  return `${error.name}: ${error.message}${frame ? ` (${frame})` : ''}`;
}
