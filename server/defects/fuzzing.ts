import type { DefectSpec } from './spec.js';

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
  },
  {
    id: 'create-find-or-create-by-name',
    area: 'fuzzing',
    description: 'creates with find_or_create_by(name:) (Rails; get_or_create in Django): a name written again answers 201 with the earlier pet, unchanged',
    rules: ['FUZZ-03'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-unique-409',
    area: 'fuzzing',
    description: 'has a unique index on name and maps the constraint violation to 409 Conflict: a name written again is refused with a status the interface does not define for a valid NewPet',
    rules: ['FUZZ-03'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-unique-500',
    area: 'fuzzing',
    description: 'has a unique index on name and lets the IntegrityError through: a name written again is answered 500',
    rules: ['FUZZ-03', 'ERR-04'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-uniqueness-validation-race',
    area: 'fuzzing',
    description: 'validates a unique name in the application (Rails validates :name, uniqueness: true) before a unique index: a name written again is refused with 400, which conforms, but two creates of one name in flight together both pass the check and the second insert raises RecordNotUnique, answered 500',
    rules: ['FUZZ-03', 'ERR-04'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-replace-into-by-name',
    area: 'fuzzing',
    description: 'writes pets with MySQL\'s REPLACE INTO under a unique name key: a name written again deletes the earlier pet and inserts a new one, so the earlier pet, once served, is "not found"',
    rules: ['FUZZ-03', 'CONS-06', 'CONS-09'],
    // A generated page sent after the earlier pet was deleted may come back one short of what the run had seen.
    byChance: ['CONS-07'],
  },
  {
    id: 'create-repeated-name-suffixed',
    area: 'fuzzing',
    description: 'makes a name unique before storing it, as slug libraries do (rex, rex-2), while the 201 echoes the name sent: a pet whose name was written before is read back with another name',
    rules: ['FUZZ-03', 'CONS-01'],
  },
  {
    id: 'create-body-hash-idempotency',
    area: 'fuzzing',
    description: 'replays its first answer to a POST whose body it has seen before (an idempotency middleware keyed by a hash of the body, not by an Idempotency-Key header): two identical creates make one pet and answer the same id',
    rules: ['FUZZ-03'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'list-dedupes-by-name',
    area: 'fuzzing',
    description: 'builds each page through a map keyed by name (Object.fromEntries, a dict comprehension), so of two pets with one name only one is ever listed',
    rules: ['FUZZ-03', 'CONS-06'],
    // A generated page of the pool's status may come back one short of what the run had seen.
    byChance: ['CONS-07'],
  },
  {
    id: 'list-cache-filtered-not-invalidated',
    area: 'fuzzing',
    description: 'caches filtered pages by their query and evicts only the unfiltered listing\'s key on a create (cache tags that miss the filtered keys), so a page filtered by status never shows a pet created after it was first read',
    rules: ['FUZZ-03', 'CONS-06'],
    // A generated filtered page may be served from the cache short of what the run had seen since.
    byChance: ['CONS-07'],
  },
  {
    id: 'fetch-shard-abs-overflow',
    area: 'fuzzing',
    description: 'picks the shard of a petId as Math.abs(id) % shards (Java): Math.abs(Long.MIN_VALUE) is still negative, so GET /pets/-9223372036854775808 indexes out of bounds and answers 500',
    rules: ['FUZZ-03', 'ERR-04'],
  },
] as const satisfies readonly DefectSpec[];
