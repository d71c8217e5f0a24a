import type { FastifyRequest } from 'fastify';
import { INT64 } from '../helpers/spec/facts.js';
import { json } from './responses.js';
import { isRefusal, type Answer, type Context, type Refusal, type Seams } from './seams.js';

/** The refusal of a petId that is not an int64. */
export const PET_ID_REFUSED: Refusal = { status: 400, message: 'petId must be an int64 integer' };

/** GET /pets/{petId}: the pet (200), or 404 with an Error when no pet has that id. */
export async function getPet(request: FastifyRequest, ctx: Context): Promise<Answer> {
  const id = ctx.seams.parsePetId(petIdOf(request));
  if (isRefusal(id)) return ctx.seams.invalidParameter('petId', id);
  const pet = ctx.seams.findPet(id.value);
  return pet === undefined ? ctx.seams.petNotFound(request) : json(200, ctx.seams.petBody(pet, 'getPet'));
}

/** The reference seams of getPet (spec, GET /pets/{petId}). */
export function fetchingSeams(ctx: Context): Pick<Seams, 'parsePetId' | 'findPet' | 'petNotFound'> {
  return {
    parsePetId: (raw) => {
      const id = int64Parameter(raw);
      return id === undefined ? PET_ID_REFUSED : { value: id };
    },
    findPet: (id) => ctx.store.get(id),
    petNotFound: (request) => ctx.seams.error(404, 'not_found', `no pet with id ${petIdOf(request)}`),
  };
}

/** The petId segment of a getPet request, as sent. */
export function petIdOf(request: FastifyRequest): string {
  return (request.params as { petId: string }).petId;
}

/** A path segment written as an integer (a sign allowed), as a bigint; undefined for anything else. */
export function integerSegment(raw: string): bigint | undefined {
  return /^-?[0-9]+$/.test(raw) ? BigInt(raw) : undefined;
}

/** A path segment holding an int64, as a bigint; undefined when it does not. */
export function int64Parameter(raw: string): bigint | undefined {
  const id = integerSegment(raw);
  return id !== undefined && id >= INT64.min && id <= INT64.max ? id : undefined;
}
