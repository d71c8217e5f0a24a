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

/** A run of checks in the order their suite declares them: consecutive concurrent checks together, any other alone. */
type Lane = readonly Check[];

/**
 * Runs the checks of one run on its context, in two stages.
 *
 * First the areas that send requests of their own and judge their own answers: each area is a lane that takes its
 * checks in the order it declares them (what reads what), one area after another in catalog order. Within an area,
 * consecutive concurrent checks are in flight together. Areas are not run side by side: what a check asks often
 * rests on what the run has learnt so far (the highest pet id, how many pets of a status it has seen, the fixtures
 * the checks take turns to create), and with areas interleaved by timing, neither a second run nor `verify`'s
 * replay of the recording could ask the same; the run would not be judged alike twice.
 *
 * Then, one after another in catalog order, what judges the whole run: each check marked `wholeRun` (every 401 the run
 * saw, every id it was answered) and each area made of such checks (the store model, the errors, the rate limits, the
 * 429 probe last). They see every exchange the first stage recorded, whatever order its answers came in, so their
 * verdict does not depend on timing.
 *
 * Every outcome is an event, passed on in catalog order whatever order the checks ended in; the results come back too.
 */
export async function runSuites(run: RunContext, suites: readonly Suite[], emit: RunEvents): Promise<CheckResult[]> {
  const inCatalogOrder = suites.flatMap((each) => each.checks).sort((a, b) => catalogIndex(a) - catalogIndex(b));
  const ended = new Map<Check, CheckResult>();
  const results: CheckResult[] = [];
  let passedOn = 0;
  const judge = async (check: Check): Promise<void> => {
    ended.set(check, await timed(check, run, emit));
    // In order: a check that ends before one ahead of it in the catalog waits for it.
    for (let next = inCatalogOrder[passedOn]; next && ended.has(next); next = inCatalogOrder[++passedOn]) {
      results.push(ended.get(next)!);
      emit({ kind: 'check-ended', result: ended.get(next)! });
    }
  };

  const sending = suites.filter((each) => !each.wholeRun);
  const order = sending.map((each) => each.area);
  // What a check waits for (`after`) has ended before its area begins; one that waits for an area run after its own is
  // declared in the wrong order: a bug of ours, refused before any request.
  for (const each of sending) {
    const late = each.checks.flatMap((check) => check.after.filter((area) => order.indexOf(area) > order.indexOf(each.area)).map((area) => `${check.rule.id} waits for the ${area} area, which runs after its own`));
    if (late.length > 0) throw new Error(late.join('; '));
  }
  for (const each of sending) await runLane(each.checks.filter((check) => !check.wholeRun), judge);
  const judgingTheRun = suites.flatMap((each) => (each.wholeRun ? [] : each.checks.filter((check) => check.wholeRun)));
  await runLane(judgingTheRun.map(alone), judge);
  const byCatalog = (a: Suite, b: Suite) => catalogIndex(a.checks[0]!) - catalogIndex(b.checks[0]!);
  for (const each of suites.filter((one) => one.wholeRun && one.checks.length > 0).sort(byCatalog)) await runLane(each.checks, judge);
  return results;
}

/** The check as one that runs alone: a whole-run check judges after the others of its kind, never beside them. */
function alone(check: Check): Check {
  return check.concurrent ? { ...check, concurrent: false } : check;
}

/** Takes a lane's checks in turn: consecutive concurrent ones together (at most CHECKS_AT_ONCE), any other alone. */
async function runLane(lane: Lane, judge: (check: Check) => Promise<void>): Promise<void> {
  for (const group of groupsOf(lane)) {
    if (group.concurrent) await inTurns(group.checks, CHECKS_AT_ONCE, judge);
    else for (const check of group.checks) await judge(check);
  }
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
function groupsOf(checks: Lane): Array<{ concurrent: boolean; checks: Check[] }> {
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
