import { randomBytes } from 'node:crypto';
import { PET_STATUSES } from '../helpers/spec/facts.js';
import type { PreloadPet } from './settings.js';

/**
 * A pet as held. Fields are looser than the spec's Pet because some defects store what a
 * conforming server would refuse (null name, a double categoryId, status "unknown").
 */
export interface StoredPet {
  id: bigint;
  name?: string | null;
  categoryId: bigint | number | null;
  status?: string | null;
  createdAt: string;
}

/**
 * In-memory pets in insertion order, with lookup by id. With a read lag, a saved pet reaches reads only
 * that long after it was saved, as on a replica that lags its primary.
 */
export class PetStore {
  readonly #byId = new Map<bigint, StoredPet>();
  readonly #ordered: StoredPet[] = [];
  readonly #visibleFromMs = new WeakMap<StoredPet, number>();
  #nextId: bigint;

  constructor(readonly firstId: bigint, private readonly readLagMs = 0) {
    this.#nextId = firstId;
  }

  allocateId(): bigint {
    const id = this.#nextId;
    this.#nextId += 1n;
    return id;
  }

  /** A random positive 63-bit id no pet holds yet: ids that are neither sequential nor guessable. */
  randomId(): bigint {
    let id: bigint;
    do id = randomBytes(8).readBigUInt64BE() >> 1n;
    while (id === 0n || this.#byId.has(id));
    return id;
  }

  save(pet: StoredPet): void {
    this.#byId.set(pet.id, pet);
    this.#ordered.push(pet);
    if (this.readLagMs > 0) this.#visibleFromMs.set(pet, Date.now() + this.readLagMs);
  }

  /** Forgets a pet. The spec names no way to delete one: only a server that implements DELETE beyond it calls this. */
  delete(id: bigint): void {
    const pet = this.#byId.get(id);
    if (!pet) return;
    this.#byId.delete(id);
    this.#ordered.splice(this.#ordered.indexOf(pet), 1);
  }

  get(id: bigint): StoredPet | undefined {
    const pet = this.#byId.get(id);
    return pet && this.#visible(pet, Date.now()) ? pet : undefined;
  }

  /** Oldest first. */
  all(): readonly StoredPet[] {
    if (this.readLagMs === 0) return this.#ordered;
    const now = Date.now();
    return this.#ordered.filter((pet) => this.#visible(pet, now));
  }

  #visible(pet: StoredPet, nowMs: number): boolean {
    return (this.#visibleFromMs.get(pet) ?? 0) <= nowMs;
  }
}

export function preloadPets(store: PetStore, preload: number | readonly PreloadPet[]): void {
  const pets = typeof preload === 'number' ? generatedPets(preload) : preload;
  for (const pet of pets) {
    const stored: StoredPet = { id: store.allocateId(), name: pet.name, categoryId: BigInt(pet.categoryId), createdAt: new Date().toISOString() };
    if (pet.status !== undefined) stored.status = pet.status;
    store.save(stored);
  }
}

// Statuses cycle so that every filter value has pets to find after a preload of three or more.
function generatedPets(count: number): PreloadPet[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `Pet ${i + 1}`,
    categoryId: BigInt((i % 7) + 1),
    status: PET_STATUSES[i % PET_STATUSES.length]!,
  }));
}
