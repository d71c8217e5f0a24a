import type { CheckContext } from './check.js';
import type { Exchange } from './exchange.js';
import { answeredSuccess, describeExchange } from './exchange.js';
import { isJsonObject, type Json } from './json.js';
import { SkipCheck } from './outcome.js';
import { validateSchema } from './schema.js';

export const STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof STATUSES)[number];

export interface Pet {
  id: number | bigint;
  name: string;
  categoryId: number | bigint;
  status?: string;
  [extra: string]: Json | undefined;
}

/** A fixture could not be set up: the rule could not be judged, which is not the same as a violation. */
export class SetupError extends Error {
  override name = 'SetupError';
  constructor(message: string, readonly exchange?: Exchange) {
    super(message);
  }
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
 */
export async function petsOnTarget(ctx: CheckContext): Promise<Pet[]> {
  if (!listing) {
    const exchange = await ctx.client.send({ path: '/pets', query: { limit: '100' } });
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

/**
 * Makes sure the target holds at least `total` pets and at least `perStatus` of each status,
 * creating only the shortfall, so that list checks can tell a page size from an empty store.
 */
export async function ensurePets(ctx: CheckContext, need: { total?: number; perStatus?: number }): Promise<Pet[]> {
  const pets = await petsOnTarget(ctx);
  let created = 0;
  for (const status of STATUSES) {
    const missing = (need.perStatus ?? 0) - pets.filter((pet) => pet.status === status).length;
    for (let i = 0; i < missing; i++) {
      pets.push(await createFixturePet(ctx, status, { status }));
      created += 1;
    }
  }
  const shortfall = (need.total ?? 0) - pets.length;
  for (let i = 0; i < shortfall; i++) {
    pets.push(await createFixturePet(ctx, 'filler', { status: STATUSES[i % STATUSES.length] }));
    created += 1;
  }
  if (created > 0) ctx.observe(`created ${created} pet(s) as fixtures`);
  return pets;
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
  let id = 2n ** 63n - 1n;
  while (known.has(String(id))) id -= 1n;
  return id;
}

/**
 * Every pet id the run has seen in a successful response so far: a lower bound on what the target holds,
 * so that a limit can be checked for "exactly that many" without trusting the listing under test.
 */
export function knownPetIds(exchanges: readonly Exchange[]): Set<string> {
  const ids = new Set<string>();
  for (const exchange of exchanges) {
    const status = exchange.response?.status;
    if (status !== 200 && status !== 201) continue;
    if (!new URL(exchange.request.url).pathname.endsWith('/pets') && status !== 201) continue;
    const body = exchange.response?.json;
    for (const item of Array.isArray(body) ? body : [body]) {
      if (isValidPet(item)) ids.add(String(item.id));
    }
  }
  return ids;
}
