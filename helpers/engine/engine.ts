import { activeRules } from '../spec/catalog.js';
import { judgeCheck, type Check, type Suite } from '../judge/check.js';
import type { RuleMeta } from '../judge/outcome.js';
import type { RunContext } from '../run-context.js';
import type { CheckResult, RunEvents } from './events.js';

/**
 * Most checks of one concurrent group judged at once. The client bounds the requests in flight (--concurrency);
 * this bounds how many checks hold fixtures and pages at once, as the suites were tuned to.
 */
const CHECKS_AT_ONCE = 5;

/**
 * Runs the suites of one run on its context, in the order given (catalog area order: the store model after every
 * area that writes, errors and rate limits after the areas whose answers they judge, the 429 probe last). Inside a
 * suite, consecutive concurrent checks are judged together and every other check alone, in the order the suite declares
 * them. Every outcome is an event, passed on in catalog order whatever order the checks ended in; the results come back too.
 */
export async function runSuites(run: RunContext, suites: readonly Suite[], emit: RunEvents): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const { checks } of suites) {
    // Judged in the order the suite declares (what reads what), passed on in the catalog's.
    const inCatalogOrder = [...checks].sort((a, b) => catalogIndex(a) - catalogIndex(b));
    const ended = new Map<Check, CheckResult>();
    let passedOn = 0;
    const judged = (check: Check, result: CheckResult) => {
      ended.set(check, result);
      // In order: a check that ends before one ahead of it in the catalog waits for it.
      for (let next = inCatalogOrder[passedOn]; next && ended.has(next); next = inCatalogOrder[++passedOn]) {
        const done = ended.get(next)!;
        results.push(done);
        emit({ kind: 'check-ended', result: done });
      }
    };
    for (const group of groupsOf(checks)) {
      const one = async (check: Check) => judged(check, await timed(check, run, emit));
      if (group.concurrent) await inTurns(group.checks, CHECKS_AT_ONCE, one);
      else for (const check of group.checks) await one(check);
    }
  }
  return results;
}

/** Where a check's rule stands in spec/rules.yaml. */
function catalogIndex(check: Check): number {
  return activeRules().indexOf(check.rule);
}

/** One check judged, timed and announced; a throw from the judging itself is a bug of ours, never the target's. */
async function timed(check: Check, run: RunContext, emit: RunEvents): Promise<CheckResult> {
  emit({ kind: 'check-started', rule: check.rule.id });
  const started = performance.now();
  let meta: RuleMeta;
  try {
    meta = await judgeCheck(check, run);
  } catch (error) {
    meta = { ruleId: check.rule.id, outcome: 'suite-error', message: `the engine could not judge the check: ${String(error)}`, observations: [], evidence: [], requests: 0, created: [] };
  }
  return { meta, durationMs: Math.round(performance.now() - started) };
}

/** Consecutive checks that may run together, and each other check on its own. */
function groupsOf(checks: readonly Check[]): Array<{ concurrent: boolean; checks: Check[] }> {
  const groups: Array<{ concurrent: boolean; checks: Check[] }> = [];
  for (const check of checks) {
    const last = groups.at(-1);
    if (last && last.concurrent && check.concurrent) last.checks.push(check);
    else groups.push({ concurrent: check.concurrent, checks: [check] });
  }
  return groups;
}

/** Runs `task` over `items`, at most `atOnce` at a time, each started as soon as a place frees. */
async function inTurns<T>(items: readonly T[], atOnce: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, lane));
}
