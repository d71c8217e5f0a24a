import type { CheckContext } from './check.js';
import type { Exchange } from './exchange.js';
import { answeredSuccess, createdIdOf, describeExchange } from './exchange.js';
import { asBigInt, isJsonObject, type Json } from './json.js';
import { NotJudged, SkipCheck } from './outcome.js';
import { answeredAt, readAfterWrite } from './read-after-write.js';
import { validateSchema } from './schema.js';
import { INT64, PAGE_SIZE, PET_STATUSES, type PetStatus } from './spec-facts.js';

export interface Pet {
  id: number | bigint;
  name: string;
  categoryId: number | bigint;
  status?: string;
  [extra: string]: Json | undefined;
}

/** A fixture could not be set up: the rule could not be judged, which is not the same as a violation. */
export class SetupError extends NotJudged {
  override name = 'SetupError';
  readonly outcome = 'errored';
}

/** Every pet this run created, in order: reported, so the vendor knows what we left on their server. */
export const createdPets: Pet[] = [];

/** Names carry the run ID so that a vendor can recognise, and clean up, what a run left behind. */
export function petName(runId: string, label: string): string {
  return `conformance-${runId}-${label}`;
}

let fixtureCount = 0;

/**
 * Creates one pet as setup for a check. Anything but a 2xx makes the check errored, not failed. A 2xx
 * whose body is not the Pet asked for (no id, no status) still created a pet: the sent fields stand in
 * for it, so that counts hold, and the listing is read again before anyone relies on it.
 */
export async function createFixturePet(ctx: CheckContext, label: string, fields: { categoryId?: number | bigint; status?: PetStatus } = {}): Promise<Pet> {
  if (ctx.config.readOnly) throw new SkipCheck('needs pets this target does not hold, and --read-only creates none');
  fixtureCount += 1;
  const sent = { name: petName(ctx.config.runId, `${label}-${fixtureCount}`), categoryId: fields.categoryId ?? 1, ...(fields.status ? { status: fields.status } : {}) };
  const exchange = await ctx.client.send({ method: 'POST', path: '/pets', json: sent });
  if (!answeredSuccess(exchange)) throw new SetupError(`setup could not create a pet: ${describeExchange(exchange)}`, exchange);
  recordIfCreated(ctx, exchange);
  const pet = exchange.response?.json;
  if (isValidPet(pet) && pet.status === sent.status) return pet;
  listing = undefined;
  return sent as Pet;
}

/**
 * Records the pet a POST created, whether or not the check meant to create one (an invalid body a
 * defective server accepted, say): the vendor must learn of every pet the run left behind.
 */
export function recordIfCreated(ctx: CheckContext, exchange: Exchange): void {
  if (exchange.request.method !== 'POST' || !answeredSuccess(exchange)) return;
  const body = exchange.response?.json;
  const id = isJsonObject(body) ? body.id : undefined;
  if (typeof id === 'number' || typeof id === 'bigint' || typeof id === 'string') ctx.recordCreated(String(id));
  else ctx.recordCreated(`(no id returned: ${describeExchange(exchange)})`);
  if (isValidPet(body)) createdPets.push(body);
}

let listing: Pet[] | undefined;

/**
 * The target's first 100 pets, read once per run; the pets the run creates are added as they are made.
 * Every object of the list counts, valid Pet or not: the target holds it (its shape is LIST-01's business).
 * A target that refuses limit=100 (LIST-04's finding) is read through its default page instead.
 */
export async function petsOnTarget(ctx: CheckContext): Promise<Pet[]> {
  if (!listing) {
    let exchange = await ctx.client.send({ path: '/pets', query: { limit: String(PAGE_SIZE.max) } });
    const status = exchange.response?.status ?? 0;
    if (status >= 400 && status < 500 && status !== 401) exchange = await ctx.client.send({ path: '/pets' });
    const body = exchange.response?.json;
    if (exchange.response?.status !== 200 || !Array.isArray(body)) {
      throw new SetupError(`setup could not list the target's pets: ${describeExchange(exchange)}`, exchange);
    }
    listing = body.filter(isJsonObject) as unknown as Pet[];
  }
  return listing;
}

/** Whether a value is a Pet by the spec's schema, int64 exact. */
export function isValidPet(pet: unknown): pet is Pet {
  return validateSchema('Pet', pet).length === 0;
}

/** The status most of these pets hold (the first of PET_STATUSES on a tie, so `available` on an empty target). */
export function mostHeldStatus(pets: readonly Pet[]): PetStatus {
  const held = (status: PetStatus) => pets.filter((pet) => pet.status === status).length;
  return PET_STATUSES.reduce((best, status) => (held(status) > held(best) ? status : best));
}

/** What the list checks need the target to hold: at least `total` pets, at least `perStatus` of each status. */
export interface PetNeed {
  total?: number;
  perStatus?: number;
  /** The status of the pets `total` adds; without it they cycle through the statuses. */
  fillerStatus?: PetStatus;
}

// Checks in flight together may each ask for pets: they take turns, so that none counts what another is creating.
let ensuring: Promise<unknown> = Promise.resolve();

/**
 * Makes sure the target holds what each need asks, the needs met in turn, creating only the shortfall, so
 * that list checks can tell a page size from an empty store. The pets are created together: a target far
 * away costs a round trip for every --concurrency of them, not one each.
 */
export function ensurePets(ctx: CheckContext, ...needs: PetNeed[]): Promise<Pet[]> {
  const turn = ensuring.then(() => createShortfall(ctx, needs));
  ensuring = turn.catch(() => undefined);
  return turn;
}

async function createShortfall(ctx: CheckContext, needs: readonly PetNeed[]): Promise<Pet[]> {
  const pets = await petsOnTarget(ctx);
  const planned = shortfallOf(pets, needs);
  if (planned.length === 0) return pets;
  const writesFrom = ctx.client.exchanges.length;
  const creations = await Promise.allSettled(planned.map(({ label, status }) => createFixturePet(ctx, label, { status })));
  for (const creation of creations) if (creation.status === 'fulfilled') pets.push(creation.value);
  // The first failure in the order the pets were asked for, whatever order the answers came in.
  const failed = creations.find((creation) => creation.status === 'rejected');
  if (failed) throw failed.reason;
  ctx.observe(`created ${planned.length} pet(s) as fixtures`);
  await awaitListed(ctx, ctx.client.exchanges.slice(writesFrom).filter((exchange) => exchange.rule === ctx.rule.id));
  return pets;
}

/** The pets to create so that `pets` meets every need, in turn: per status first, then the fillers up to the total. */
function shortfallOf(pets: readonly Pet[], needs: readonly PetNeed[]): Array<{ label: string; status: PetStatus }> {
  const held = pets.map((pet) => pet.status);
  const planned: Array<{ label: string; status: PetStatus }> = [];
  const plan = (label: string, status: PetStatus) => {
    planned.push({ label, status });
    held.push(status);
  };
  for (const need of needs) {
    for (const status of PET_STATUSES) {
      const missing = (need.perStatus ?? 0) - held.filter((shown) => shown === status).length;
      for (let i = 0; i < missing; i++) plan(status, status);
    }
    const shortfall = (need.total ?? 0) - held.length;
    for (let i = 0; i < shortfall; i++) plan('filler', need.fillerStatus ?? PET_STATUSES[i % PET_STATUSES.length]!);
  }
  return planned;
}

/**
 * Reads the listing until it shows the fixtures just created, for at most --read-lag: a target whose reads
 * lag its writes (replicas, caches) conforms, and the list checks must count what it really holds. A
 * fixture never listed is left for those checks to find; a full page cannot show more, so it ends the wait.
 */
async function awaitListed(ctx: CheckContext, writes: readonly Exchange[]): Promise<void> {
  const created = writes.filter((exchange) => createdIdOf(exchange) !== undefined);
  const ids = created.map((exchange) => createdIdOf(exchange)!);
  const last = created.at(-1);
  if (!last) return;
  await readAfterWrite(ctx, 'the fixtures in GET /pets?limit=100', answeredAt(last), () => ctx.client.send({ path: '/pets', query: { limit: String(PAGE_SIZE.max) } }), (exchange) => {
    const page = exchange.response?.status === 200 ? exchange.response.json : undefined;
    if (!Array.isArray(page)) return true;
    const listed = listedIds(page);
    return page.length >= PAGE_SIZE.max || ids.every((id) => listed.has(id));
  });
}

/** The ids a page of GET /pets lists, as text, whatever the shape of the rest of each item. */
export function listedIds(page: readonly Json[]): Set<string> {
  return new Set(page.flatMap((item) => (isJsonObject(item) && item.id !== undefined && item.id !== null ? [String(item.id)] : [])));
}

/**
 * Pets known to exist: as the target lists them, or as the run created them when the listing itself is
 * broken (that is the listing suite's finding, not the caller's). `create` lets an empty target get one.
 */
export async function petsKnownToExist(ctx: CheckContext, options: { create: boolean }): Promise<Pet[]> {
  try {
    const pets = (options.create ? await ensurePets(ctx, { total: 1 }) : await petsOnTarget(ctx)).filter(isValidPet);
    return pets.length > 0 ? pets : createdPets;
  } catch (error) {
    if (!(error instanceof SetupError) || createdPets.length === 0) throw error;
    return createdPets;
  }
}

/** An int64 id no response of this run has shown: the top of the range, stepping down past any it has seen. */
export function unknownPetId(exchanges: readonly Exchange[]): bigint {
  const known = knownPetIds(exchanges);
  let id = INT64.max;
  while (known.has(String(id))) id -= 1n;
  return id;
}

/**
 * Every pet id the run has seen in a successful response so far: a lower bound on what the target holds,
 * so that a limit can be checked for "exactly that many" without trusting the listing under test.
 */
export function knownPetIds(exchanges: readonly Exchange[]): Set<string> {
  return new Set(knownPets(exchanges).keys());
}

/**
 * The pets the target has shown the run, by id, each with the last status it was shown with: every
 * object with an integer id in a 200 listing or a 201 body. The shape of the rest is LIST-01's and
 * CREATE's business; a status once shown is kept when a later answer leaves it out (that is a finding
 * of its own, not evidence that the pet changed).
 */
export function knownPets(exchanges: readonly Exchange[]): Map<string, { status?: string }> {
  const pets = new Map<string, { status?: string }>();
  for (const exchange of exchanges) {
    const status = exchange.response?.status;
    const listed = status === 200 && exchange.request.method === 'GET' && new URL(exchange.request.url).pathname.endsWith('/pets');
    if (!listed && !(status === 201 && exchange.request.method === 'POST')) continue;
    const body = exchange.response?.json;
    for (const item of Array.isArray(body) ? body : [body]) {
      const id = isJsonObject(item) ? asBigInt(item.id) : undefined;
      if (id === undefined) continue;
      const shown = (item as Record<string, Json>).status;
      const known = pets.get(String(id)) ?? {};
      if (typeof shown === 'string') known.status = shown;
      pets.set(String(id), known);
    }
  }
  return pets;
}

/** How many pets of each status the target has shown the run (see knownPets). */
export function knownStatusCounts(exchanges: readonly Exchange[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { status } of knownPets(exchanges).values()) {
    if (status !== undefined) counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return counts;
}

/** The highest pet id the target has shown the run, if any: one above it is where an array-backed store slips. */
export function highestKnownPetId(exchanges: readonly Exchange[]): bigint | undefined {
  let highest: bigint | undefined;
  for (const id of knownPets(exchanges).keys()) if (highest === undefined || BigInt(id) > highest) highest = BigInt(id);
  return highest;
}
