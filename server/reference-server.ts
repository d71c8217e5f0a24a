import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { acceptedKeys, accepts, acceptsKeyElsewhere, answerBeforeAuth, isPublicRoute, validBearerKey } from './auth.js';
import { answerBeforeKey, answerInFront, beforeHandler, bodyLimit, registerOtherMethods, sendBodyTooLarge, sendRouteNotFound } from './around.js';
import type { Context } from './context.js';
import { defectById, type DefectId } from './defects.js';
import { resolveOptions, type ReferenceServerOptions, type ResolvedOptions } from './options.js';
import type { ServerSettings } from './settings.js';
import { PetStore, preloadPets } from './pet-store.js';
import { FixedWindowLimiter, type Admission, type LimiterStats } from './rate-limiter.js';
import { RATE_LIMIT_HEADERS, retryAfter, sendError, setRateLimitHeaders } from './responses.js';
import { registerRoutes, sendUnauthorized } from './routes.js';
import { variantById, type VariantId } from './variants.js';

export type { ReferenceServerOptions } from './options.js';

export interface RunningReferenceServer {
  /** Base URL including the base path, e.g. http://127.0.0.1:43567/v1. */
  url: string;
  /** The first accepted API key. */
  apiKey: string;
  close(): Promise<void>;
  stats(): LimiterStats;
}

const SLOW_DELAY_MS = 200;
const NGINX_401 = '<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n<center><h1>401 Authorization Required</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
const BAN_AFTER_429S = 3;

/** Starts the server on loopback (by default) and resolves once it listens. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<RunningReferenceServer> {
  const { app, ctx } = buildApp(options);
  await app.listen({ host: ctx.settings.host, port: ctx.settings.port });
  const { port } = app.server.address() as AddressInfo;
  const host = ctx.settings.host.includes(':') ? `[${ctx.settings.host}]` : ctx.settings.host;
  return {
    url: `http://${host}:${port}${ctx.settings.basePath}`,
    apiKey: ctx.settings.apiKeys[0]!,
    close: () => app.close(),
    stats: () => ctx.limiter.stats(),
  };
}

/** The configured fastify instance, not yet listening (for app.inject or a custom listen). */
export function createReferenceApp(options: ReferenceServerOptions = {}): FastifyInstance {
  return buildApp(options).app;
}

/** Resolves options with the settings every switched-on defect and variant needs. */
export function resolveReferenceOptions(options: ReferenceServerOptions = {}): ResolvedOptions {
  const resolved = resolveOptions(options, switchSettings(options));
  // The versioning defect is a base path, so it can only be an override, never a default.
  return resolved.defects.has('base-path-api') ? { ...resolved, basePath: '/api' } : resolved;
}

function switchSettings(options: ReferenceServerOptions): Partial<ServerSettings>[] {
  const fromDefects = (options.defects ?? []).map((id) => defectById(id).options ?? {});
  const fromVariants = (options.variants ?? []).map((id) => variantById(id).options ?? {});
  return [...fromDefects, ...fromVariants];
}

function buildApp(options: ReferenceServerOptions): { app: FastifyInstance; ctx: Context } {
  const ctx = createContext(resolveReferenceOptions(options));
  const app = Fastify({
    logger: false,
    bodyLimit: bodyLimit(ctx),
    // HEAD comes with every GET, as RFC 9110 §9.3.2 has it, unless the variant implements none.
    exposeHeadRoutes: !ctx.variant('head-405'),
    // A URL fastify cannot decode never reaches the hooks; it still gets the gate and an Error body.
    frameworkErrors: (error, request, reply) => {
      void gate(ctx)(request, reply).then((sent) => sent ?? sendError(reply, ctx, 400, 'bad_request', error.message));
    },
  });
  // Raw text in, our own parse: fastify's JSON parser would round int64 and answer in its own error format.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addHook('onRequest', gate(ctx));
  app.addHook('preHandler', routingDefects(ctx));
  app.addHook('preHandler', beforeHandler(ctx));
  app.addHook('onSend', finishResponse(ctx));
  app.setErrorHandler((error: { statusCode?: number; message?: string; code?: string }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendBodyTooLarge(request, reply, ctx);
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    return status >= 500
      ? sendError(reply, ctx, status, 'internal_error', 'internal server error')
      : sendError(reply, ctx, status, 'bad_request', error.message ?? 'bad request');
  });
  app.setNotFoundHandler((request, reply) => sendRouteNotFound(request, reply, ctx));
  registerRoutes(app, ctx);
  registerOtherMethods(app, ctx);
  return { app, ctx };
}

function createContext(settings: ResolvedOptions): Context {
  const store = new PetStore(settings.firstId, settings.readLagMs);
  preloadPets(store, settings.preload);
  const has = (id: DefectId): boolean => settings.defects.has(id);
  const variant = (id: VariantId): boolean => settings.variants.has(id);
  const limiter = new FixedWindowLimiter(settings.rateLimit, {
    enforce: !has('rate-never-429'),
    carryExhaustion: has('rate-window-never-resets'),
    ...(variant('ban-after-429') ? { banAfter429s: BAN_AFTER_429S } : {}),
    countOnlySuccess: variant('errors-not-counted'),
    slidingLog: variant('sliding-window'),
    ...(has('rate-enforced-below-limit') ? { refuseBelowLimitBy: GATEWAY_LIMIT_SHORTFALL } : {}),
  });
  return { settings, store, limiter, has, variant };
}

// Under rate-enforced-below-limit, how far below X-RateLimit-Limit the gateway refuses.
const GATEWAY_LIMIT_SHORTFALL = 5;

// The admission of each request, for the count that is settled once its status is known.
const admissions = new WeakMap<FastifyRequest, Admission>();

/** Bucket → rate limit → auth, for every request including unknown routes, before any body is read. */
function gate(ctx: Context): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  return async (request, reply) => {
    const inFront = answerInFront(request, reply, ctx);
    if (inFront) return inFront;
    const key = validBearerKey(request.headers.authorization, acceptedKeys(ctx));
    const bucket = ctx.variant('limit-by-address') ? `addr:${request.ip}` : key ?? `anon:${request.ip}`;
    const admission = ctx.limiter.admit(bucket, key !== undefined);
    admissions.set(request, admission);
    setRateLimitHeaders(reply, admission, ctx);
    if (admission.verdict === 'banned') return sendError(reply, ctx, 403, 'banned', 'this API key is banned for ignoring 429 responses');
    if (admission.verdict === 'limited') {
      if (!ctx.has('rate-429-no-retry-after')) reply.header('retry-after', retryAfter(admission, ctx));
      if (ctx.has('rate-429-text-body')) return reply.code(429).header('content-type', 'text/plain; charset=utf-8').send('Too Many Requests');
      return sendError(reply, ctx, 429, 'rate_limited', `rate limit of ${admission.limit} requests exceeded`);
    }
    const early = answerBeforeKey(request, reply, ctx) ?? answerBeforeAuth(request, reply, ctx);
    if (early) return early;
    if (authDeferred(request, ctx) || accepts(request.headers.authorization, ctx) || acceptsKeyElsewhere(request, ctx)) return undefined;
    // nginx's auth_request on the /store/ location: its own 401 page, never the upstream's Error.
    if (ctx.has('store-orders-nginx-401') && request.routeOptions.url === `${ctx.settings.basePath}/store/orders`) {
      return reply.code(401).header('content-type', 'text/html').send(NGINX_401);
    }
    return sendUnauthorized(reply, ctx);
  };
}

function authDeferred(request: FastifyRequest, ctx: Context): boolean {
  const route = request.routeOptions.url;
  const base = ctx.settings.basePath;
  if (ctx.has('auth-store-orders-open') && route === `${base}/store/orders`) return true;
  if (isPublicRoute(request, ctx)) return true;
  return ctx.has('auth-after-validation') && request.method === 'POST' && route === `${base}/pets`;
}

/**
 * Defects of routing, which answer an operation before its handler runs (after the gate, so the key is
 * checked and counted as for any request).
 */
function routingDefects(ctx: Context): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  return async (request, reply) => {
    const base = ctx.settings.basePath;
    const operation = `${request.method} ${request.routeOptions.url ?? ''}`;
    if (operation === `GET ${base}/store/orders`) {
      // Spring answers a path mapped with @PostMapping only with 405 Method Not Allowed to a GET.
      if (ctx.has('store-orders-post-only')) return sendError(reply.header('allow', 'POST'), ctx, 405, 'method_not_allowed', 'GET is not supported here');
      // A generated stub left unimplemented throws, and the framework's error handler answers 500.
      if (ctx.has('store-orders-unimplemented')) throw new Error('not implemented');
    }
    if (operation === `GET ${base}/pets/:petId` && ctx.has('get-pet-gone-410')) {
      return sendError(reply, ctx, 410, 'gone', 'GET /pets/{petId} is deprecated; use GET /pets?status=');
    }
    return undefined;
  };
}

function finishResponse(ctx: Context) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    settleCount(request, reply, ctx);
    if ((ctx.has('rate-headers-missing-on-errors') && reply.statusCode >= 400) || rateHeadersSkipped(request, reply, ctx)) {
      for (const header of RATE_LIMIT_HEADERS) reply.removeHeader(header);
    }
    if (ctx.has('rate-remaining-stale-on-get-pet')) reportRemainingBeforeCount(request, reply, ctx);
    if (ctx.has('rate-remaining-frozen-on-get-pet') && isGetPet(request, ctx) && reply.hasHeader('x-ratelimit-remaining')) {
      reply.header('x-ratelimit-remaining', String(ctx.settings.rateLimit.limit));
    }
    // Go's net/http: a handler that never sets Content-Type gets http.DetectContentType's guess, which
    // names JSON text "text/plain; charset=utf-8".
    if (ctx.has('json-content-type-sniffed') && /^application\/json/.test(String(reply.getHeader('content-type') ?? ''))) {
      reply.header('content-type', 'text/plain; charset=utf-8');
    }
    if (ctx.variant('extra-headers')) addExtraHeaders(request, reply);
    if (ctx.variant('connection-close')) reply.header('connection', 'close');
    const latencyMs = Math.max(ctx.settings.latencyMs, ctx.variant('slow') ? SLOW_DELAY_MS : 0);
    if (latencyMs > 0) await sleep(latencyMs);
    if (ctx.variant('gzip')) return gzipped(request, reply, payload);
    return payload;
  };
}

/** The routes and answers a rate-limit header middleware skips, under the defects that say which. */
function rateHeadersSkipped(request: FastifyRequest, reply: FastifyReply, ctx: Context): boolean {
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  const base = ctx.settings.basePath;
  return (ctx.has('rate-headers-skip-get-pet') && route === `GET ${base}/pets/:petId`)
    || (ctx.has('rate-headers-skip-post') && route === `POST ${base}/pets`)
    || (ctx.has('rate-headers-skip-401') && reply.statusCode === 401);
}

function isGetPet(request: FastifyRequest, ctx: Context): boolean {
  return request.method === 'GET' && request.routeOptions.url === `${ctx.settings.basePath}/pets/:petId`;
}

/** Under rate-remaining-stale-on-get-pet: getPet's answer says what remained before it was counted. */
function reportRemainingBeforeCount(request: FastifyRequest, reply: FastifyReply, ctx: Context): void {
  const admission = admissions.get(request);
  if (!isGetPet(request, ctx) || admission?.verdict !== 'ok') return;
  const remaining = Number(reply.getHeader('x-ratelimit-remaining'));
  reply.header('x-ratelimit-remaining', String(Math.min(admission.limit, remaining + 1)));
}

/** Under errors-not-counted, a request counts once it is known to have succeeded; its headers say so. */
function settleCount(request: FastifyRequest, reply: FastifyReply, ctx: Context): void {
  const admission = admissions.get(request);
  if (!admission?.settle) return;
  const remaining = admission.settle(reply.statusCode < 400);
  setRateLimitHeaders(reply, { ...admission, remaining }, ctx);
}

/** What many gateways add: a request id, CORS and a Server header. None of them is the spec's business. */
function addExtraHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After');
  reply.header('server', 'petstore/1.0');
}

/**
 * Gzip whenever the client accepts it; a request with no Accept-Encoding accepts any coding (RFC 9110
 * §12.5.3), so that includes it.
 */
function gzipped(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const accept = request.headers['accept-encoding'];
  const acceptsGzip = accept === undefined || /(^|,)\s*(gzip|\*)\s*(,|$|;(?!\s*q=0(\.0*)?\s*(,|$)))/i.test(accept);
  if (!acceptsGzip || !(typeof payload === 'string' || Buffer.isBuffer(payload)) || payload.length === 0) return payload;
  reply.header('content-encoding', 'gzip');
  reply.header('vary', 'Accept-Encoding');
  return gzipSync(payload);
}
