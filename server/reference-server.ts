import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { aroundSeams, drain, registerOtherMethods } from './around.js';
import { authSeams } from './auth.js';
import { creatingSeams } from './creating.js';
import { fetchingSeams } from './fetching.js';
import { gate, rateLimitSeams, settleCount } from './gate.js';
import { listingSeams } from './listing.js';
import { newPetSeams } from './new-pet.js';
import { resolveOptions, type ReferenceServerOptions, type ResolvedOptions } from './options.js';
import { PetStore, preloadPets } from './pet-store.js';
import { FixedWindowLimiter, type LimiterStats } from './rate-limiter.js';
import { responseSeams, send, sendError } from './responses.js';
import { registerRoutes, routingSeams } from './routes.js';
import { composeSeams, type Context, type Seams } from './seams.js';
import type { RouterSettings } from './settings.js';

export type { ReferenceServerOptions } from './options.js';
export type { Answer, ErrorAnswer, ListQuery, OperationId, Overrides, Parsed, PetBody, SeamOverride, Seams } from './seams.js';

export interface RunningReferenceServer {
  /** Base URL including the base path, e.g. http://127.0.0.1:43567/v1. */
  url: string;
  /** The first accepted API key. */
  apiKey: string;
  close(): Promise<void>;
  stats(): LimiterStats;
  /**
   * Starts every credential on a fresh rate-limit window and lifts every ban, as if the windows had passed: a client
   * (or a test reproducing a finding) then meets the server as a new window finds it, without waiting it out.
   */
  resetRateLimits(): void;
  /** Every pet the store holds, whatever a page of the API can show (at most 100): what a run left behind. */
  storedPets(): ReadonlyArray<{ id: bigint; name?: string | null }>;
}

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
    resetRateLimits: () => ctx.limiter.reset(),
    storedPets: () => ctx.store.all(),
  };
}

/** The configured fastify instance, not yet listening (for app.inject or a custom listen). */
export function createReferenceApp(options: ReferenceServerOptions = {}): FastifyInstance {
  return buildApp(options).app;
}

function buildApp(options: ReferenceServerOptions): { app: FastifyInstance; ctx: Context } {
  const ctx = createContext(resolveOptions(options));
  const { router } = ctx.settings;
  const app = Fastify({
    logger: false,
    // Closing stops the server: a connection a proxy or a client keeps alive, or a request still in flight, does not hold it open.
    forceCloseConnections: true,
    bodyLimit: ctx.settings.bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: router.trailingSlash === true, ignoreDuplicateSlashes: router.duplicateSlashes === true, caseSensitive: router.caseInsensitive !== true },
    // The spellings a proxy in front would have rewritten to the path: request.originalUrl keeps what was asked.
    ...(router.dotSegments || router.formatSuffix || router.pathParameters ? { rewriteUrl: (raw: { url?: string }) => rewrittenPath(raw.url ?? '/', router) } : {}),
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
  app.setErrorHandler(async (error: { statusCode?: number; message?: string; code?: string }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      await drain(request);
      return send(reply, ctx, ctx.seams.bodyTooLarge(request));
    }
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    return status >= 500
      ? sendError(reply, ctx, status, 'internal_error', 'internal server error')
      : sendError(reply, ctx, status, 'bad_request', error.message ?? 'bad request');
  });
  app.setNotFoundHandler((request, reply) => send(reply, ctx, ctx.seams.notFound(request)));
  registerRoutes(app, ctx);
  registerOtherMethods(app, ctx);
  return { app, ctx };
}

/** A path as a router that takes the spellings `router` names would route it; its query as it was. */
function rewrittenPath(url: string, router: RouterSettings): string {
  const at = url.indexOf('?');
  let path = at === -1 ? url : url.slice(0, at);
  if (router.dotSegments) path = new URL(path, 'http://x').pathname;
  if (router.pathParameters) path = path.replace(/;[^/]*/g, '');
  if (router.formatSuffix) path = path.replace(/\.json$/, '');
  return `${path}${at === -1 ? '' : url.slice(at)}`;
}

/** The server's state, and its seams: the reference's, each wrapped by the overrides it was started with. */
function createContext({ overrides, ...settings }: ResolvedOptions): Context {
  const store = new PetStore(settings.firstId, settings.readLagMs);
  preloadPets(store, settings.preload);
  // The seams and the limiter need the context they belong to; both are set before any request arrives.
  const ctx = { settings, store } as { -readonly [K in keyof Context]: Context[K] };
  const reference: Seams = {
    ...routingSeams(ctx),
    ...rateLimitSeams(ctx),
    ...authSeams(ctx),
    ...responseSeams(),
    ...listingSeams(),
    ...newPetSeams(ctx),
    ...creatingSeams(ctx),
    ...fetchingSeams(ctx),
    ...aroundSeams(ctx),
  };
  ctx.seams = composeSeams(reference, overrides, ctx);
  ctx.limiter = new FixedWindowLimiter(settings.rateLimit, ctx.seams.limiterPolicy());
  return ctx;
}

function finishResponse(ctx: Context) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    settleCount(request, reply, ctx);
    if (ctx.settings.latencyMs > 0) await sleep(ctx.settings.latencyMs);
    return ctx.seams.outgoing(request, reply, payload);
  };
}
