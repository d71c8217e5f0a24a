import type { FastifyRequest } from 'fastify';
import { PAGE_SIZE, PET_STATUSES } from '../helpers/spec/facts.js';
import { isPetStatus } from './new-pet.js';
import type { StoredPet } from './pet-store.js';
import { json } from './responses.js';
import { isRefusal, type Answer, type Context, type ListQuery, type Refusal, type Seams } from './seams.js';

/** The refusal of a limit that is not an integer from 1 to 100. */
export const LIMIT_REFUSED: Refusal = { status: 400, message: `limit must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}` };
const STATUS_REFUSED: Refusal = { status: 400, message: `status must be one of ${PET_STATUSES.join(', ')}` };

/** GET /pets: a page of at most `limit` pets (default 20), of one status when `status` is given. */
export async function listPets(request: FastifyRequest, ctx: Context): Promise<Answer> {
  const query = request.query as Record<string, unknown>;
  const limit = ctx.seams.parseLimit(query.limit);
  if (isRefusal(limit)) return ctx.seams.invalidParameter('limit', limit);
  const status = ctx.seams.parseStatus(query.status);
  if (isRefusal(status)) return ctx.seams.invalidParameter('status', status);
  const page = ctx.seams.selectPage(ctx.store.all(), { limit: limit.value, status: status.value });
  return json(200, page.map((pet) => ctx.seams.petBody(pet, 'listPets')));
}

/** The reference seams of listPets (spec, GET /pets and Limits › Page size). */
export function listingSeams(): Pick<Seams, 'parseLimit' | 'parseStatus' | 'selectPage'> {
  return {
    parseLimit: (raw) => {
      if (raw === undefined) return { value: undefined };
      const limit = integerParameter(raw);
      return limit !== undefined && limit >= PAGE_SIZE.min && limit <= PAGE_SIZE.max ? { value: limit } : LIMIT_REFUSED;
    },
    parseStatus: (raw) => (raw === undefined || isPetStatus(raw) ? { value: raw } : STATUS_REFUSED),
    // The spec promises no order; the reference lists oldest first.
    selectPage: (pets, query) => firstOf(withStatus(pets, query.status), pageSize(query)),
  };
}

/** How many pets the page holds at most: the limit given, or the default page. */
export function pageSize(query: ListQuery): number {
  return query.limit ?? PAGE_SIZE.default;
}

/** The pets of that status, or all of them when no status is asked for. */
export function withStatus(pets: readonly StoredPet[], status: string | undefined): readonly StoredPet[] {
  return status === undefined ? pets : pets.filter((pet) => pet.status === status);
}

/** The first `size` pets (all of them for an infinite size); a negative size drops that many from the end, as a Python slice does. */
export function firstOf(pets: readonly StoredPet[], size: number): readonly StoredPet[] {
  return Number.isFinite(size) ? pets.slice(0, size) : pets;
}

/** A query parameter written as an integer (a sign allowed), as a number; undefined for anything else. */
export function integerParameter(raw: unknown): number | undefined {
  return typeof raw === 'string' && /^-?[0-9]+$/.test(raw) ? Number(raw) : undefined;
}
