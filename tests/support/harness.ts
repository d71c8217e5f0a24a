// What the mutation harness and the gallery share: how many CLI children may run at once, and how a
// report is compared with what a server switch promises.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report, RuleResult } from '../../cli/reports/report.js';
import { MUTATIONS, VALID_SHAPES } from '../../helpers/fuzz/arbitraries.js';
import { isFailing } from '../../helpers/judge/outcome-meaning.js';
import { activeRules } from '../../helpers/spec/catalog.js';
import type { ReferenceServerOptions } from '../../server/options.js';
import type { ServerSettings } from '../../server/settings.js';

/**
 * The options of a fuzzing sample: one body of each class, each mutation of FUZZ-01 and each valid shape of FUZZ-02,
 * instead of the defaults' 110 random bodies. For runs whose point is elsewhere than the fuzzing rules' random volume.
 */
export const FUZZING_SAMPLE: readonly string[] = ['--fuzz-runs', String(MUTATIONS.length), '--fuzz-valid-runs', String(VALID_SHAPES.length)];

/**
 * The fuzzing rules whose bodies are drawn at random, each with the kind it draws them by (a defect's
 * `mishandlesEvery` names one) and the names of that kind in helpers/fuzz/arbitraries.ts.
 */
export const FUZZING_KINDS = [
  { rule: 'FUZZ-01', kind: 'mutation', names: MUTATIONS.map((mutation) => mutation.name) },
  { rule: 'FUZZ-02', kind: 'shape', names: VALID_SHAPES.map((shape) => shape.shape) },
] as const;

/** Levels that can turn a verdict (INFO never fails, so it never counts for or against a switch). */
export const JUDGED_LEVELS = ['MUST', 'SHOULD'] as const;

/**
 * 400 a minute for a harness run whose switch sets no limit of its own: a custom limit, as the spec lets its
 * Enterprise plan have. A run's checks send some 300 to 340 requests (357 for the read-lag variant, the most
 * measured over every defect and variant), which must fit in one window: at the Pro plan's 300 many runs waited
 * out a 60 s window before the probe (63 s instead of 3). The 429 probe sends what is left of the window, so the
 * limit is what a run costs: at 500 the probe sent some 200 requests, at 400 some 100, and every rate-limit
 * defect still meets a probe that reaches its 429.
 */
const HARNESS_LIMIT_PER_MINUTE = 400;

/**
 * 240 a minute for a harness run of the rate-limit checks whose fuzzing sends one body of each kind (or that holds
 * no fuzzing): without the defaults' 110 random bodies a whole run's checks send some 210 requests, of which some
 * 175 count against the key (those without a valid one do not), so they fit in one window with some 60 to spare,
 * and the probe sends some 65 requests, where the harness limit left it some 125.
 */
const SAMPLED_LIMIT_PER_MINUTE = 240;

/**
 * A window for a run of the rate-limit checks alone: their 429 probe sends what is left of the window, so a
 * small one keeps it to a few dozen requests (against some 460 at the harness limit), and a short one keeps
 * Retry-After to a second or two. Only for them: other areas' checks would be paced through it, and a defect
 * that breaks the pacing (a Reset in milliseconds) would then leave them waiting instead of judging.
 */
const SMALL_WINDOW = { limit: 30, windowMs: 1_500 };

/**
 * The areas whose checks send few requests before the 429 probe: under 50 together, measured over every defect
 * run that holds the rate-limit checks with no other area than these (the runs there are hold requests, errors
 * and fuzzing at one body of each class; store, versioning and consistency send under 5 each in a whole run).
 */
const FEW_REQUEST_AREAS: ReadonlySet<string> = new Set(['ratelimit', 'requests', 'errors', 'consistency', 'store', 'versioning', 'fuzzing']);

/**
 * A minute's window for a run of the rate-limit checks beside such areas only. Their checks fit in it twice over,
 * so none is ever paced (a defect that breaks the pacing cannot leave them waiting), and the probe sends what is
 * left of it: some 60 requests, where the harness limit left it some 370.
 */
const FEW_REQUESTS_WINDOW = { limit: 100, windowMs: 60_000 };

/**
 * The rate limit a harness run certifies against, unless its switch sets its own: a small window for a run of
 * the rate-limit area alone, a minute of 100 for one beside areas that send few requests (`fuzzingSampled`: its
 * fuzzing sends one body of each class, not the defaults' 110), 240 for any other with the rate-limit area and
 * no more fuzzing than that, the harness limit for the rest.
 */
export function harnessPlan(switchSettings: Partial<ServerSettings> | undefined, areas?: readonly string[], fuzzingSampled = false): ReferenceServerOptions {
  if (switchSettings?.rateLimit) return {};
  const rateLimitAlone = areas?.length === 1 && areas[0] === 'ratelimit';
  if (rateLimitAlone) return { rateLimit: SMALL_WINDOW };
  // A run without the rate-limit checks sends no probe, so a smaller window would save nothing; it only has to hold the checks.
  const probed = areas === undefined || areas.includes('ratelimit');
  const fewBodies = fuzzingSampled || (areas !== undefined && !areas.includes('fuzzing'));
  if (!probed || !fewBodies) return { rateLimit: { limit: HARNESS_LIMIT_PER_MINUTE, windowMs: 60_000 } };
  const fewRequests = areas !== undefined && areas.every((area) => FEW_REQUEST_AREAS.has(area));
  return { rateLimit: fewRequests ? FEW_REQUESTS_WINDOW : { limit: SAMPLED_LIMIT_PER_MINUTE, windowMs: 60_000 } };
}

/**
 * At most this many full certifications run at once on the whole machine. Each is a suite engine plus a
 * server, and spends part of its time waiting (a read-after-write backoff, a rate-limit window). Since an
 * engine keeps its suite thread between runs, a run spends less of its time starting: on 2 cores `npm test`
 * took 355 s with 3 slots, 330 s with 4 and 330 s with 5, where each run shares the cores with one more.
 */
export const MAX_CHILDREN = 4;

// Slots are directories, so vitest workers (separate processes) and concurrent `npm test` runs of
// other people share one bound; a slot whose owner died is taken over.
const SLOT_DIR = join(tmpdir(), 'petstore-conformance-harness-slots');
const SLOT_POLL_MS = 250;
const PIDLESS_GRACE_MS = 10_000;

/** Runs `work` once one of the machine-wide MAX_CHILDREN slots is free. */
export async function withChildSlot<T>(work: () => Promise<T>): Promise<T> {
  const slot = await acquireSlot();
  try {
    return await work();
  } finally {
    rmSync(slot, { recursive: true, force: true });
    wakeOneWaiter();
  }
}

/**
 * This process's tests waiting for a slot. A slot freed here goes to one of them at once; one freed by another
 * process is found by polling. The harness hands over some 270 slots a run, and a poll's half-interval each
 * (125 ms) left three slots idle for some ten seconds of it.
 */
const waiters = new Set<() => void>();

function wakeOneWaiter(): void {
  const [first] = waiters;
  if (first === undefined) return;
  waiters.delete(first);
  first();
}

/** withChildSlot, also timing the work alone: a run's cost without its wait for a slot. */
export async function timedInChildSlot<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  return withChildSlot(() => timed(work));
}

/** The work's result and how long it took. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

async function acquireSlot(): Promise<string> {
  mkdirSync(SLOT_DIR, { recursive: true });
  for (;;) {
    for (let index = 0; index < MAX_CHILDREN; index += 1) {
      const slot = join(SLOT_DIR, `slot-${index}`);
      if (tryTake(slot)) return slot;
    }
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, SLOT_POLL_MS);
      waiters.add(wake);
    });
  }
}

function tryTake(slot: string): boolean {
  try {
    mkdirSync(slot);
  } catch {
    if (!ownerAlive(slot)) rmSync(slot, { recursive: true, force: true });
    return false;
  }
  try {
    writeFileSync(join(slot, 'pid'), String(process.pid));
  } catch (error) {
    // Another process read the pid of this slot's last owner, dead by then, and removed the slot just as this one
    // took it: not taken after all, and the next turn tries again.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  return true;
}

function ownerAlive(slot: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(slot, 'pid'), 'utf8'));
  } catch {
    // Just created and the pid not yet written, unless its owner died in between long ago.
    try {
      return Date.now() - statSync(slot).mtimeMs < PIDLESS_GRACE_MS;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A rule row of a report, the part a diff shows. */
export interface RuleLine {
  id: string;
  level: string;
  status: string;
  message?: string;
}

export interface RuleDiff {
  /** Named by the switch, but not failed (passed, skipped, errored or absent). */
  missing: RuleLine[];
  /** Failed or errored, but not named by the switch. */
  unexpected: RuleLine[];
}

/** The MUST and SHOULD rules a report shows as failed or errored: what a user would be told is broken. */
export function brokenRules(report: Report | undefined): RuleResult[] {
  return (report?.rules ?? []).filter((rule) => isJudged(rule) && isFailing(rule.status));
}

/**
 * Compares a report with the rules a switch says must fail; an errored rule is never a catch. `byChance`
 * names rules that may fail too, depending on the fuzzing seed: neither a catch nor a false alarm. So does
 * the exploration when all it found breaks a rule the switch names (see `findsOnlyNamed`).
 */
export function diffAgainst(expected: readonly string[], report: Report | undefined, byChance: readonly string[] = []): RuleDiff {
  const rows = new Map((report?.rules ?? []).map((rule) => [rule.id, rule]));
  const named = new Set([...expected, ...byChance]);
  const missing = expected
    .filter((id) => rows.get(id)?.status !== 'failed')
    .map((id) => lineOf(rows.get(id)) ?? { id, level: '?', status: 'absent from the report' });
  const unexpected = brokenRules(report)
    .filter((rule) => !named.has(rule.id) && !findsOnlyNamed(rule, expected))
    .map((rule) => lineOf(rule)!);
  return { missing, unexpected };
}

/** The rule of the stateful exploration, whose failure names the statement a sequence broke. */
const EXPLORATION_RULE = 'FUZZ-03';

/**
 * The exploration (FUZZ-03) judges every statement of the spec again on the sequences its seed draws. A
 * generated sequence that meets the defect (a filtered page without a limit, on a seed that lists one) fails
 * FUZZ-03 with a statement the defect is already named for: the same defect found twice, on some seeds and
 * not others. That is neither a catch nor a false alarm; a FUZZ-03 finding that breaks any other rule still is
 * one. A defect its fixed sequences catch on every seed names FUZZ-03 itself. What each sequence broke is read
 * from its counterexample (`breaks`), not from the message.
 */
function findsOnlyNamed(rule: RuleResult, expected: readonly string[]): boolean {
  if (rule.id !== EXPLORATION_RULE || rule.status !== 'failed' || rule.evidence.length === 0) return false;
  // Each failing sequence names the rules its last answer broke; a finding that names none is no corroboration.
  return rule.evidence.every((evidence) => {
    const broken = evidence.counterexample?.breaks ?? [];
    return broken.length > 0 && broken.every((id) => expected.includes(id));
  });
}

export function isCaught(diff: RuleDiff): boolean {
  return diff.missing.length === 0 && diff.unexpected.length === 0;
}

/** The diff as a person reads it: which IDs are missing or unexpected, each with what the report said. */
export function formatDiff(title: string, diff: RuleDiff): string {
  const section = (heading: string, lines: RuleLine[]) =>
    lines.length === 0 ? [] : [`  ${heading}:`, ...lines.map((line) => `    ${line.id} [${line.level}] ${line.status}${line.message ? `: ${firstLine(line.message)}` : ''}`)];
  return [
    title,
    ...section('missing (named, but not reported failed)', diff.missing),
    ...section('unexpected (reported failed or errored, but not named)', diff.unexpected),
  ].join('\n');
}

function lineOf(rule: RuleResult | undefined): RuleLine | undefined {
  return rule && { id: rule.id, level: rule.level, status: rule.status, message: rule.message };
}

function isJudged(rule: RuleResult): boolean {
  return (JUDGED_LEVELS as readonly string[]).includes(rule.level);
}

// Messages can carry a whole exchange; the diff wants one readable line per rule.
function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The rules whose failures come from generated inputs, each to be explained by a counterexample: the fuzzing area's, as the catalog says. */
const FUZZING_RULES = activeRules().filter((rule) => rule.area === 'fuzzing').map((rule) => rule.id);

/**
 * What a fuzzing failure lacks to explain itself: every failed fuzzing rule must show a shrunk counterexample
 * drawn under the run's own seed, with a command line that replays it under that seed, and the terminal must
 * print that line. Empty when each does.
 */
export function unexplainedFuzzing(run: { stdout: string; report?: Report }): string[] {
  const seed = run.report?.options.seed;
  const failed = (run.report?.rules ?? []).filter((rule) => FUZZING_RULES.includes(rule.id) && rule.status === 'failed');
  return failed.flatMap((rule) => {
    const examples = rule.evidence.flatMap((evidence) => (evidence.counterexample ? [evidence.counterexample] : []));
    if (examples.length === 0) return [`${rule.id} failed without a counterexample`];
    return [
      ...examples.flatMap((example) => [
        ...(example.seed === seed ? [] : [`${rule.id}: a counterexample under seed ${example.seed}, the run's is ${String(seed)}`]),
        ...(example.replay.includes(`--seed ${String(seed)}`) ? [] : [`${rule.id}: a replay line without --seed ${String(seed)}: ${example.replay}`]),
      ]),
      // The terminal shows a rule's first causes, not all: one replay line of the rule's is enough.
      ...(examples.some((example) => run.stdout.includes(`replay: ${example.replay}`)) ? [] : [`${rule.id}: the terminal shows no replay line`]),
    ];
  });
}

/** When a run wrote no report, the end of its output says why. */
export function outputTail(run: { stdout: string; stderr: string }, lines = 15): string {
  return `${run.stdout}\n${run.stderr}`.trim().split('\n').slice(-lines).join('\n');
}
