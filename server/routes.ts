import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createPet } from './creating.js';
import { getPet } from './fetching.js';
import { listPets } from './listing.js';
import { json, send } from './responses.js';
import type { Answer, Context, OperationId, Seams } from './seams.js';

type Handler = (request: FastifyRequest, ctx: Context) => Promise<Answer>;

/** The spec's operations: method, path under the base path, and the handler that answers it. */
const OPERATIONS: Readonly<Record<OperationId, { method: 'GET' | 'POST'; path: string; handler: Handler }>> = {
  listPets: { method: 'GET', path: '/pets', handler: listPets },
  createPet: { method: 'POST', path: '/pets', handler: createPet },
  getPet: { method: 'GET', path: '/pets/:petId', handler: getPet },
  // "Only the existence of this operation is stated": the reference answers it with an empty list.
  getStoreOrders: { method: 'GET', path: '/store/orders', handler: async () => json(200, []) },
};

/** Registers every operation the server serves under the base path; each answers through `respond`. */
export function registerRoutes(app: FastifyInstance, ctx: Context): void {
  for (const [operation, { method, path }] of Object.entries(OPERATIONS) as Array<[OperationId, (typeof OPERATIONS)[OperationId]]>) {
    if (!ctx.seams.serves(operation)) continue;
    app.route({ method, url: `${ctx.settings.basePath}${path}`, handler: async (request, reply) => send(reply, ctx, await ctx.seams.respond(operation, request)) });
  }
}

/**
 * The reference seams of routing: every operation served, each by its handler, every response sent as it was
 * made, and a refused parameter answered 400 with an Error.
 */
export function routingSeams(ctx: Context): Pick<Seams, 'serves' | 'respond' | 'outgoing' | 'invalidParameter'> {
  return {
    serves: () => true,
    respond: (operation, request) => OPERATIONS[operation].handler(request, ctx),
    outgoing: (_request, _reply, payload) => payload,
    invalidParameter: (_parameter, refusal) => {
      const code = refusal.status === 500 ? 'internal_error' : refusal.status === 404 ? 'not_found' : 'invalid_parameter';
      return ctx.seams.error(refusal.status, code, refusal.message);
    },
  };
}

/**
 * The operation a request addresses, by its method and route; undefined for any other (an unknown path, a
 * method the path does not take, or HEAD, which fastify answers with the GET route but the spec does not name).
 */
export function operationOf(request: FastifyRequest, ctx: Context): OperationId | undefined {
  const route = request.routeOptions.url;
  if (route === undefined) return undefined;
  for (const [operation, { method, path }] of Object.entries(OPERATIONS) as Array<[OperationId, (typeof OPERATIONS)[OperationId]]>) {
    if (request.method === method && route === `${ctx.settings.basePath}${path}`) return operation;
  }
  return undefined;
}
