import type { FastifyRequest } from 'fastify';
import type { StoredPet } from './pet-store.js';
import { json } from './responses.js';
import type { Answer, Context, NewPetFields, Seams } from './seams.js';

/** POST /pets: a valid NewPet is stored under an id the service assigns, and echoed with it (201). */
export async function createPet(request: FastifyRequest, ctx: Context): Promise<Answer> {
  const read = ctx.seams.readNewPet(bodyText(request));
  if (!read.ok) return ctx.seams.invalidNewPet(read, request);
  const pet = newPet(await ctx.seams.allocateId(read.pet), read.pet);
  ctx.seams.storePet(pet);
  return json(201, ctx.seams.petBody(pet, 'createPet'));
}

/** The reference seams of creating a pet (spec, POST /pets). */
export function creatingSeams(ctx: Context): Pick<Seams, 'invalidNewPet' | 'allocateId' | 'storePet'> {
  return {
    // "400: Error; body missing required fields or containing invalid values."
    invalidNewPet: (failure) => ctx.seams.error(failure.status, failure.code, failure.message),
    allocateId: async () => ctx.store.allocateId(),
    storePet: (pet) => ctx.store.save(pet),
  };
}

/** The request body as text ('' when there is none): the server reads JSON itself, to keep int64 exact. */
export function bodyText(request: FastifyRequest): string {
  return typeof request.body === 'string' ? request.body : '';
}

// The spec states no default status, so none is invented: a pet created without one has none.
function newPet(id: bigint, fields: NewPetFields): StoredPet {
  const pet: StoredPet = { id, categoryId: fields.categoryId, createdAt: new Date().toISOString() };
  if (fields.name !== undefined) pet.name = fields.name;
  if (fields.status !== undefined) pet.status = fields.status;
  return pet;
}
