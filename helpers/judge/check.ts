import { inject, test, type TestContext } from 'vitest';
import { deselectionReason, getRule, type Rule } from '../spec/catalog.js';
import type { PetstoreClient } from '../http/client.js';
import {
  evidenceOf, findingsMessage, NotJudged, outcomeOfThrown, SkipCheck, toEvidence, type Findings, type RuleMeta, type ViolationFacts,
} from './outcome.js';
import type { RunConfig } from '../run-config.js';
import { RunContext } from '../run-context.js';

export interface CheckContext extends Findings {
  /** The run's context: what the run holds for all its checks (fixtures, shared values, the clock, the channel). */
  run: RunContext;
  /** The run's one client (`run.client`). */
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
  /** Records a pet this check created on the target. */
  recordCreated(id: string): void;
}

/**
 * A vitest test that gets the run's context: made once per run, from the RunConfig the CLI provided, when the
 * run's first check starts (a worker-scoped fixture: the run's one worker keeps it for every suite file), and
 * closed when the worker ends. The context itself is not module state: vitest holds it for the worker.
 */
const checkTest = test.extend<{ run: RunContext }>({
  run: [async ({}, use) => {
    const run = await RunContext.open(inject('runConfig'));
    try {
      await use(run);
    } finally {
      await run.close();
    }
  }, { scope: 'worker' }],
});

/**
 * Declares the check of one catalog rule. The test is titled with the rule's ID and summary, so
 * `vitest -t LIST-02` runs one rule and every report line carries it; an unknown ID throws at collection.
 */
export function check(id: string, body: (ctx: CheckContext) => Promise<void>, options: CheckOptions = {}): void {
  const rule = getRule(id);
  const declare = options.concurrent ? checkTest.concurrent : checkTest;
  // Destructured where it is declared: vitest gives a test the fixtures its first parameter names.
  declare(`${rule.id} ${rule.summary}`, ({ run, task, skip }) => runCheck(rule, body, run, { task, skip }));
}

export interface CheckOptions {
  /**
   * The check may run while its neighbours run: it only reads what the fixtures left, and no check reads
   * what it sends. Consecutive concurrent checks of a suite run together, the client keeping --concurrency
   * requests in flight; a check without it waits for all of them and holds the next ones back.
   */
  concurrent?: boolean;
}

type TestHooks = Pick<TestContext, 'task' | 'skip'>;

async function runCheck(rule: Rule, body: (ctx: CheckContext) => Promise<void>, run: RunContext, testContext: TestHooks): Promise<void> {
  try {
    await judge(rule, body, run, testContext);
  } finally {
    // However the check ended: the CLI waits for every message of the run's channel sent before it.
    testContext.task.meta.runMessages = run.channel.posted;
  }
}

async function judge(rule: Rule, body: (ctx: CheckContext) => Promise<void>, run: RunContext, testContext: TestHooks): Promise<void> {
  const meta: RuleMeta = { ruleId: rule.id, outcome: 'passed', observations: [], evidence: [], requests: 0, created: [] };
  testContext.task.meta.rule = meta;
  // The worker holds the context for its run; a worker kept for another run would judge with the wrong one.
  if (run.config.channel !== inject('runConfig').channel) {
    meta.outcome = 'suite-error';
    meta.message = 'the suite worker holds the context of another run: a bug of the suite engine, not of the target';
    throw new Error(meta.message);
  }
  const { config } = run;
  const client = run.client.forRule(rule.id);
  const skipWith = (reason: string): never => {
    meta.outcome = 'skipped';
    meta.message = reason;
    return testContext.skip(reason);
  };
  const notRun = deselectionReason(rule, config)
    ?? (rule.needs?.includes('write') && config.readOnly ? 'creates pets on the target; not run with --read-only' : undefined);
  if (notRun) skipWith(notRun);

  const cancelled = client.cancellationReason;
  if (cancelled) skipWith(cancelled);
  const findings: ViolationFacts[] = [];
  const context: CheckContext = {
    run, client, config, rule,
    observe: (note) => meta.observations.push(note),
    violation: (facts) => findings.push(facts),
    skip: (reason) => {
      throw new SkipCheck(reason);
    },
    recordCreated: (petId) => meta.created.push(petId),
  };
  try {
    await body(context);
  } catch (error) {
    // What a check throws is no finding (a skip, a dead target, a spent budget, a bug of ours); a violation
    // already recorded stands, whatever stopped the check after it.
    if (findings.length === 0) classifyThrown(error, meta, skipWith);
    meta.observations.push(`the check stopped early: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    meta.requests = client.exchanges.filter((exchange) => exchange.rule === rule.id).length;
  }
  if (findings.length > 0) concludeBroken(findings, rule, meta);
}

/**
 * What the engine throws to vitest when a check found its rule broken, so that vitest fails the test: the
 * rule's findings in one line. Only the engine makes one; a check records its findings and never throws them.
 */
class RuleViolation extends Error {
  override name = 'RuleViolation';

  constructor(message: string) {
    super(message);
    // No frames: where the engine threw it says nothing of the target, and vitest maps each frame of a failed
    // test's stack through the source maps of its files (some 2% of what the mutation harness's runs cost).
    this.stack = `${this.name}: ${message}`;
  }
}

/** Turns a check's recorded findings into its outcome: an observation of an INFO rule, else a failure vitest agrees with. */
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
  throw new RuleViolation(message);
}

/** Turns what a check threw, with nothing on record, into its outcome; it rethrows so vitest agrees. */
function classifyThrown(error: unknown, meta: RuleMeta, skipWith: (reason: string) => never): never {
  const outcome = outcomeOfThrown(error);
  if (outcome === 'skipped') skipWith((error as Error).message);
  meta.outcome = outcome;
  meta.message = outcome === 'suite-error' ? describeBug(error as Error) : describeThrown(error);
  const exchange = error instanceof NotJudged ? error.exchange : undefined;
  if (exchange) meta.evidence = [{ message: meta.message, exchanges: [toEvidence(exchange)] }];
  throw error;
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
