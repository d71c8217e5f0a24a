// The commands of the stateful exploration (FUZZ-03), as fast-check's model-based runner wants them: each
// says whether it may run now (`check`), acts on the target through the run's client and has every answer
// judged (`run`), and reads as one line of a counterexample (`toString`). Their parameters are drawn from
// the classes of each input: names from a small pool (so that they repeat) or from the NewPet arbitraries,
// int64 edges for categoryId, with and without status; every limit class and status class; known, unknown
// and edge ids. A parameter that depends on the target (the id a create got, the status it holds fewest
// pets of) is resolved when the command runs, so one command list replays under every seed and on any store.
import fc from 'fast-check';
import type { SendOptions } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { int64Anywhere, newPet, type NewPetBody } from '../fuzz/arbitraries.js';
import { INT64, PAGE_SIZE, PET_STATUSES } from '../spec/facts.js';
import { isJsonObject } from '../json.js';
import { idOf } from '../model/store-model.js';
import { createdId, type Expectation } from './judge.js';

/** Requests and new pets a sequence may still spend. */
export interface Budget {
  requests: number;
  pets: number;
  /**
   * What a command that cannot afford itself does: `skip` (a first run: the sequence is cut to its budget, the
   * same way under the same seed), or `stop` (shrinking: the attempt is abandoned and shrinking ends there).
   */
  whenSpent: 'skip' | 'stop';
}

/** A shrinking attempt ran out of its budget: no verdict, and shrinking stops with what it has. */
export class BudgetSpent extends Error {
  override name = 'BudgetSpent';
}

/** What one attempt at a sequence knows: fast-check's model. */
export interface ExploreModel {
  /** The pets this attempt created, in order, with the label that names them and what was sent. */
  readonly created: Array<{ label: string; id: string; sent: NewPetBody }>;
  /** Ids this attempt saw on its own pages, not created by it: pets that exist, on a shared store too. */
  readonly listed: string[];
  readonly budget: Budget;
  /** False once GET /pets/{petId} is past its announced removal: fetches are then left out. */
  readonly fetchesAllowed: boolean;
  /**
   * Set once an answer broke a statement (the finding is on the target): no further command applies, so the
   * attempt's sequence ends with the command whose answer broke it.
   */
  ended: boolean;
}

/** What a command acts on: one attempt at a sequence, sending through the run's client and judging every answer. */
export interface Target {
  /** Run ID prefix of every name this attempt writes, unique to the attempt: a name repeats only inside one. */
  readonly namePrefix: string;
  /** The status the target has shown fewest pets of, chosen once per attempt: where a page has room for the sequence's pets. */
  leastHeldStatus(): string;
  /** The id an edge names, or undefined when there is none to name (no pet seen yet). */
  edgeId(edge: EdgeId): bigint | undefined;
  /**
   * Sends a command's requests together (they go out at once, the client keeps --concurrency in flight), then
   * judges each answer in order: the exchanges, or undefined once an answer broke a statement, which the target
   * records as the attempt's finding (naming its rule). What it throws is no verdict (a request that failed).
   */
  perform(command: string, requests: ReadonlyArray<{ send: SendOptions; expect: Expectation }>): Promise<Exchange[] | undefined>;
  /** Whether an answer of this attempt broke a statement. */
  readonly broken: boolean;
}

/** Names a repeated name can take: two that differ in case only, and another. A pool this small repeats in short sequences. */
export const NAME_POOL = ['rex', 'Rex', 'fido'] as const;

/** A name from the pool, or one the NewPet arbitraries drew (after the attempt's prefix). */
export type NameChoice = { pool: number } | { suffix: string };

/** A status to send: a PetStatus, none, or the one the target holds fewest pets of (resolved at run time). */
export type StatusChoice = string | 'least-held' | undefined;

export interface CreateSpec {
  /** How later commands of a fixed sequence name the pet ("a"); generated ones name pets by position. */
  label?: string;
  name: NameChoice;
  categoryId: bigint;
  status?: StatusChoice;
}

export type EdgeId = 'int64-min' | 'int64-max' | 'minus-one' | 'zero' | 'above-double' | 'past-highest';
export const EDGE_IDS: readonly EdgeId[] = ['int64-min', 'int64-max', 'minus-one', 'zero', 'above-double', 'past-highest'];

/** The pet a fetch asks for: one a fixed sequence labelled, the n-th the attempt knows (created or listed), or an edge id. */
export type FetchTarget = { label: string } | { known: number } | { edge: EdgeId };

export interface ListSpec {
  limit?: number;
  status?: StatusChoice;
}

/** The cost of a command, in requests and new pets. */
interface Cost {
  requests: number;
  pets: number;
}

export abstract class ExploreCommand implements fc.AsyncCommand<ExploreModel, Target> {
  /** Set once the command has run in its attempt: a fixed sequence shrinks to the commands that ran. */
  ran = false;

  protected abstract cost(): Cost;
  /** Whether the model allows the command now (a fetch needs a pet to fetch, a create a budget for pets). */
  protected abstract applies(model: Readonly<ExploreModel>): boolean;
  protected abstract act(model: ExploreModel, target: Target): Promise<void>;
  abstract toString(): string;
  /** The same command, not yet run: a shrunk fixed sequence runs fresh copies. */
  abstract fresh(): ExploreCommand;

  check(model: Readonly<ExploreModel>): boolean {
    if (model.ended) return false;
    const { budget } = model;
    const cost = this.cost();
    const affordable = budget.requests >= cost.requests && budget.pets >= cost.pets;
    return this.applies(model) && (affordable || budget.whenSpent === 'stop');
  }

  async run(model: ExploreModel, target: Target): Promise<void> {
    const cost = this.cost();
    if (model.budget.requests < cost.requests || model.budget.pets < cost.pets) throw new BudgetSpent(`no budget left for ${this.toString()}`);
    model.budget.requests -= cost.requests;
    model.budget.pets -= cost.pets;
    this.ran = true;
    await this.act(model, target);
    if (target.broken) model.ended = true;
  }
}

function resolveStatus(choice: StatusChoice, target: Target): string | undefined {
  return choice === 'least-held' ? target.leastHeldStatus() : choice;
}

function showStatus(choice: StatusChoice): string {
  return choice === undefined ? 'no status' : choice === 'least-held' ? 'status S (the one the target had shown fewest pets of)' : `status ${choice}`;
}

function showName(name: NameChoice): string {
  return 'pool' in name ? `name "${NAME_POOL[name.pool % NAME_POOL.length]}"` : `name ${JSON.stringify(name.suffix).slice(0, 40)}`;
}

/** The NewPet a create sends, its name after the attempt's prefix. */
function newPetOf(spec: CreateSpec, target: Target): NewPetBody {
  const name = `${target.namePrefix}${'pool' in spec.name ? NAME_POOL[spec.name.pool % NAME_POOL.length] : spec.name.suffix}`;
  const status = resolveStatus(spec.status, target);
  return { name, categoryId: spec.categoryId, ...(status === undefined ? {} : { status }) };
}

function describeCreate(spec: CreateSpec, target?: Target): string {
  const status: StatusChoice = target && spec.status === 'least-held' ? target.leastHeldStatus() : spec.status;
  return `${spec.label ? `${spec.label}: ` : ''}${showName(spec.name)}, categoryId ${spec.categoryId}, ${showStatus(status)}`;
}

/** Sends the creates together and puts each pet the target created in the model. */
async function createAll(specs: readonly CreateSpec[], model: ExploreModel, target: Target, command: string): Promise<void> {
  const sent = specs.map((spec) => newPetOf(spec, target));
  const exchanges = await target.perform(command, sent.map((body) => ({ send: { method: 'POST', path: '/pets', json: body }, expect: { operation: 'createPet', sent: body } })));
  if (!exchanges) return;
  exchanges.forEach((exchange, index) => {
    const id = createdId(exchange);
    if (id !== undefined) model.created.push({ label: specs[index]!.label ?? `#${model.created.length + 1}`, id, sent: sent[index]! });
  });
}

/** POST /pets with one valid NewPet. */
export class CreatePet extends ExploreCommand {
  constructor(readonly spec: CreateSpec) {
    super();
  }

  protected cost(): Cost {
    return { requests: 1, pets: 1 };
  }

  protected applies(): boolean {
    return true;
  }

  protected act(model: ExploreModel, target: Target): Promise<void> {
    return createAll([this.spec], model, target, `create ${describeCreate(this.spec, target)}`);
  }

  toString(): string {
    return `create ${describeCreate(this.spec)}`;
  }

  fresh(): CreatePet {
    return new CreatePet(this.spec);
  }
}

/** Two or three POST /pets in flight together: their ids must all differ, and each pet read back as written. */
export class CreateTogether extends ExploreCommand {
  constructor(readonly specs: readonly CreateSpec[]) {
    super();
  }

  protected cost(): Cost {
    return { requests: this.specs.length, pets: this.specs.length };
  }

  protected applies(): boolean {
    return true;
  }

  protected act(model: ExploreModel, target: Target): Promise<void> {
    return createAll(this.specs, model, target, `create together [${this.specs.map((spec) => describeCreate(spec, target)).join('; ')}]`);
  }

  toString(): string {
    return `create together [${this.specs.map((spec) => describeCreate(spec)).join('; ')}]`;
  }

  fresh(): CreateTogether {
    return new CreateTogether(this.specs);
  }
}

/** GET /pets with a limit and a status filter drawn from their classes. */
export class ListPets extends ExploreCommand {
  constructor(readonly spec: ListSpec) {
    super();
  }

  protected cost(): Cost {
    return { requests: 1, pets: 0 };
  }

  protected applies(): boolean {
    return true;
  }

  protected async act(model: ExploreModel, target: Target): Promise<void> {
    const status = resolveStatus(this.spec.status, target);
    const query = { ...(status === undefined ? {} : { status }), ...(this.spec.limit === undefined ? {} : { limit: String(this.spec.limit) }) };
    const exchanges = await target.perform(this.describe(status), [{ send: { path: '/pets', query }, expect: { operation: 'listPets' } }]);
    if (!exchanges) return;
    const page = exchanges[0]!.response?.json;
    if (!Array.isArray(page)) return;
    const created = new Set(model.created.map((pet) => pet.id));
    for (const item of page) {
      // An id as the model reads it (an int64, exact): a listed item without one is the schema rules' to judge.
      const id = isJsonObject(item) ? idOf(item) : undefined;
      if (id !== undefined && !created.has(id) && !model.listed.includes(id)) model.listed.push(id);
    }
  }

  toString(): string {
    return this.describe(this.spec.status);
  }

  private describe(status: StatusChoice): string {
    return `list ${this.spec.limit === undefined ? 'with no limit' : `limit ${this.spec.limit}`}, ${status === undefined ? 'unfiltered' : `filtered by ${showStatus(status)}`}`;
  }

  fresh(): ListPets {
    return new ListPets(this.spec);
  }
}

/** GET /pets/{petId} of a pet the sequence knows, or of an edge id. */
export class FetchPet extends ExploreCommand {
  constructor(readonly target: FetchTarget) {
    super();
  }

  protected cost(): Cost {
    return { requests: 1, pets: 0 };
  }

  protected applies(model: Readonly<ExploreModel>): boolean {
    if (!model.fetchesAllowed) return false;
    if ('label' in this.target) return model.created.some((pet) => pet.label === (this.target as { label: string }).label);
    if ('known' in this.target) return model.created.length + model.listed.length > 0;
    return true;
  }

  protected async act(model: ExploreModel, target: Target): Promise<void> {
    const known = knownIdOf(this.target, model);
    const id = known ?? ('edge' in this.target ? target.edgeId(this.target.edge) : undefined);
    if (id === undefined) return;
    await target.perform(`${this.toString()} (id ${id})`, [{ send: { path: `/pets/${id}` }, expect: { operation: 'getPet', known: known !== undefined } }]);
  }

  toString(): string {
    if ('label' in this.target) return `fetch pet ${this.target.label}`;
    if ('known' in this.target) return `fetch the pet the sequence knows at position ${this.target.known} (created first, then listed)`;
    return `fetch the ${this.target.edge} id`;
  }

  fresh(): FetchPet {
    return new FetchPet(this.target);
  }
}

/** The id of a pet the sequence knows that a fetch names, or undefined for an edge. */
function knownIdOf(target: FetchTarget, model: ExploreModel): string | undefined {
  if ('label' in target) return model.created.find((pet) => pet.label === target.label)?.id;
  if ('known' in target) {
    const ids = [...model.created.map((pet) => pet.id), ...model.listed];
    return ids.length === 0 ? undefined : ids[target.known % ids.length];
  }
  return undefined;
}

/** The id an edge names, from the ids the run has seen where it needs them. */
export function edgeIdFrom(edge: EdgeId, highestSeen: bigint | undefined): bigint | undefined {
  switch (edge) {
    case 'int64-min': return INT64.min;
    case 'int64-max': return INT64.max;
    case 'minus-one': return -1n;
    case 'zero': return 0n;
    case 'above-double': return 2n ** 53n + 1n;
    case 'past-highest': return highestSeen === undefined || highestSeen >= INT64.max ? undefined : highestSeen + 1n;
  }
}

// ── the generated commands ──

/** A valid NewPet from the fuzzing arbitraries (any int64, the edges weighted in; a status or none), its name mostly from the pool. */
const createSpec: fc.Arbitrary<CreateSpec> = fc.record({
  pet: newPet('', { categoryId: int64Anywhere, status: 'optional', extras: false, names: 'any' }),
  pool: fc.option(fc.nat({ max: NAME_POOL.length - 1 }), { nil: undefined, freq: 4 }),
}).map(({ pet, pool }) => ({ name: pool === undefined ? { suffix: pet.name } : { pool }, categoryId: pet.categoryId, status: pet.status }));

/** Every class of limit: none (the default 20), the lower bound, inside, the upper bound. */
const limitClass: fc.Arbitrary<number | undefined> = fc.oneof(
  fc.constant(undefined), fc.constant(PAGE_SIZE.min), fc.integer({ min: PAGE_SIZE.min + 1, max: PAGE_SIZE.max - 1 }), fc.constant(PAGE_SIZE.max),
);

const statusClass: fc.Arbitrary<string | undefined> = fc.constantFrom(undefined, ...PET_STATUSES);

/** The generated commands, weighted: as many reads as writes, and writes in flight together now and then. */
export const GENERATED_COMMANDS: ReadonlyArray<fc.Arbitrary<ExploreCommand>> = [
  createSpec.map((spec) => new CreatePet(spec)),
  createSpec.map((spec) => new CreatePet(spec)),
  fc.array(createSpec, { minLength: 2, maxLength: 3 }).map((specs) => new CreateTogether(specs)),
  fc.record({ limit: limitClass, status: statusClass }).map((spec) => new ListPets(spec)),
  fc.record({ limit: limitClass, status: statusClass }).map((spec) => new ListPets(spec)),
  fc.nat().map((known) => new FetchPet({ known })),
  fc.nat().map((known) => new FetchPet({ known })),
  fc.constantFrom(...EDGE_IDS).map((edge) => new FetchPet({ edge })),
];

// ── the fixed sequences: one per class, on every seed ──

const ABOVE_DOUBLE = 2n ** 53n + 1n;

/**
 * The sequences every run sends whatever the seed, so that no verdict hangs on one: each covers a class of
 * sequence the generated ones draw from, with the smallest number of requests that can show its bugs.
 */
export const FIXED_SEQUENCES: ReadonlyArray<{ name: string; about: string; commands: () => ExploreCommand[] }> = [
  {
    name: 'repeated-name',
    about: 'a name written twice, each pet read back, and the page of their status read before and after',
    commands: () => [
      new ListPets({ status: 'least-held', limit: PAGE_SIZE.max }),
      new CreatePet({ label: 'a', name: { pool: 0 }, categoryId: ABOVE_DOUBLE, status: 'least-held' }),
      new FetchPet({ label: 'a' }),
      new CreatePet({ label: 'b', name: { pool: 0 }, categoryId: INT64.min, status: 'least-held' }),
      new FetchPet({ label: 'a' }),
      new FetchPet({ label: 'b' }),
      new ListPets({ status: 'least-held', limit: PAGE_SIZE.max }),
    ],
  },
  {
    name: 'writes-together',
    about: 'two identical creates in flight together (one name, no status), each read back',
    commands: () => [
      new CreateTogether([
        { label: 'c', name: { pool: 2 }, categoryId: INT64.max },
        { label: 'd', name: { pool: 2 }, categoryId: INT64.max },
      ]),
      new FetchPet({ label: 'c' }),
      new FetchPet({ label: 'd' }),
    ],
  },
  {
    name: 'ids-and-pages',
    about: 'the edge ids no other check asks for, a listed pet read back, the default page and the largest',
    commands: () => [
      new FetchPet({ edge: 'int64-min' }),
      new FetchPet({ edge: 'zero' }),
      new FetchPet({ edge: 'above-double' }),
      new ListPets({ limit: PAGE_SIZE.min }),
      new FetchPet({ known: 0 }),
      new ListPets({}),
      // Every pet the run has seen, up to 100, read again: each is held to its write and to every earlier read.
      new ListPets({ limit: PAGE_SIZE.max }),
    ],
  },
];
