// The stateful exploration (FUZZ-03) with fast-check's model-based runner: sequences of creates, lists and
// fetches against the target, each answer judged the moment it comes (helpers/explore/judge.ts), so that a
// failure is the command that broke a statement and fast-check can shrink the sequence to the shortest that
// still breaks one. The fixed sequences (one per class, on every seed) and the generated ones (--explore-runs,
// each from its own seed) run together, each in its own lane; once every lane's first run has ended, the
// failing lanes shrink one after another, one attempt at a time, within a budget of requests and pets.
// Every pet is named with the run ID and put on record; with --read-only no create is sent.
import fc from 'fast-check';
import type { SendOptions } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import type { CheckContext } from '../judge/check.js';
import { getPetRemoved } from '../judge/deprecation.js';
import { highestKnownPetId, knownStatusCounts, petName, recordIfCreated } from '../fixtures/pets.js';
import { seedFor } from '../fuzz/arbitraries.js';
import { StoreModel } from '../model/store-model.js';
import { PET_STATUSES } from '../spec/facts.js';
import { getRule } from '../spec/catalog.js';
import {
  BudgetSpent, edgeIdFrom, FIXED_SEQUENCES, type ExploreCommand, GENERATED_COMMANDS, type Budget, type EdgeId, type ExploreModel, type Target,
} from './commands.js';
import { judgeAnswer, type AnswerFinding, type Expectation } from './judge.js';

/** Requests and pets one generated sequence may spend: with the fixed sequences, the default run stays near 34 requests and 10 pets. */
export const GENERATED_BUDGET = { requests: 8, pets: 3 } as const;
/** Commands fast-check may draw for one generated sequence; the budget cuts it where it is spent. */
const MAX_GENERATED_COMMANDS = 12;
// Each shrinking attempt replays a sequence from its start, so it costs requests and pets too: enough to cut a
// sequence to what matters, few enough that a badly broken server costs a bounded number. Only the first
// failing sequence of each broken rule is shrunk: the others breaking it are reported as they ran.
export const SHRINK_BUDGET_PER_FAILURE = { requests: 30, pets: 8 } as const;
export const SHRINK_BUDGET_PER_RULE = { requests: 60, pets: 16 } as const;

/** One command as an attempt ran it: its line, and the exchanges it sent (together, for writes in flight together). */
export interface ExecutedCommand {
  command: string;
  exchanges: Exchange[];
}

/** A sequence that broke a statement, shrunk as far as the budget allowed. */
export interface SequenceFailure {
  lane: string;
  about: string;
  /** The lane's fast-check seed (derived from the run's), and the path of the shrunk counterexample. */
  seed: number;
  path: string;
  /** The statement the last command's answer broke first, and the other rules the same answer broke. */
  finding: AnswerFinding;
  alsoBroken: string[];
  /** The shrunk sequence as it ran: the last command is the one whose answer broke the statement. */
  executed: ExecutedCommand[];
  /** Commands the first failing run had run. */
  firstLength: number;
  /** Attempts shrinking made, each a sequence replayed from its start. */
  attempts: number;
}

export interface ExplorationOutcome {
  failures: SequenceFailure[];
  /** Per lane: commands run and requests sent by its first run. */
  lanes: Array<{ lane: string; generated: boolean; commands: number; requests: number }>;
  /** What stopped a lane that is no verdict (a spent --max-requests, a target that stopped answering), if anything. */
  stopped?: unknown;
}

interface Lane {
  name: string;
  about: string;
  generated: boolean;
  seed: number;
  arbitrary: fc.Arbitrary<Iterable<fc.AsyncCommand<ExploreModel, Target>>>;
  firstBudget: () => Budget;
}

/** The lanes of one run: the fixed sequences, then `generatedRuns` generated ones, each with a seed of its own. */
export function lanesOf(seed: number, generatedRuns: number, readOnly: boolean): Lane[] {
  const pets = (count: number) => (readOnly ? 0 : count);
  const fixed = FIXED_SEQUENCES.map((sequence, index): Lane => ({
    name: sequence.name, about: sequence.about, generated: false, seed: seedFor(seed, 1000 + index),
    arbitrary: new FixedSequence(sequence.commands),
    firstBudget: () => ({ requests: Number.POSITIVE_INFINITY, pets: pets(Number.POSITIVE_INFINITY), whenSpent: 'skip' }),
  }));
  const generated = Array.from({ length: generatedRuns }, (_, index): Lane => ({
    name: `generated-${index + 1}`, about: `a sequence generated from the seed (--explore-runs ${generatedRuns})`, generated: true, seed: seedFor(seed, 2000 + index),
    arbitrary: fc.commands([...GENERATED_COMMANDS], { maxCommands: MAX_GENERATED_COMMANDS, size: 'max' }),
    firstBudget: () => ({ requests: GENERATED_BUDGET.requests, pets: pets(GENERATED_BUDGET.pets), whenSpent: 'skip' }),
  }));
  return [...fixed, ...generated];
}

/** Runs every lane: their first runs together, then each failing lane's shrinking in turn. */
export async function explore(ctx: CheckContext, lanes: readonly Lane[], knows: readonly string[]): Promise<ExplorationOutcome> {
  const coordination = new Coordination(lanes.length, { ...SHRINK_BUDGET_PER_RULE, pets: ctx.config.readOnly ? 0 : SHRINK_BUDGET_PER_RULE.pets });
  // What the areas it comes after were answered, all of it; another area's may still be coming in, and would make what it knows hang on timing.
  const before = ctx.client.exchanges.filter((exchange) => exchange.rule === undefined || knows.includes(getRule(exchange.rule).area));
  const results = await Promise.all(lanes.map((lane, index) => runLane(ctx, before, lane, index, coordination)));
  return {
    failures: results.flatMap((result) => result.failure ?? []),
    lanes: results.map((result, index) => ({ lane: lanes[index]!.name, generated: lanes[index]!.generated, commands: result.commands, requests: result.requests })),
    stopped: results.find((result) => result.stopped)?.stopped?.error,
  };
}

/**
 * What the lanes of one exploration share: a barrier every first run reaches, so that no shrinking starts while
 * a first run still sends; turns, so that failing lanes shrink one after another in lane order (the same
 * order, and so the same attempts, under the same seed); and the rule's shrink budget.
 */
class Coordination {
  private arrived = 0;
  private readonly everyFirstRun: Promise<void>;
  private arrive!: () => void;
  private readonly done: Array<{ promise: Promise<void>; resolve: () => void }>;
  /** The rules a lane has shrunk a failure of: another lane's failure of the same rule is reported as it ran. */
  private readonly shrunkRules = new Set<string>();

  constructor(lanes: number, readonly shrinkBudget: { requests: number; pets: number }) {
    this.everyFirstRun = new Promise((resolve) => (this.arrive = resolve));
    this.done = Array.from({ length: lanes }, () => {
      let resolve!: () => void;
      const promise = new Promise<void>((settle) => (resolve = settle));
      return { promise, resolve };
    });
    if (lanes === 0) this.arrive();
  }

  firstRunEnded(): void {
    this.arrived += 1;
    if (this.arrived === this.done.length) this.arrive();
  }

  /** Resolves once every first run has ended and every lane before `lane` has finished. */
  async turnOf(lane: number): Promise<void> {
    await this.everyFirstRun;
    await Promise.all(this.done.slice(0, lane).map((turn) => turn.promise));
  }

  finished(lane: number): void {
    this.done[lane]!.resolve();
  }

  /** Whether a failure of `rule` is the first to be shrunk (lanes ask in turn, so the same lane under the same seed). */
  firstToShrink(rule: string): boolean {
    if (this.shrunkRules.has(rule)) return false;
    this.shrunkRules.add(rule);
    return true;
  }
}

interface LaneResult {
  failure?: SequenceFailure;
  commands: number;
  requests: number;
  stopped?: { error: unknown };
}

async function runLane(ctx: CheckContext, before: readonly Exchange[], lane: Lane, index: number, coordination: Coordination): Promise<LaneResult> {
  let calls = 0;
  let shrinkAttempts = 0;
  let first: Attempt | undefined;
  let lastFailed: Attempt | undefined;
  let stopped: { error: unknown } | undefined;
  let shrinkBudget: Budget | undefined;
  const fetchesAllowed = !getPetRemoved(ctx.config.today);
  const property = fc.asyncProperty(lane.arbitrary, async (commands) => {
    const attemptIndex = calls++;
    if (attemptIndex > 0) {
      // Shrinking: each attempt replays a candidate from its start, within the lane's share of the rule's budget.
      if (shrinkBudget === undefined && !coordination.firstToShrink(first!.failure!.finding.rule)) throw new fc.PreconditionFailure(true);
      shrinkBudget ??= takeShrinkBudget(coordination.shrinkBudget);
      if (stopped || shrinkBudget.requests <= 0) throw new fc.PreconditionFailure(true);
      shrinkAttempts += 1;
    }
    const attempt = new Attempt(ctx, before, petName(ctx.config.runId, `explore ${lane.name} ${attemptIndex} `));
    const model: ExploreModel = { created: [], listed: [], budget: attemptIndex === 0 ? lane.firstBudget() : shrinkBudget!, fetchesAllowed, ended: false };
    try {
      // A command whose answer breaks a statement records it on the attempt, and the sequence ends there.
      await fc.asyncModelRun(() => ({ model, real: attempt }), commands);
    } catch (error) {
      // What a command throws is no verdict. A spent shrink budget ends shrinking with what it found; anything
      // else stops the lane. fast-check abandons a shrinking attempt only on this exception of its own.
      if (attemptIndex === 0 || !(error instanceof BudgetSpent)) stopped = { error };
      if (attemptIndex > 0) throw new fc.PreconditionFailure(true);
      return true;
    } finally {
      if (attemptIndex === 0) {
        first = attempt;
        coordination.firstRunEnded();
      }
    }
    if (!attempt.failure) return true;
    lastFailed = attempt;
    if (attemptIndex === 0) await coordination.turnOf(index);
    return false;
  });
  try {
    const details = await fc.check(property, { seed: lane.seed, numRuns: 1 });
    if (shrinkBudget) giveBackShrinkBudget(coordination.shrinkBudget, shrinkBudget);
    const result = { commands: first?.executed.length ?? 0, requests: first?.requests ?? 0, stopped };
    if (!details.failed || !lastFailed?.failure) return result;
    return {
      ...result,
      failure: {
        lane: lane.name, about: lane.about, seed: lane.seed, path: details.counterexamplePath ?? '',
        finding: lastFailed.failure.finding, alsoBroken: lastFailed.failure.alsoBroken, executed: lastFailed.executed,
        firstLength: first?.executed.length ?? 0, attempts: shrinkAttempts,
      },
    };
  } finally {
    coordination.finished(index);
  }
}

/** The lane's share of what is left of the rule's shrink budget, taken out of it (lanes shrink one at a time). */
function takeShrinkBudget(left: { requests: number; pets: number }): Budget {
  const share: Budget = { requests: Math.min(SHRINK_BUDGET_PER_FAILURE.requests, left.requests), pets: Math.min(SHRINK_BUDGET_PER_FAILURE.pets, left.pets), whenSpent: 'stop' };
  left.requests -= share.requests;
  left.pets -= share.pets;
  return share;
}

/** What a lane's shrinking did not spend goes back to the rule's budget, for the lanes after it. */
function giveBackShrinkBudget(left: { requests: number; pets: number }, share: Budget): void {
  left.requests += share.requests;
  left.pets += share.pets;
}

/**
 * One attempt at a sequence: the target the commands act on. It sends through the run's client (paced,
 * recorded, redacted) and records every pet it created. It judges each answer on a model of the store built
 * from what the run had seen before the exploration began and from this attempt's own exchanges: never from
 * another lane or another attempt, so that a failure is the attempt's own doing (a shrunk sequence fails by
 * itself, not by what an earlier attempt left behind) and the same under every interleaving of the lanes.
 * Pets the others created may still show on its pages: to this model they are pets of a shared store.
 */
class Attempt implements Target {
  readonly executed: ExecutedCommand[] = [];
  failure?: { finding: AnswerFinding; alsoBroken: string[] };
  requests = 0;
  private leastHeld?: string;
  /** The store as the evidence so far shows it, extended after each command. */
  private model?: StoreModel;

  constructor(private readonly ctx: CheckContext, private readonly before: readonly Exchange[], readonly namePrefix: string) {}

  /** What this attempt may judge by: the run before the exploration, and its own exchanges, in the order they were answered. */
  private evidence(): Exchange[] {
    const own = this.executed.flatMap((command) => command.exchanges).sort((a, b) => a.seq - b.seq);
    return [...this.before, ...own];
  }

  leastHeldStatus(): string {
    if (this.leastHeld === undefined) {
      const counts = knownStatusCounts(this.before);
      this.leastHeld = PET_STATUSES.reduce((least, status) => ((counts.get(status) ?? 0) < (counts.get(least) ?? 0) ? status : least));
    }
    return this.leastHeld;
  }

  edgeId(edge: EdgeId): bigint | undefined {
    return edgeIdFrom(edge, highestKnownPetId(this.evidence()));
  }

  get broken(): boolean {
    return this.failure !== undefined;
  }

  async perform(command: string, requests: ReadonlyArray<{ send: SendOptions; expect: Expectation }>): Promise<Exchange[] | undefined> {
    const entry: ExecutedCommand = { command, exchanges: [] };
    this.executed.push(entry);
    this.ctx.client.announceProgress('exploring', ['command run', 'commands run']);
    // Sent together, and every one answered before any is judged: nothing the check started is left in flight.
    const settled = await Promise.allSettled(requests.map(({ send }) => this.ctx.client.send(send)));
    this.requests += requests.length;
    for (const outcome of settled) {
      if (outcome.status !== 'fulfilled') continue;
      entry.exchanges.push(outcome.value);
      recordIfCreated(this.ctx, outcome.value);
    }
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    this.model = this.model?.extendedWith(this.evidence()) ?? StoreModel.of(this.evidence(), this.ctx.config.baseUrl, this.ctx.config.readLagMs);
    const { model } = this;
    for (const [position, exchange] of entry.exchanges.entries()) {
      const findings = judgeAnswer(exchange, requests[position]!.expect, model);
      const [finding] = findings;
      if (!finding) continue;
      this.failure = { finding, alsoBroken: [...new Set(findings.map((other) => other.rule))].filter((rule) => rule !== finding.rule) };
      return undefined;
    }
    return entry.exchanges;
  }
}

/**
 * A fixed sequence as a fast-check arbitrary: it always generates the whole sequence (fresh commands, so each
 * attempt's run is its own), and shrinks what ran of a failing one by leaving commands out, larger runs of
 * them first, never the last command, whose answer broke the statement.
 */
class FixedSequence extends fc.Arbitrary<ExploreCommand[]> {
  constructor(private readonly make: () => ExploreCommand[]) {
    super();
  }

  generate(): fc.Value<ExploreCommand[]> {
    return new fc.Value(this.make(), undefined);
  }

  canShrinkWithoutContext(value: unknown): value is ExploreCommand[] {
    return false;
  }

  shrink(value: ExploreCommand[]): fc.Stream<fc.Value<ExploreCommand[]>> {
    const ran = value.filter((command) => command.ran);
    return fc.Stream.of(...withoutRuns(ran.length).map((kept) => new fc.Value(kept.map((position) => ran[position]!.fresh()), undefined)));
  }
}

/**
 * The candidates of a sequence of `length` commands with some left out: runs of half, a quarter, … down to
 * single commands, each candidate keeping the last. Positions kept, in order.
 */
export function withoutRuns(length: number): number[][] {
  const candidates: number[][] = [];
  const before = length - 1;
  for (let size = Math.max(1, Math.floor(before / 2)); size >= 1; size = size === 1 ? 0 : Math.max(1, Math.floor(size / 2))) {
    for (let start = 0; start + size <= before; start += size) {
      candidates.push(Array.from({ length }, (_, position) => position).filter((position) => position < start || position >= start + size));
    }
  }
  return candidates;
}
