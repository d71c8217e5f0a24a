import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GET_PET_REMOVAL, INT32, INT64, PAGE_SIZE } from '../helpers/spec/facts.js';
import { accepts } from './auth.js';
import type { Context } from './context.js';
import { isPetStatus, readNewPet, type NewPetFields, type NewPetResult } from './new-pet.js';
import type { StoredPet } from './pet-store.js';
import { jsonType, petBody, sendEmpty, sendError, sendJson } from './responses.js';

const { default: DEFAULT_LIMIT, min: MIN_LIMIT, max: MAX_LIMIT } = PAGE_SIZE;
// Used by the deprecation-headers variant: a fixed announcement date keeps responses reproducible.
const DEPRECATED_SINCE = Date.UTC(2025, 0, 1) / 1000;
// The spec's removal date as an HTTP-date (RFC 8594): 'Thu, 05 Dec 2030 00:00:00 GMT'.
const SUNSET = new Date(`${GET_PET_REMOVAL}T00:00:00Z`).toUTCString();
const SPA_INDEX = '<!doctype html>\n<html><head><meta charset="utf-8"><title>Pet Store</title></head><body><div id="root"></div><script src="/assets/index.js"></script></body></html>\n';
// The data layer's own cap, below the API's maximum of 100.
const DATA_LAYER_PAGE_CAP = 50;

type Parsed<T> = { value: T } | { status: 400 | 500; message: string };
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Registers the four operations under the base path; a removal defect simply skips one. */
export function registerRoutes(app: FastifyInstance, ctx: Context): void {
  const base = ctx.settings.basePath;
  app.get(`${base}/pets`, listPets(ctx));
  app.post(`${base}/pets`, createPet(ctx));
  if (!ctx.has('fetch-removed')) app.get(`${base}/pets/:petId`, getPet(ctx));
  if (!ctx.has('store-orders-missing')) {
    app.get(`${base}/store/orders`, async (_request, reply) => {
      if (ctx.has('auth-store-orders-rejects-key')) return sendUnauthorized(reply, ctx);
      // Express's res.send of a string: the JSON text goes out as text/plain when the type was set by hand.
      if (ctx.has('store-orders-text-plain')) return sendJson(reply, ctx, 200, [], 'text/plain; charset=utf-8');
      // A single-page app's catch-all route answers the path the API never mapped with its index.html.
      if (ctx.has('store-orders-spa-fallback')) return reply.code(200).header('content-type', 'text/html; charset=utf-8').send(SPA_INDEX);
      return sendJson(reply, ctx, 200, []);
    });
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
    if (!('value' in limit)) return sendQueryError(reply, ctx, limit, 'limit');
    const status = readStatusFilter(query.status, ctx);
    if (!('value' in status)) return sendQueryError(reply, ctx, status, 'status');
    const items = selectPets(ctx, pageSize(limit.value, query.limit !== undefined, status.value, ctx), status.value);
    const body = asPageDefects(items.map((pet) => withoutDefaultStatus(listItem(pet, ctx), ctx)), status.value, ctx);
    // Spring HATEOAS negotiates its own media type for a collection resource, whatever the body looks like.
    const contentType = ctx.has('list-text-plain') ? 'text/plain; charset=utf-8' : ctx.has('list-hal-json') ? 'application/hal+json' : undefined;
    return sendJson(reply, ctx, 200, ctx.has('list-wrapped-object') ? { items: body } : body, contentType);
  };
}

/** A refused query parameter: the Error it calls for, or what a framework answers by habit. */
// Express's res.sendStatus(400): the reason phrase as text/plain.
const SEND_STATUS = 'Bad Request';

function sendQueryError(reply: FastifyReply, ctx: Context, failure: { status: 400 | 500; message: string }, parameter: string): FastifyReply {
  if (failure.message === SEND_STATUS) return reply.code(400).header('content-type', 'text/plain; charset=utf-8').send(SEND_STATUS);
  if (failure.status === 400 && parameter === 'limit' && ctx.has('list-limit-422-detail')) {
    // FastAPI's own validation answer: 422 and {"detail": [...]}, not the spec's Error.
    return sendJson(reply, ctx, 422, { detail: [{ loc: ['query', 'limit'], msg: failure.message, type: 'value_error' }] });
  }
  if (failure.status === 400 && ctx.variant('query-errors-422')) return sendError(reply, ctx, 422, 'invalid_parameter', failure.message);
  // Django REST framework's serializer errors: {"limit": ["A valid integer is required."]}, no Error body.
  if (failure.status === 400 && parameter === 'limit' && ctx.has('list-limit-drf-field-errors')) return sendJson(reply, ctx, 400, { limit: ['A valid integer is required.'] });
  return sendParseError(reply, ctx, failure);
}

/** The items of a page as the defects of the page as a whole write them. */
function asPageDefects(items: Record<string, unknown>[], status: string | undefined, ctx: Context): Record<string, unknown>[] {
  // ROW_NUMBER() OVER (ORDER BY id) served as the id: it matches the ids only on an unfiltered page of ids from 1.
  if (ctx.has('list-row-number-ids')) items.forEach((item, index) => { item.id = BigInt(index + 1); });
  // A projection for filtered queries that leaves the status column out.
  if (ctx.has('list-filter-projection-drops-status') && status !== undefined) for (const item of items) delete item.status;
  // A category cache keyed by the first pet it was filled for.
  if (ctx.has('list-cached-category') && items.length > 0) for (const item of items) item.categoryId = items[0]!.categoryId;
  return items;
}

// Jackson's @JsonInclude(NON_DEFAULT) on a list DTO whose status field defaults to AVAILABLE.
function withoutDefaultStatus(body: Record<string, unknown>, ctx: Context): Record<string, unknown> {
  if (ctx.has('list-default-status-omitted') && body.status === 'available') delete body.status;
  return body;
}

function readLimit(raw: unknown, ctx: Context): Parsed<number> {
  if (raw === undefined) return { value: ctx.has('list-default-limit-10') ? 10 : DEFAULT_LIMIT };
  const problem = `limit must be an integer from ${MIN_LIMIT} to ${MAX_LIMIT}`;
  if (ctx.variant('lenient-limit')) return readLimitLeniently(raw, problem);
  // Signs are read so that clamp-limit can clamp -5; a conforming answer to them is still 400.
  if (typeof raw !== 'string' || !/^-?[0-9]+$/.test(raw)) {
    return ctx.has('list-limit-noninteger-500') ? { status: 500, message: 'internal error' } : { status: 400, message: problem };
  }
  const limit = Number(raw);
  // MAX_PAGE_SIZE read from the environment is a string too, so the comparison is lexicographic: "7" > "100".
  if (ctx.has('list-limit-string-compare') && raw > String(MAX_LIMIT)) return { status: 400, message: problem };
  if (limit >= MIN_LIMIT && limit <= MAX_LIMIT && withinDeclaredBounds(limit, ctx)) return { value: limit };
  if (limit < 1 && ctx.has('list-limit-nonpositive-500')) return { status: 500, message: 'internal error' };
  if (limit > MAX_LIMIT && ctx.has('list-limit-unbounded')) return { value: limit };
  // `if limit:` in Python: 0 is falsy, so the page is not cut at all.
  if (limit === 0 && ctx.has('list-limit-0-unlimited')) return { value: Number.POSITIVE_INFINITY };
  // Handed unchecked to pets[:limit], where -1 means "all but the last".
  if (limit < 0 && ctx.has('list-limit-negative-slice')) return { value: limit };
  if (limit === 0 && ctx.variant('limit-zero-empty')) return { value: 0 };
  if (ctx.variant('clamp-limit')) return { value: Math.min(Math.max(limit, MIN_LIMIT), MAX_LIMIT) };
  return { status: 400, message: problem };
}

/** The bounds as a validator declared them: `exclusiveMaximum` or `limit > 1` where inclusive bounds were meant. */
function withinDeclaredBounds(limit: number, ctx: Context): boolean {
  if (ctx.has('list-limit-100-refused') && limit >= MAX_LIMIT) return false;
  if (ctx.has('list-limit-1-refused') && limit <= 1) return false;
  return true;
}

/** parseInt as Express code often reads a query: a numeric prefix is the limit, anything else the default page. */
function readLimitLeniently(raw: unknown, problem: string): Parsed<number> {
  const limit = typeof raw === 'string' ? Number.parseInt(raw, 10) : Number.NaN;
  if (Number.isNaN(limit)) return { value: DEFAULT_LIMIT };
  return limit >= MIN_LIMIT && limit <= MAX_LIMIT ? { value: limit } : { status: 400, message: problem };
}

function readStatusFilter(raw: unknown, ctx: Context): Parsed<string | undefined> {
  if (raw === undefined || isPetStatus(raw)) return { value: raw };
  if (typeof raw === 'string' && ctx.variant('status-filter-case-insensitive') && isPetStatus(raw.toLowerCase())) return { value: raw.toLowerCase() };
  if (ctx.has('errors-unknown-status-500')) return { status: 500, message: 'internal error' };
  if (ctx.has('list-status-sendstatus-400')) return { status: 400, message: SEND_STATUS };
  // An unknown status matches no pet: an empty page, which the spec does not forbid.
  if (ctx.variant('unknown-status-empty')) return { value: typeof raw === 'string' ? raw : String(raw) };
  return { status: 400, message: 'status must be one of available, pending, sold' };
}

function pageSize(limit: number, limitGiven: boolean, status: string | undefined, ctx: Context): number {
  if (ctx.has('list-limit-ignored')) return DEFAULT_LIMIT;
  if (status !== undefined && ctx.has('list-status-drops-limit')) return DEFAULT_LIMIT;
  // Rails' Pet.all: the default page was never written.
  if (!limitGiven && ctx.has('list-no-default-page')) return Number.POSITIVE_INFINITY;
  // The default page lives in the unfiltered branch only; the filtered query passes just the given limit on.
  if (!limitGiven && status !== undefined && ctx.has('list-filter-no-default-page')) return Number.POSITIVE_INFINITY;
  if (limitGiven && ctx.has('list-limit-off-by-one')) return limit + 1;
  return limit;
}

function selectPets(ctx: Context, size: number, status: string | undefined): readonly StoredPet[] {
  let pets = ctx.store.all();
  if (ctx.variant('newest-first') || ctx.has('list-page-capped-at-50')) pets = [...pets].reverse();
  // A default scope (Rails) or manager (Django) that keeps only rows whose enum column holds a known value.
  if (ctx.has('list-scope-drops-null-status')) pets = pets.filter((pet) => typeof pet.status === 'string');
  if (ctx.variant('shuffled')) pets = shuffled(pets);
  // SELECT … FROM (SELECT … LIMIT n) WHERE status = ?: the page is cut before it is filtered.
  if (ctx.has('list-filter-after-limit')) pets = cut(pets, size);
  // `status = ? OR status IS NULL`: an "optional" filter that also matches the rows without status.
  const matches = (pet: StoredPet) => pet.status === status || (ctx.has('list-filter-matches-null-status') && (pet.status === undefined || pet.status === null));
  if (status !== undefined && !ctx.has('list-status-ignored')) pets = pets.filter(matches);
  // A LEFT JOIN without DISTINCT: the first row has two matches in the joined table, so it comes twice.
  if (ctx.has('list-join-repeats-row') && pets.length > 0) pets = [pets[0]!, ...pets];
  if (status !== undefined && ctx.has('list-status-empty')) pets = [];
  return cut(pets, size, ctx);
}

/** The first `size` pets; a negative size drops that many from the end, as a Python slice does. */
function cut(pets: readonly StoredPet[], size: number, ctx?: Context): readonly StoredPet[] {
  if (ctx?.has('list-page-capped-at-50')) return pets.slice(0, Math.min(size, DATA_LAYER_PAGE_CAP));
  return Number.isFinite(size) ? pets.slice(0, size) : pets;
}

/** A fresh order on every call: the spec promises no order, so a client may not rely on one. */
function shuffled(pets: readonly StoredPet[]): StoredPet[] {
  const copy = [...pets];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function listItem(pet: StoredPet, ctx: Context): Record<string, unknown> {
  const body = petBody(pet, ctx);
  if (ctx.has('list-categoryid-string')) body.categoryId = String(pet.categoryId);
  if (ctx.has('list-categoryid-float64') && pet.categoryId !== null) body.categoryId = Number(pet.categoryId);
  // Go: the list DTO's Status is a plain string without omitempty, so a pet without status is listed with "".
  if (ctx.has('list-status-go-zero-value') && body.status === undefined) body.status = '';
  // Items read from a search index whose analyser lower-cases every text field.
  if (ctx.has('list-search-index-lowercase') && typeof body.name === 'string') body.name = body.name.toLowerCase();
  return body;
}

// ── createPet ──

function createPet(ctx: Context): Handler {
  return async (request, reply) => {
    const text = typeof request.body === 'string' ? request.body : undefined;
    const result = readNewPet(text, ctx);
    if (!result.ok) {
      // Express: an empty body reaches the handler as {} and a hand-written check answers res.status(400).send('Bad Request').
      if (result.status === 400 && (text ?? '').trim() === '' && ctx.has('create-empty-body-text-400')) {
        return reply.code(400).header('content-type', 'text/html; charset=utf-8').send('Bad Request');
      }
      if (result.status === 400) {
        const framework = frameworkRejection(text ?? '', result, ctx, request.url);
        if (framework) return framework(reply);
      }
      const status = result.status === 400 && ctx.has('create-422') ? 422 : result.status;
      return sendError(reply, ctx, status, result.code, result.message);
    }
    // Under this defect the gate let the request through unauthenticated; the key is checked only now.
    if (ctx.has('auth-after-validation') && !accepts(request.headers.authorization, ctx)) return sendUnauthorized(reply, ctx);
    const refused = refuseName(result.pet.name, reply, ctx);
    if (refused) return refused;
    const pet = await storePetRacily(result.pet, ctx);
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

/**
 * What the store makes of a name, before the pet is saved: any JSON string is a name, so nothing on the reference
 * server; a unique constraint or a database that refuses U+0000 under the defects, a refusal under the variant.
 */
function refuseName(name: string | null | undefined, reply: FastifyReply, ctx: Context): FastifyReply | undefined {
  if (typeof name !== 'string') return undefined;
  const taken = ctx.store.all().some((pet) => pet.name === name);
  // A unique index on name, its violation answered 409 Conflict, or not caught at all.
  if (taken && ctx.has('create-name-unique-409')) return sendError(reply, ctx, 409, 'conflict', `a pet named ${JSON.stringify(name)} exists`);
  if (taken && ctx.has('create-name-unique-500')) throw new Error(`IntegrityError: duplicate key value violates unique constraint "pets_name_key"`);
  if (taken && ctx.variant('name-unique-400')) return sendError(reply, ctx, 400, 'invalid_body', 'name must be unique');
  // PostgreSQL's text type holds no U+0000, and the driver's error is not caught.
  if (name.includes('\u0000') && ctx.has('create-name-nul-500')) throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
  return undefined;
}

/**
 * Read-modify-write id allocation: SELECT MAX(id) + 1, then an await (a category lookup), then the INSERT,
 * with no lock and no unique constraint, so writes in flight together take the same id.
 */
async function storePetRacily(fields: NewPetFields, ctx: Context): Promise<StoredPet> {
  if (!ctx.has('create-id-max-plus-one-racy') || fields.id !== undefined) return storePet(fields, ctx);
  const ids = ctx.store.all().map((pet) => pet.id);
  const next = ids.reduce((max, id) => (id > max ? id : max), ctx.store.firstId - 1n) + 1n;
  await new Promise((resolve) => setTimeout(resolve, CATEGORY_LOOKUP_MS));
  return storePet({ ...fields, id: next }, ctx);
}

const CATEGORY_LOOKUP_MS = 20;

function storePet(fields: NewPetFields, ctx: Context): StoredPet {
  // Under the mass-assignment defect the body's id is spread over the one the service assigned.
  const id = fields.id ?? (ctx.has('create-same-id') ? ctx.store.firstId : ctx.has('create-id-per-category') ? idWithinCategory(fields.categoryId, ctx)
    : ctx.variant('random-ids') ? ctx.store.randomId() : ctx.store.allocateId());
  const categoryId = ctx.has('create-categoryid-double') && fields.categoryId !== null ? Number(fields.categoryId) : fields.categoryId;
  const pet: StoredPet = { id, categoryId, createdAt: new Date().toISOString() };
  if (fields.name !== undefined) pet.name = fields.name;
  const status = initialStatus(fields.status, ctx);
  if (status !== undefined) pet.status = status;
  if (!ctx.has('create-not-stored')) ctx.store.save(asSaved(pet, ctx));
  return pet;
}

/** The n of a composite key (categoryId, n), served as the id: the count of the category's pets so far, plus one. */
function idWithinCategory(categoryId: bigint | number | null, ctx: Context): bigint {
  const held = ctx.store.all().filter((pet) => pet.categoryId !== null && categoryId !== null && BigInt(pet.categoryId) === BigInt(categoryId)).length;
  return ctx.store.firstId + BigInt(held);
}

const INT32_COLUMN = { min: -(2n ** 31n), max: 2n ** 31n - 1n };

/** The row as the database keeps it, where the 201 echoes the entity the request built (a JPA save without refresh). */
function asSaved(pet: StoredPet, ctx: Context): StoredPet {
  const row = { ...pet };
  // A MySQL utf8mb3 column holds no 4-byte character: outside strict mode each one is stored as '?'.
  if (ctx.has('create-name-utf8mb3') && typeof row.name === 'string') row.name = row.name.replace(/[\u{10000}-\u{10FFFF}]/gu, '?');
  // sqlite3_bind_text with length -1 reads the name as a C string, which ends at U+0000.
  if (ctx.has('create-name-cut-at-nul') && typeof row.name === 'string') row.name = row.name.split('\u0000')[0]!;
  // A column DEFAULT 'available' the entity in memory never learns of.
  if (ctx.has('create-status-db-default') && row.status === undefined) row.status = 'available';
  // An INT column outside strict mode clamps what does not fit to its ends.
  if (ctx.has('create-echo-not-stored-category') && typeof row.categoryId === 'bigint') {
    row.categoryId = row.categoryId > INT32_COLUMN.max ? INT32_COLUMN.max : row.categoryId < INT32_COLUMN.min ? INT32_COLUMN.min : row.categoryId;
  }
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
    if (!('value' in id)) return sendPetIdError(reply, ctx, id);
    // findById(id).orElse(findAll().get(0)): a fallback meant for a demo page.
    const found = findPet(id.value, ctx) ?? (ctx.has('fetch-unknown-falls-back-to-first') ? ctx.store.all()[0] : undefined);
    const pet = cachedByRoute(found, ctx);
    // JSON:API's media type for a body that is not JSON:API.
    if (pet && ctx.has('fetch-jsonapi-media-type')) return sendJson(reply, ctx, 200, servedPet(pet, ctx), 'application/vnd.api+json');
    // The id of the path written over the row loaded by position (OFFSET id): every pet is served under the id of the one before it.
    if (ctx.has('fetch-path-id-over-row')) {
      const row = ctx.store.all()[Number(id.value - ctx.store.firstId) + 1];
      if (row) return sendJson(reply, ctx, 200, { ...servedPet(row, ctx), id: id.value });
    }
    // Express's res.send(JSON.stringify(pet)): a string body goes out as text/html.
    if (pet && ctx.has('fetch-express-send-string')) return sendJson(reply, ctx, 200, servedPet(pet, ctx), 'text/html; charset=utf-8');
    if (pet) return sendJson(reply, ctx, 200, servedPet(pet, ctx));
    return sendPetNotFound(request, reply, ctx, raw);
  };
}

/**
 * A response cache keyed by the route template (`/pets/:petId`) instead of the URL: the first pet served is
 * served for every id after it.
 */
function cachedByRoute(pet: StoredPet | undefined, ctx: Context): StoredPet | undefined {
  if (!ctx.has('fetch-cache-keyed-by-route') || !pet) return pet;
  const cached = routeCache.get(ctx) ?? pet;
  routeCache.set(ctx, cached);
  return cached;
}

const routeCache = new WeakMap<Context, StoredPet>();

/** The lookup, as a store keyed by id does it, or as an array-backed store gets it wrong. */
function findPet(id: bigint, ctx: Context): StoredPet | undefined {
  const pets = ctx.store.all();
  const index = Number(id - ctx.store.firstId);
  // pets[id] on a 0-based array of 1-based ids: every lookup lands on the next pet.
  if (ctx.has('fetch-array-index-zero-based')) return index + 1 >= 0 ? pets[index + 1] : undefined;
  // Array.prototype.at counts a negative index from the end: /pets/-1 serves the last pet but one.
  if (ctx.has('fetch-lookup-with-at')) return index < pets.length ? pets.at(index) : undefined;
  if (ctx.has('fetch-index-bound-off-by-one')) {
    // `index > pets.length` where `>=` was meant: the slot after the last pet passes, and reading it throws.
    if (index < 0 || index > pets.length) return undefined;
    const pet = pets[index];
    if (!pet) throw new TypeError(`Cannot read properties of undefined (reading 'id')`);
    return pet;
  }
  return ctx.store.get(ctx.has('fetch-id-lossy-double') ? BigInt(Number(id)) : id);
}

function servedPet(pet: StoredPet, ctx: Context): Record<string, unknown> {
  const body = petBody(pet, ctx);
  if (ctx.has('fetch-status-omitted')) delete body.status;
  return body;
}

/** A pet that does not exist: 404 with an Error, or what a framework or a slip answers instead. */
function sendPetNotFound(request: FastifyRequest, reply: FastifyReply, ctx: Context, raw: string): FastifyReply {
  if (ctx.has('fetch-unknown-200-empty')) return sendJson(reply, ctx, 200, {});
  if (ctx.has('fetch-unknown-200-null')) return sendJson(reply, ctx, 200, null);
  // The JSON content type is set for every response up front (a middleware), the body then left out.
  if (ctx.has('fetch-unknown-204')) return reply.code(204).header('content-type', jsonType(ctx)).send();
  if (ctx.has('fetch-unknown-404-text')) return sendEmpty(reply, 404);
  // nginx in front with proxy_intercept_errors on: the upstream's 404 body is replaced by nginx's own page.
  if (ctx.has('fetch-404-nginx-page')) return reply.code(404).header('content-type', 'text/html').send(NGINX_404);
  // Optional.get() on an empty Optional, None.name: the miss is never checked, so it crashes.
  if (ctx.has('fetch-unknown-500')) throw new Error('NoSuchElementException: No value present');
  if (ctx.has('fetch-spring-default-404')) {
    return sendJson(reply, ctx, 404, { timestamp: new Date().toISOString(), status: 404, error: 'Not Found', path: request.url });
  }
  return sendError(reply, ctx, 404, 'not_found', `no pet with id ${raw}`);
}

const NGINX_404 = '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';
const EXPRESS_400 = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>BadRequestError: Invalid petId</pre>\n</body>\n</html>\n';

function sendPetIdError(reply: FastifyReply, ctx: Context, failure: { status: 400 | 404 | 500; message: string }): FastifyReply {
  // next(createError(400, 'Invalid petId')) with no error middleware of the app's own: Express's finalhandler page.
  if (failure.status === 400 && ctx.has('fetch-petid-express-html')) return reply.code(400).header('content-type', 'text/html; charset=utf-8').send(EXPRESS_400);
  if (failure.status === 500) return sendError(reply, ctx, 500, 'internal_error', failure.message);
  if (failure.status === 404 || ctx.variant('petid-malformed-404')) return sendError(reply, ctx, 404, 'not_found', failure.message);
  return sendError(reply, ctx, ctx.variant('query-errors-422') ? 422 : 400, 'invalid_parameter', failure.message);
}

function readPetId(raw: string, ctx: Context): { value: bigint } | { status: 400 | 404 | 500; message: string } {
  const problem = { status: 400 as const, message: 'petId must be an int64 integer' };
  if (ctx.has('fetch-parseint-petid')) {
    const lenient = Number.parseInt(raw, 10);
    return Number.isFinite(lenient) ? { value: BigInt(lenient) } : problem;
  }
  // Python's int("abc") raises ValueError, and nothing turns it into a 400.
  if (!/^-?[0-9]+$/.test(raw)) return ctx.has('fetch-petid-valueerror-500') ? { status: 500, message: `invalid literal for int() with base 10: '${raw}'` } : problem;
  const id = BigInt(raw);
  // Long.parseLong throws NumberFormatException past int64, and no handler maps it to a 400.
  if (ctx.has('fetch-petid-overflow-500') && (id < INT64.min || id > INT64.max)) return { status: 500, message: `NumberFormatException: For input string: "${raw}"` };
  // The bound checked as `id <= 2^63`: 2^63 itself gets through to the bigint column, whose cast fails.
  if (ctx.has('fetch-int64-bound-off-by-one') && id === INT64.max + 1n) return { status: 500, message: 'ERROR: bigint out of range' };
  // strconv.ParseUint where the spec says int64: a negative id is refused as malformed.
  if (ctx.has('fetch-petid-unsigned') && id < 0n) return problem;
  // Integer.parseInt where the spec says int64: a valid id past 2^31 - 1 is refused as malformed.
  if (ctx.has('fetch-petid-int32') && (id < INT32.min || id > INT32.max)) return problem;
  return id >= INT64.min && id <= INT64.max ? { value: id } : problem;
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
  // A gateway's response template for 401 that keeps the upstream's JSON body but sets its own Content-Type.
  if (ctx.has('auth-401-gateway-text-plain')) return sendJson(reply, ctx, 401, { ...UNAUTHORIZED, status: 401 }, 'text/plain');
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
