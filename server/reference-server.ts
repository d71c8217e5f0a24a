import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { accepts, validBearerKey } from './auth.js';
import type { Context } from './context.js';
import { defectById, type DefectId } from './defects.js';
import { resolveOptions, type ReferenceServerOptions, type ResolvedOptions, type ServerSettings } from './options.js';
import { PetStore, preloadPets } from './pet-store.js';
import { FixedWindowLimiter, type LimiterStats } from './rate-limiter.js';
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
    // A URL fastify cannot decode never reaches the hooks; it still gets the gate and an Error body.
    frameworkErrors: (error, request, reply) => {
      void gate(ctx)(request, reply).then((sent) => sent ?? sendError(reply, ctx, 400, 'bad_request', error.message));
    },
  });
  // Raw text in, our own parse: fastify's JSON parser would round int64 and answer in its own error format.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addHook('onRequest', gate(ctx));
  app.addHook('onSend', finishResponse(ctx));
  app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    return status >= 500
      ? sendError(reply, ctx, status, 'internal_error', 'internal server error')
      : sendError(reply, ctx, status, 'bad_request', error.message ?? 'bad request');
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, ctx, 404, 'not_found', `no operation ${request.method} ${request.url}`));
  registerRoutes(app, ctx);
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
  });
  return { settings, store, limiter, has, variant };
}

/** Bucket → rate limit → auth, for every request including unknown routes, before any body is read. */
function gate(ctx: Context): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  return async (request, reply) => {
    const key = validBearerKey(request.headers.authorization, ctx.settings.apiKeys);
    const admission = ctx.limiter.admit(key ?? `anon:${request.ip}`, key !== undefined);
    setRateLimitHeaders(reply, admission, ctx);
    if (admission.verdict === 'banned') return sendError(reply, ctx, 403, 'banned', 'this API key is banned for ignoring 429 responses');
    if (admission.verdict === 'limited') {
      if (!ctx.has('rate-429-no-retry-after')) reply.header('retry-after', retryAfter(admission, ctx));
      if (ctx.has('rate-429-text-body')) return reply.code(429).header('content-type', 'text/plain; charset=utf-8').send('Too Many Requests');
      return sendError(reply, ctx, 429, 'rate_limited', `rate limit of ${admission.limit} requests exceeded`);
    }
    if (authDeferred(request, ctx) || accepts(request.headers.authorization, ctx)) return undefined;
    return sendUnauthorized(reply, ctx);
  };
}

function authDeferred(request: FastifyRequest, ctx: Context): boolean {
  const route = request.routeOptions.url;
  const base = ctx.settings.basePath;
  if (ctx.has('auth-store-orders-open') && route === `${base}/store/orders`) return true;
  return ctx.has('auth-after-validation') && request.method === 'POST' && route === `${base}/pets`;
}

function finishResponse(ctx: Context) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (ctx.has('rate-headers-missing-on-errors') && reply.statusCode >= 400) {
      for (const header of RATE_LIMIT_HEADERS) reply.removeHeader(header);
    }
    if (ctx.variant('slow')) await sleep(SLOW_DELAY_MS);
    return payload;
  };
}
