import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accepts } from './auth.js';
import type { Context } from './context.js';
import { isPetStatus, readNewPet, type NewPetFields } from './new-pet.js';
import type { StoredPet } from './pet-store.js';
import { petBody, sendEmpty, sendError, sendJson } from './responses.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
// Used by the deprecation-headers variant: a fixed announcement date keeps responses reproducible.
const DEPRECATED_SINCE = Date.UTC(2025, 0, 1) / 1000;
const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';

type Parsed<T> = { value: T } | { status: 400 | 500; message: string };
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Registers the four operations under the base path; a removal defect simply skips one. */
export function registerRoutes(app: FastifyInstance, ctx: Context): void {
  const base = ctx.settings.basePath;
  app.get(`${base}/pets`, listPets(ctx));
  app.post(`${base}/pets`, createPet(ctx));
  if (!ctx.has('fetch-removed')) app.get(`${base}/pets/:petId`, getPet(ctx));
  if (!ctx.has('store-orders-missing')) {
    app.get(`${base}/store/orders`, async (_request, reply) =>
      ctx.has('auth-store-orders-rejects-key') ? sendUnauthorized(reply, ctx) : sendJson(reply, ctx, 200, []));
  }
}

/** Answers a failed parse of a parameter with the Error it calls for. */
function sendParseError(reply: FastifyReply, ctx: Context, failure: { status: 400 | 500; message: string }): FastifyReply {
  const code = failure.status === 500 ? 'internal_error' : 'invalid_parameter';
  return sendError(reply, ctx, failure.status, code, failure.message);
}

// ── listPets ──

function listPets(ctx: Context): Handler {
  return async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const limit = readLimit(query.limit, ctx);
    if (!('value' in limit)) return sendParseError(reply, ctx, limit);
    const status = readStatusFilter(query.status, ctx);
    if (!('value' in status)) return sendParseError(reply, ctx, status);
    const items = selectPets(ctx, pageSize(limit.value, query.limit !== undefined, status.value, ctx), status.value);
    const body = items.map((pet) => listItem(pet, ctx));
    const contentType = ctx.has('list-text-plain') ? 'text/plain; charset=utf-8' : undefined;
    return sendJson(reply, ctx, 200, ctx.has('list-wrapped-object') ? { items: body } : body, contentType);
  };
}

function readLimit(raw: unknown, ctx: Context): Parsed<number> {
  if (raw === undefined) return { value: ctx.has('list-default-limit-10') ? 10 : DEFAULT_LIMIT };
  const problem = `limit must be an integer from 1 to ${MAX_LIMIT}`;
  // Signs are read so that clamp-limit can clamp -5; a conforming answer to them is still 400.
  if (typeof raw !== 'string' || !/^-?[0-9]+$/.test(raw)) {
    return ctx.has('list-limit-noninteger-500') ? { status: 500, message: 'internal error' } : { status: 400, message: problem };
  }
  const limit = Number(raw);
  if (limit >= 1 && limit <= MAX_LIMIT) return { value: limit };
  if (limit < 1 && ctx.has('list-limit-nonpositive-500')) return { status: 500, message: 'internal error' };
  if (limit > MAX_LIMIT && ctx.has('list-limit-unbounded')) return { value: limit };
  if (ctx.variant('clamp-limit')) return { value: Math.min(Math.max(limit, 1), MAX_LIMIT) };
  return { status: 400, message: problem };
}

function readStatusFilter(raw: unknown, ctx: Context): Parsed<string | undefined> {
  if (raw === undefined || isPetStatus(raw)) return { value: raw };
  if (ctx.has('errors-unknown-status-500')) return { status: 500, message: 'internal error' };
  return { status: 400, message: 'status must be one of available, pending, sold' };
}

function pageSize(limit: number, limitGiven: boolean, status: string | undefined, ctx: Context): number {
  if (ctx.has('list-limit-ignored')) return DEFAULT_LIMIT;
  if (status !== undefined && ctx.has('list-status-drops-limit')) return DEFAULT_LIMIT;
  if (limitGiven && ctx.has('list-limit-off-by-one')) return limit + 1;
  return limit;
}

function selectPets(ctx: Context, size: number, status: string | undefined): readonly StoredPet[] {
  let pets = ctx.store.all();
  if (ctx.variant('newest-first')) pets = [...pets].reverse();
  if (status !== undefined && !ctx.has('list-status-ignored')) pets = pets.filter((pet) => pet.status === status);
  if (status !== undefined && ctx.has('list-status-empty')) pets = [];
  return pets.slice(0, size);
}

function listItem(pet: StoredPet, ctx: Context): Record<string, unknown> {
  const body = petBody(pet, ctx);
  if (ctx.has('list-categoryid-string')) body.categoryId = String(pet.categoryId);
  return body;
}

// ── createPet ──

function createPet(ctx: Context): Handler {
  return async (request, reply) => {
    const result = readNewPet(typeof request.body === 'string' ? request.body : undefined, ctx);
    if (!result.ok) {
      const status = result.status === 400 && ctx.has('create-422') ? 422 : result.status;
      return sendError(reply, ctx, status, result.code, result.message);
    }
    // Under this defect the gate let the request through unauthenticated; the key is checked only now.
    if (ctx.has('auth-after-validation') && !accepts(request.headers.authorization, ctx)) return sendUnauthorized(reply, ctx);
    const pet = storePet(result.pet, ctx);
    const body = petBody(pet, ctx);
    if (ctx.has('create-no-id')) delete body.id;
    if (ctx.has('create-status-not-echoed')) delete body.status;
    return sendJson(reply, ctx, ctx.has('create-200') ? 200 : 201, body);
  };
}

function storePet(fields: NewPetFields, ctx: Context): StoredPet {
  const id = ctx.has('create-same-id') ? ctx.store.firstId : ctx.store.allocateId();
  const categoryId = ctx.has('create-categoryid-double') && fields.categoryId !== null ? Number(fields.categoryId) : fields.categoryId;
  const pet: StoredPet = { id, categoryId, createdAt: new Date().toISOString() };
  if (fields.name !== undefined) pet.name = fields.name;
  const status = initialStatus(fields.status, ctx);
  if (status !== undefined) pet.status = status;
  if (!ctx.has('create-not-stored')) ctx.store.save(pet);
  return pet;
}

function initialStatus(sent: string | null | undefined, ctx: Context): string | null | undefined {
  if (sent !== undefined) return sent;
  if (ctx.has('create-missing-status-unknown')) return 'unknown';
  if (ctx.variant('default-status')) return 'available';
  return undefined; // the spec states no default, so none is invented (the no-status variant)
}

// ── getPet ──

function getPet(ctx: Context): Handler {
  return async (request, reply) => {
    if (ctx.variant('deprecation-headers')) announceDeprecation(reply, ctx);
    const raw = (request.params as { petId: string }).petId;
    const id = readPetId(raw, ctx);
    if (id === undefined) return sendError(reply, ctx, 400, 'invalid_parameter', 'petId must be an int64 integer');
    const pet = ctx.store.get(ctx.has('fetch-id-lossy-double') ? BigInt(Number(id)) : id);
    if (pet) return sendJson(reply, ctx, 200, petBody(pet, ctx));
    if (ctx.has('fetch-unknown-200-empty')) return sendJson(reply, ctx, 200, {});
    if (ctx.has('fetch-unknown-404-text')) return sendEmpty(reply, 404);
    return sendError(reply, ctx, 404, 'not_found', `no pet with id ${raw}`);
  };
}

function readPetId(raw: string, ctx: Context): bigint | undefined {
  if (ctx.has('fetch-parseint-petid')) {
    const lenient = Number.parseInt(raw, 10);
    return Number.isFinite(lenient) ? BigInt(lenient) : undefined;
  }
  if (!/^-?[0-9]+$/.test(raw)) return undefined;
  const id = BigInt(raw);
  return id >= INT64_MIN && id <= INT64_MAX ? id : undefined;
}

function announceDeprecation(reply: FastifyReply, ctx: Context): void {
  reply.header('deprecation', `@${DEPRECATED_SINCE}`);
  reply.header('sunset', SUNSET);
  reply.header('link', `<${ctx.settings.basePath}/pets>; rel="successor-version"`);
}

// ── auth answers, shared with the gate ──

export function sendUnauthorized(reply: FastifyReply, ctx: Context): FastifyReply {
  const presented = (reply.request.headers.authorization ?? '').trim() !== '';
  if (ctx.has('auth-express-jwt-json')) return sendExpressJwtJson(reply, presented);
  if (ctx.has('auth-express-html')) return sendExpressHtml(reply, presented);
  if (!ctx.has('auth-no-challenge')) reply.header('www-authenticate', challenge(presented, ctx));
  if (ctx.has('auth-403')) return sendError(reply, ctx, 403, 'forbidden', 'a valid API key is required');
  if (ctx.has('auth-401-empty-body')) return sendEmpty(reply, 401);
  if (ctx.variant('auth-error-extra-members')) {
    return sendJson(reply, ctx, 401, { ...UNAUTHORIZED, status: 401, details: [{ location: 'header', field: 'Authorization' }], traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
  }
  return sendError(reply, ctx, 401, UNAUTHORIZED.code, UNAUTHORIZED.message);
}

const UNAUTHORIZED = { code: 'unauthorized', message: 'send the API key as Authorization: Bearer <key>' } as const;

// RFC 6750 §3.1: error="invalid_token" once a token was presented, none when the request carried no credentials.
function challenge(presented: boolean, ctx: Context): string {
  if (!ctx.variant('auth-challenge-error-params') || !presented) return 'Bearer realm="petstore"';
  return 'Bearer realm="petstore", error="invalid_token", error_description="The access token is invalid"';
}

// express-jwt's UnauthorizedError passed to a handler that answers res.status(err.status).json({ message }).
function sendExpressJwtJson(reply: FastifyReply, presented: boolean): FastifyReply {
  const message = presented ? 'invalid token' : 'No authorization token was found';
  return reply.code(401).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify({ message }));
}

// Express's finalhandler page for an error with status 401 that no error middleware caught.
function sendExpressHtml(reply: FastifyReply, presented: boolean): FastifyReply {
  const message = presented ? 'UnauthorizedError: invalid token' : 'UnauthorizedError: No authorization token was found';
  const page = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${message}</pre>\n</body>\n</html>\n`;
  return reply.code(401).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', "default-src 'none'").send(page);
}
