import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accepts } from './auth.js';
import type { Context } from './context.js';
import { isPetStatus, readNewPet, type NewPetFields, type NewPetResult } from './new-pet.js';
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
  if (ctx.has('list-categoryid-float64') && pet.categoryId !== null) body.categoryId = Number(pet.categoryId);
  return body;
}

// ── createPet ──

function createPet(ctx: Context): Handler {
  return async (request, reply) => {
    const text = typeof request.body === 'string' ? request.body : undefined;
    const result = readNewPet(text, ctx);
    if (!result.ok) {
      if (result.status === 400) {
        const framework = frameworkRejection(text ?? '', result, ctx, request.url);
        if (framework) return framework(reply);
      }
      const status = result.status === 400 && ctx.has('create-422') ? 422 : result.status;
      return sendError(reply, ctx, status, result.code, result.message);
    }
    // Under this defect the gate let the request through unauthenticated; the key is checked only now.
    if (ctx.has('auth-after-validation') && !accepts(request.headers.authorization, ctx)) return sendUnauthorized(reply, ctx);
    const pet = storePet(result.pet, ctx);
    if (ctx.variant('location-header') || ctx.has('create-201-no-body')) reply.header('location', `${ctx.settings.basePath}/pets/${pet.id}`);
    // Spring's ResponseEntity.created(uri).build(): a Location and no body at all.
    if (ctx.has('create-201-no-body')) return reply.code(201).send();
    const body = petBody(pet, ctx);
    if (ctx.has('create-no-id')) delete body.id;
    if (ctx.has('create-status-not-echoed')) delete body.status;
    // JSON.stringify cannot write a BigInt, so the id goes out as a string.
    if (ctx.has('create-id-as-string')) body.id = String(pet.id);
    return sendJson(reply, ctx, ctx.has('create-200') ? 200 : 201, body);
  };
}

/**
 * The 400 a framework sends on its own before the handler's Error is ever built, under the defects that
 * leave it in place; undefined when the handler's own Error goes out.
 */
function frameworkRejection(text: string, result: Extract<NewPetResult, { ok: false }>, ctx: Context, path: string): ((reply: FastifyReply) => FastifyReply) | undefined {
  // Express: body-parser in strict mode throws a SyntaxError for any non-empty body that is not JSON or not an
  // object or array (an empty one it reads as {}), and the default error handler answers with an HTML page.
  if (ctx.has('create-express-html-400') && text.length > 0 && (result.code === 'invalid_json' || !/^\s*[{[]/.test(text))) {
    return (reply) => reply.code(400).header('content-type', 'text/html; charset=utf-8')
      .send('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Bad Request</pre>\n</body>\n</html>\n');
  }
  // Spring Boot: an HttpMessageNotReadableException (Jackson could not read the body) gets the default error body.
  if (ctx.has('create-spring-default-error') && result.unreadable) {
    return (reply) => sendJson(reply, ctx, 400, { timestamp: new Date().toISOString(), status: 400, error: 'Bad Request', path });
  }
  // Fastify: a schema validation or body-parser failure answered with its own error shape, which has no status.
  if (ctx.has('create-fastify-validation-error')) {
    const code = result.code === 'invalid_json' ? (text.trim() === '' ? 'FST_ERR_CTP_EMPTY_JSON_BODY' : 'FST_ERR_CTP_INVALID_JSON_BODY') : 'FST_ERR_VALIDATION';
    return (reply) => sendJson(reply, ctx, 400, { statusCode: 400, code, error: 'Bad Request', message: result.message });
  }
  return undefined;
}

function storePet(fields: NewPetFields, ctx: Context): StoredPet {
  // Under the mass-assignment defect the body's id is spread over the one the service assigned.
  const id = fields.id ?? (ctx.has('create-same-id') ? ctx.store.firstId : ctx.variant('random-ids') ? ctx.store.randomId() : ctx.store.allocateId());
  const categoryId = ctx.has('create-categoryid-double') && fields.categoryId !== null ? Number(fields.categoryId) : fields.categoryId;
  const pet: StoredPet = { id, categoryId, createdAt: new Date().toISOString() };
  if (fields.name !== undefined) pet.name = fields.name;
  const status = initialStatus(fields.status, ctx);
  if (status !== undefined) pet.status = status;
  if (!ctx.has('create-not-stored')) ctx.store.save(asSaved(pet, ctx));
  return pet;
}

/** The row as the database keeps it, where the 201 echoes the entity the request built (a JPA save without refresh). */
function asSaved(pet: StoredPet, ctx: Context): StoredPet {
  const row = { ...pet };
  // A MySQL utf8mb3 column holds no 4-byte character: outside strict mode each one is stored as '?'.
  if (ctx.has('create-name-utf8mb3') && typeof row.name === 'string') row.name = row.name.replace(/[\u{10000}-\u{10FFFF}]/gu, '?');
  // A column DEFAULT 'available' the entity in memory never learns of.
  if (ctx.has('create-status-db-default') && row.status === undefined) row.status = 'available';
  return row;
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
  if (!ctx.has('auth-no-challenge')) reply.header('www-authenticate', 'Bearer realm="petstore"');
  if (ctx.has('auth-403')) return sendError(reply, ctx, 403, 'forbidden', 'a valid API key is required');
  if (ctx.has('auth-401-empty-body')) return sendEmpty(reply, 401);
  return sendError(reply, ctx, 401, 'unauthorized', 'send the API key as Authorization: Bearer <key>');
}
