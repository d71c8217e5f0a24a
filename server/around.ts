// The reference server's answers to the requests around the documented ones: a method a path does not have, a
// path under the base URL that names no operation, OPTIONS and HEAD, a body over the size limit, an Accept header.
// The conforming answer is each function's last line; the defects and variants of these requests are the
// branches named after them, each a habit of the stack it names.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { isJsonObject, parseJson, stringifyJson, type Json } from '../helpers/json.js';
import type { Context } from './context.js';
import { readNewPet } from './new-pet.js';
import type { StoredPet } from './pet-store.js';
import { petBody, RATE_LIMIT_HEADERS, sendError, sendJson } from './responses.js';

/** The size limit of the reference server's bodies: fastify's default. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Under the body-limit-8mib variant. */
const LARGE_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** The body limit this server enforces (fastify's bodyLimit). */
export function bodyLimit(ctx: Context): number {
  return ctx.variant('body-limit-8mib') ? LARGE_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES;
}

/** The methods the reference server answers 405 to, where a path has a route but not for them. */
const OTHER_METHODS = ['PUT', 'PATCH', 'DELETE', 'POST'] as const;

/** What a path's routes are: the methods the spec names on it. */
interface PathRoutes {
  url: string;
  named: readonly string[];
}

/**
 * Registers, for every path that has routes, OPTIONS (204 and Allow) and every method it does not have (405 and
 * Allow, with an Error). HEAD comes with every GET (fastify's exposeHeadRoutes) unless the head-405 variant is on.
 */
export function registerOtherMethods(app: FastifyInstance, ctx: Context): void {
  const base = ctx.settings.basePath;
  const paths: PathRoutes[] = [
    { url: `${base}/pets`, named: ['GET', 'POST'] },
    { url: `${base}/pets/:petId`, named: ['GET'] },
    { url: `${base}/store/orders`, named: ['GET'] },
  ];
  for (const path of paths.filter(({ url }) => app.hasRoute({ method: 'GET', url }))) {
    const allow = allowed(path, ctx).join(', ');
    app.options(path.url, async (request, reply) => answerOptions(request, reply, ctx, allow));
    if (ctx.variant('head-405')) app.head(path.url, async (_request, reply) => reply.code(405).header('allow', allow).send());
    for (const method of OTHER_METHODS.filter((candidate) => !path.named.includes(candidate))) {
      app.route({ method, url: path.url, handler: async (request, reply) => answerOtherMethod(request, reply, ctx, allow) });
    }
  }
}

function allowed(path: PathRoutes, ctx: Context): string[] {
  const extension = ctx.variant('extension-methods') && path.url.endsWith('/:petId') ? ['PUT', 'PATCH', 'DELETE'] : [];
  return [...path.named, ...(ctx.variant('head-405') ? [] : ['HEAD']), ...extension, 'OPTIONS'];
}

/** OPTIONS: 204 with the methods of the path. */
function answerOptions(request: FastifyRequest, reply: FastifyReply, ctx: Context, allow: string): FastifyReply {
  // Express answers OPTIONS by itself with the Allow list as the body, typed text/html by res.send.
  if (ctx.has('options-express-text')) return reply.code(200).header('allow', allow).header('content-type', 'text/html; charset=utf-8').send(allow.replace(/, /g, ','));
  if (ctx.variant('unnamed-methods-404')) return sendRouteNotFound(request, reply, ctx);
  return reply.code(204).header('allow', allow).send();
}

/** A method the path does not have (or, under extension-methods, one it implements beyond the spec). */
async function answerOtherMethod(request: FastifyRequest, reply: FastifyReply, ctx: Context, allow: string): Promise<FastifyReply> {
  skipRateHeadersUnrouted(reply, ctx);
  const framework = frameworkPage(request, reply, ctx, 405, allow);
  if (framework) return framework;
  if (ctx.variant('extension-methods')) {
    const extended = extensionMethod(request, reply, ctx);
    if (extended) return extended;
  }
  if (ctx.variant('unnamed-methods-404')) return sendRouteNotFound(request, reply, ctx);
  const message = `${request.method} is not supported on ${request.routeOptions.url ?? request.url}`;
  // A server that implements no PUT, PATCH or DELETE anywhere does not recognise them; POST it does (on /pets).
  if (ctx.variant('unnamed-methods-501') && request.method !== 'POST') return sendError(reply, ctx, 501, 'not_implemented', message);
  // A hand-written 405 that forgets the header RFC 9110 §15.5.6 requires.
  if (!ctx.has('allow-missing-on-405')) reply.header('allow', allow);
  return sendError(reply, ctx, 405, 'method_not_allowed', message);
}

/** Under extension-methods: DELETE removes the pet, PUT replaces and PATCH updates its fields; a POST to it stays 405. */
function extensionMethod(request: FastifyRequest, reply: FastifyReply, ctx: Context): FastifyReply | undefined {
  if (!['DELETE', 'PUT', 'PATCH'].includes(request.method)) return undefined;
  const raw = (request.params as { petId?: string }).petId ?? '';
  const pet = /^-?[0-9]+$/.test(raw) ? ctx.store.get(BigInt(raw)) : undefined;
  if (!pet) return sendError(reply, ctx, 404, 'not_found', `no pet with id ${raw}`);
  if (request.method === 'DELETE') {
    ctx.store.delete(pet.id);
    return reply.code(204).send();
  }
  const text = typeof request.body === 'string' ? request.body : '';
  const replacement = readNewPet(request.method === 'PATCH' ? patched(pet, text) : text, ctx);
  if (!replacement.ok) return sendError(reply, ctx, 400, 'invalid_body', replacement.message);
  const { name, categoryId, status } = replacement.pet;
  Object.assign(pet, { name, categoryId, status });
  return sendJson(reply, ctx, 200, petBody(pet, ctx));
}

/** A merge patch (RFC 7396) of the pet's NewPet fields, as the text of the NewPet it makes; the text itself when it is no object. */
function patched(pet: StoredPet, text: string): string {
  let patch: Json;
  try {
    patch = parseJson(text);
  } catch {
    return text;
  }
  if (!isJsonObject(patch)) return text;
  const current = { name: pet.name ?? null, categoryId: pet.categoryId, ...(pet.status ? { status: pet.status } : {}) };
  return stringifyJson({ ...current, ...patch });
}

/**
 * A path under the base URL that no route names (fastify's not-found handler): 404 and an Error. A request
 * that reaches it has passed the gate, so without a key it was answered 401 already.
 */
export function sendRouteNotFound(request: FastifyRequest, reply: FastifyReply, ctx: Context): FastifyReply {
  skipRateHeadersUnrouted(reply, ctx);
  return frameworkPage(request, reply, ctx, 404) ?? sendError(reply, ctx, 404, 'not_found', `no operation ${request.method} ${request.url.split('?')[0]}`);
}

/** Under unrouted-rate-headers-skipped: express-rate-limit on router.use, which what the router does not match never meets. */
function skipRateHeadersUnrouted(reply: FastifyReply, ctx: Context): void {
  if (ctx.has('unrouted-rate-headers-skipped')) for (const header of RATE_LIMIT_HEADERS) reply.removeHeader(header);
}

/**
 * What a framework's own handlers answer to a path or a method no route has, under the defects that leave them in
 * place; undefined when the server's own Error goes out.
 */
function frameworkPage(request: FastifyRequest, reply: FastifyReply, ctx: Context, status: 404 | 405, allow?: string): FastifyReply | undefined {
  const path = request.url.split('?')[0]!;
  if (ctx.has('unrouted-express-default')) {
    const page = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${request.method} ${path.replace(/[<>&"]/g, '')}</pre>\n</body>\n</html>\n`;
    return reply.code(404).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', "default-src 'none'").send(page);
  }
  if (ctx.has('unrouted-spring-whitelabel')) {
    if (allow) reply.header('allow', allow);
    return sendJson(reply, ctx, status, { timestamp: new Date().toISOString(), status, error: status === 404 ? 'Not Found' : 'Method Not Allowed', path });
  }
  if (ctx.has('unrouted-fastapi-detail')) {
    if (allow) reply.header('allow', allow);
    return sendJson(reply, ctx, status, { detail: status === 404 ? 'Not Found' : 'Method Not Allowed' });
  }
  if (ctx.has('unrouted-fastify-default')) {
    return sendJson(reply, ctx, 404, { message: `Route ${request.method}:${path} not found`, error: 'Not Found', statusCode: 404 });
  }
  if (status === 405 && ctx.has('method-django-405-empty')) return reply.code(405).header('allow', allow ?? '').header('content-type', 'text/html; charset=utf-8').send('');
  return undefined;
}

const NGINX_404 = '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/**
 * What answers before the gate counts or authenticates a request: a proxy or middleware in front of the API. Under
 * the defects and variants that put one there; undefined for every other request.
 */
export function answerInFront(request: FastifyRequest, reply: FastifyReply, ctx: Context): FastifyReply | undefined {
  // nginx's locations map only the API's paths: anything else gets nginx's own page and never reaches the API.
  if (request.is404 && ctx.has('unrouted-nginx-404')) return reply.code(404).header('content-type', 'text/html').send(NGINX_404);
  // The cors middleware mounted before the rate limiter ends every OPTIONS as a preflight.
  if (request.method === 'OPTIONS' && ctx.has('options-cors-before-rate-limit')) return preflight(reply);
  return undefined;
}

/**
 * What answers after the rate limiter and before the key is checked: a CORS layer's preflight, a router that
 * matches before the auth middleware runs. Undefined for every other request.
 */
export function answerBeforeKey(request: FastifyRequest, reply: FastifyReply, ctx: Context): FastifyReply | undefined {
  if (request.method === 'OPTIONS' && ctx.variant('options-cors')) return preflight(reply);
  if (request.is404 && ctx.variant('routing-before-auth')) return sendRouteNotFound(request, reply, ctx);
  return undefined;
}

function preflight(reply: FastifyReply): FastifyReply {
  return reply.code(204)
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-methods', 'GET, POST, OPTIONS')
    .header('access-control-allow-headers', 'Authorization, Content-Type')
    .header('access-control-max-age', '600')
    .send();
}

const NGINX_413 = '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** The most of a refused body the server reads before it answers: past it, the connection is closed after the answer. */
const DRAINED_BYTES = 16 * 1024 * 1024;

/**
 * Reads what is left of a request body the server will not take, so that its answer reaches a client still
 * sending (nginx's lingering close): answering at once and closing makes the client's next write fail, and most
 * clients then lose the answer with it.
 */
function drain(raw: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (raw.complete) return resolve();
    let read = 0;
    raw.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAINED_BYTES) resolve();
    });
    raw.on('end', () => resolve());
    raw.on('error', () => resolve());
    raw.resume();
  });
}

/** A body over the size limit (fastify's FST_ERR_CTP_BODY_TOO_LARGE): 413 and an Error, once the body is read. */
export async function sendBodyTooLarge(request: FastifyRequest, reply: FastifyReply, ctx: Context): Promise<FastifyReply> {
  await drain(request.raw);
  const message = `the request body is larger than ${bodyLimit(ctx)} bytes`;
  if (ctx.has('body-nginx-413')) {
    for (const header of RATE_LIMIT_HEADERS) reply.removeHeader(header);
    return reply.code(413).header('content-type', 'text/html').send(NGINX_413);
  }
  if (ctx.has('body-limit-express-html')) {
    return reply.code(413).header('content-type', 'text/html; charset=utf-8')
      .send('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>PayloadTooLargeError: request entity too large</pre>\n</body>\n</html>\n');
  }
  if (ctx.has('body-limit-500')) return sendError(reply, ctx, 500, 'internal_error', 'internal server error');
  if (ctx.variant('body-too-large-400')) return sendError(reply, ctx, 400, 'invalid_body', message);
  return sendError(reply, ctx, 413, 'payload_too_large', message);
}

/** The media types an Accept header lists, with their q, in its order. */
function acceptedTypes(accept: string): Array<{ type: string; q: number }> {
  return accept.split(',').map((part) => {
    const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return { type, q: q === undefined ? 1 : Number(q.slice(2)) };
  }).filter(({ type }) => type !== '');
}

/** Whether an Accept header admits application/json (no header admits anything, RFC 9110 §12.5.1). */
function admitsJson(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  return acceptedTypes(accept).some(({ type, q }) => q > 0 && ['application/json', 'application/*', '*/*'].includes(type));
}

/** What runs before every handler: the media types of the request and of the answer it accepts. */
export function beforeHandler(ctx: Context): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  return async (request, reply) => refuseMediaType(request, reply, ctx) ?? negotiate(request, reply, ctx);
}

/**
 * The body's Content-Type on POST /pets: any spelling of application/json is application/json (RFC 9110 §8.3.1:
 * type, subtype and parameter names are case-insensitive), and the reference server parses every body as JSON
 * text; the defects compare it as a string.
 */
function refuseMediaType(request: FastifyRequest, reply: FastifyReply, ctx: Context): FastifyReply | undefined {
  if (request.method !== 'POST' || request.routeOptions.url !== `${ctx.settings.basePath}/pets`) return undefined;
  const type = request.headers['content-type'] ?? '';
  if (ctx.has('create-content-type-exact-415') && type !== 'application/json') return sendError(reply, ctx, 415, 'unsupported_media_type', 'Content-Type must be application/json');
  // The body parser ran only for a type that starts with 'application/json': the handler finds no body.
  if (ctx.has('create-content-type-case-sensitive') && !type.startsWith('application/json')) return sendError(reply, ctx, 400, 'invalid_body', 'request body is required');
  return undefined;
}

/**
 * Content negotiation before an operation runs: none on the reference server, which answers JSON whatever
 * the Accept (RFC 9110 lets a server disregard it); a 406 under accept-406; the defects' habits otherwise.
 */
function negotiate(request: FastifyRequest, reply: FastifyReply, ctx: Context): FastifyReply | undefined {
  const accept = request.headers.accept;
  if (ctx.has('accept-exact-406') && accept !== 'application/json') return sendError(reply, ctx, 406, 'not_acceptable', 'only application/json is served');
  // Django REST framework's BrowsableAPIRenderer: a browser asking for HTML first gets the API as a page.
  if (ctx.has('accept-browsable-html') && request.method === 'GET' && acceptedTypes(accept ?? '')[0]?.type === 'text/html') {
    return reply.code(200).header('content-type', 'text/html; charset=utf-8')
      .send(`<!DOCTYPE html>\n<html><head><title>Pet List – Django REST framework</title></head><body><div class="content-main"><h1>Pet List</h1><pre>GET ${request.url.replace(/[<>&"]/g, '')}</pre></div></body></html>\n`);
  }
  if (ctx.variant('accept-406') && !admitsJson(accept)) return sendError(reply, ctx, 406, 'not_acceptable', 'this API serves application/json only');
  return undefined;
}
