import { setTimeout as sleep } from 'node:timers/promises';
import { INT64 } from '../../helpers/spec/facts.js';
import { bodyText } from '../../server/creating.js';
import type { StoredPet } from '../../server/pet-store.js';
import { json } from '../../server/responses.js';
import type { Answer, Context, SeamOverride } from '../../server/seams.js';
import type { DefectSpec } from './spec.js';

// How long the callbacks between a uniqueness validation and its INSERT take (before_save, a category lookup, an
// audit write). Long enough that two creates the run sends together meet inside it on a loaded machine too, where
// the client's places may all be taken and the second leaves a turn after the first (50 ms missed it under CI load).
const UNIQUENESS_CALLBACKS_MS = 250;
// Each server's state, keyed by the server, never module-wide: pets REPLACE INTO deleted, the first answer to
// each body, and the cache of filtered pages.
const REPLACED = new WeakMap<Context, Set<bigint>>();
const ANSWERED_BODIES = new WeakMap<Context, Map<string, Promise<Answer>>>();
const FILTERED_PAGES = new WeakMap<Context, Map<string, Answer>>();

function perServer<T>(map: WeakMap<Context, T>, server: Context, make: () => T): T {
  const value = map.get(server) ?? make();
  map.set(server, value);
  return value;
}

/** The pet already stored under a name, if any (one a REPLACE INTO deleted is gone). */
function storedUnder(name: string | null | undefined, server: Context): StoredPet | undefined {
  const replaced = REPLACED.get(server);
  return server.store.all().find((pet) => pet.name === name && !replaced?.has(pet.id));
}

/**
 * A `respond` override of createPet that looks at the valid NewPet first and, when a pet already holds its
 * name, answers `taken` (which may throw, as an unrescued IntegrityError does); otherwise the reference creates it.
 */
function whenNameTaken(taken: (existing: StoredPet, server: Context) => Answer | Promise<Answer>): SeamOverride<'respond'> {
  return async (operation, request, reference, server) => {
    if (operation !== 'createPet') return reference(operation, request);
    const read = server.seams.readNewPet(bodyText(request));
    const existing = read.ok ? storedUnder(read.pet.name, server) : undefined;
    return existing ? taken(existing, server) : reference(operation, request);
  };
}

/**
 * Defects only a sequence of requests shows: a name written twice, a read between two writes, two writes in
 * flight together, an id no single check asks for. The stateful exploration (FUZZ-03) meets each in one of its
 * fixed sequences, whatever the seed; where the broken statement is judged over the whole run too, its own rule
 * fails beside FUZZ-03. A name two generated valid bodies happen to share can show some of them to FUZZ-02.
 */
export const FUZZING_DEFECTS = [
  {
    id: 'create-upsert-by-name',
    area: 'fuzzing',
    description: 'writes pets with INSERT … ON CONFLICT (name) DO UPDATE … RETURNING id (an ORM upsert keyed by a natural key): a name written again overwrites the earlier pet and answers 201 with its id',
    rules: ['FUZZ-03'],
    overrides: {
      allocateId: async (fields, reference, server) => storedUnder(fields.name, server)?.id ?? reference(fields),
      // DO UPDATE: the row holding the name takes the new fields and keeps its id.
      storePet: (pet, reference, server) => {
        const existing = storedUnder(pet.name, server);
        if (existing?.id !== pet.id) return reference(pet);
        existing.categoryId = pet.categoryId;
        if (pet.status === undefined) delete existing.status;
        else existing.status = pet.status;
      },
    },
  },
  {
    id: 'create-find-or-create-by-name',
    area: 'fuzzing',
    description: 'creates with find_or_create_by(name:) (Rails; get_or_create in Django): a name written again answers 201 with the earlier pet, unchanged',
    rules: ['FUZZ-03'],
    byChance: ['FUZZ-02'],
    overrides: {
      respond: whenNameTaken((existing, server) => json(201, server.seams.petBody(existing, 'createPet'))),
    },
  },
  {
    id: 'create-uniqueness-validation-race',
    area: 'fuzzing',
    description: 'validates a unique name in the application (Rails validates :name, uniqueness: true) before a unique index: a name written again is refused with 400, which conforms, but two creates of one name in flight together both pass the check and the second insert raises RecordNotUnique, answered 500',
    rules: ['FUZZ-03', 'ERR-04'],
    byChance: ['FUZZ-02'],
    overrides: {
      // validates :name, uniqueness: true (a refusal that conforms), then the callbacks, then the INSERT the index guards.
      respond: async (operation, request, reference, server) => {
        if (operation !== 'createPet') return reference(operation, request);
        const read = server.seams.readNewPet(bodyText(request));
        if (!read.ok) return reference(operation, request);
        if (storedUnder(read.pet.name, server)) return server.seams.error(400, 'invalid_body', 'Name has already been taken');
        await sleep(UNIQUENESS_CALLBACKS_MS);
        if (storedUnder(read.pet.name, server)) throw new Error('ActiveRecord::RecordNotUnique: duplicate key value violates unique constraint "index_pets_on_name"');
        return reference(operation, request);
      },
    },
  },
  {
    id: 'create-replace-into-by-name',
    area: 'fuzzing',
    description: 'writes pets with MySQL\'s REPLACE INTO under a unique name key: a name written again deletes the earlier pet and inserts a new one, so the earlier pet, once served, is "not found"',
    rules: ['FUZZ-03', 'CONS-06', 'CONS-09'],
    // A generated page sent after the earlier pet was deleted may come back one short of what the run had seen.
    byChance: ['CONS-07'],
    overrides: {
      // REPLACE deletes the row holding the name, then inserts the new one under an id of its own.
      storePet: (pet, reference, server) => {
        const earlier = storedUnder(pet.name, server);
        if (earlier) perServer(REPLACED, server, () => new Set()).add(earlier.id);
        reference(pet);
      },
      findPet: (id, reference, server) => (REPLACED.get(server)?.has(id) ? undefined : reference(id)),
      selectPage: (pets, query, reference, server) => reference(pets.filter((pet) => !REPLACED.get(server)?.has(pet.id)), query),
    },
  },
  {
    id: 'create-repeated-name-suffixed',
    area: 'fuzzing',
    description: 'makes a name unique before storing it, as slug libraries do (rex, rex-2), while the 201 echoes the name sent: a pet whose name was written before is read back with another name',
    rules: ['FUZZ-03', 'CONS-01'],
    overrides: {
      // rex, rex-2, rex-3: the row gets the first name free; the 201 echoes the pet the request built.
      storePet: (pet, reference, server) => {
        if (typeof pet.name !== 'string') return reference(pet);
        let name = pet.name;
        for (let n = 2; storedUnder(name, server); n += 1) name = `${pet.name}-${n}`;
        reference({ ...pet, name });
      },
    },
  },
  {
    id: 'create-body-hash-idempotency',
    area: 'fuzzing',
    description: 'replays its first answer to a POST whose body it has seen before (an idempotency middleware keyed by a hash of the body, not by an Idempotency-Key header): two identical creates make one pet and answer the same id',
    rules: ['FUZZ-03'],
    byChance: ['FUZZ-02'],
    overrides: {
      // The first answer to a body, kept from the moment its request arrives: one in flight beside it waits for it.
      respond: (operation, request, reference, server) => {
        if (operation !== 'createPet') return reference(operation, request);
        const answered = perServer(ANSWERED_BODIES, server, () => new Map<string, Promise<Answer>>());
        const key = bodyText(request);
        const answer = answered.get(key) ?? reference(operation, request);
        answered.set(key, answer);
        return answer;
      },
    },
  },
  {
    id: 'list-dedupes-by-name',
    area: 'fuzzing',
    description: 'builds each page through a map keyed by name (Object.fromEntries, a dict comprehension), so of two pets with one name only one is ever listed',
    rules: ['FUZZ-03', 'CONS-06'],
    // A generated page of the pool's status may come back one short of what the run had seen.
    byChance: ['CONS-07'],
    overrides: {
      // A Map keeps the first pet's place and the last pet's value.
      selectPage: (pets, query, reference) => reference([...new Map(pets.map((pet) => [pet.name, pet])).values()], query),
    },
  },
  {
    id: 'list-cache-filtered-not-invalidated',
    area: 'fuzzing',
    description: 'caches filtered pages by their query and evicts only the unfiltered listing\'s key on a create (cache tags that miss the filtered keys), so a page filtered by status never shows a pet created after it was first read',
    rules: ['FUZZ-03', 'CONS-06'],
    // A generated filtered page may be served from the cache short of what the run had seen since.
    byChance: ['CONS-07'],
    overrides: {
      respond: async (operation, request, reference, server) => {
        const pages = perServer(FILTERED_PAGES, server, () => new Map<string, Answer>());
        // A create evicts the listing's key, which no filtered page is cached under.
        if (operation === 'createPet') pages.delete(`${server.settings.basePath}/pets`);
        const filtered = operation === 'listPets' && (request.query as Record<string, unknown>).status !== undefined;
        if (!filtered) return reference(operation, request);
        const cached = pages.get(request.url);
        if (cached) return cached;
        const answer = await reference(operation, request);
        if (answer.status === 200) pages.set(request.url, answer);
        return answer;
      },
    },
  },
  {
    id: 'fetch-shard-abs-overflow',
    area: 'fuzzing',
    description: 'picks the shard of a petId as Math.abs(id) % shards (Java): Math.abs(Long.MIN_VALUE) is still negative, so GET /pets/-9223372036854775808 indexes out of bounds and answers 500',
    rules: ['FUZZ-03', 'ERR-04'],
    overrides: {
      findPet: (id, reference) => {
        // shards[Math.abs(id) % shards.length]: Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE, a negative index.
        if (id === INT64.min) throw new Error('ArrayIndexOutOfBoundsException: Index -8 out of bounds for length 8');
        return reference(id);
      },
    },
  },
] as const satisfies readonly DefectSpec[];
