// The requests around the documented operations: a method a path does not take, OPTIONS, a path under the base
// URL that names no operation, a body over the size limit. The spec names none of them, so HTTP decides what the
// reference answers: 405 with Allow, 204 with Allow, 404, 413, each with the spec's Error where there is a body
// ("Every error response has … the Error body"). HEAD comes with every GET route (fastify's exposeHeadRoutes).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { send, withHeaders } from './responses.js';
import type { Context, Seams } from './seams.js';

/** fastify's default limit on a request body, which the reference keeps: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** The paths of the spec's operations, and the methods the spec names on each. */
const PATHS: ReadonlyArray<{ path: string; named: readonly string[] }> = [
  { path: '/pets', named: ['GET', 'POST'] },
  { path: '/pets/:petId', named: ['GET'] },
  { path: '/store/orders', named: ['GET'] },
];

/** The methods a path may be sent that the spec does not name there: each is answered by the `otherMethod` seam. */
const OTHER_METHODS = ['PUT', 'PATCH', 'DELETE', 'POST'] as const;

/**
 * Registers OPTIONS and every other method on each path that has an operation routed: their answers are the
 * `options` and `otherMethod` seams', told which methods the path takes (Allow, RFC 9110 §10.2.1).
 */
export function registerOtherMethods(app: FastifyInstance, ctx: Context): void {
  for (const { path, named } of PATHS) {
    const url = `${ctx.settings.basePath}${path}`;
    if (!app.hasRoute({ method: 'GET', url })) continue;
    const allow = [...named, 'HEAD', 'OPTIONS'].join(', ');
    app.options(url, async (request, reply) => send(reply, ctx, ctx.seams.options(request, allow)));
    for (const method of OTHER_METHODS.filter((candidate) => !named.includes(candidate))) {
      app.route({ method, url, handler: async (request, reply) => send(reply, ctx, ctx.seams.otherMethod(request, allow)) });
    }
  }
}

/** The reference seams of the requests around the operations. */
export function aroundSeams(ctx: Context): Pick<Seams, 'otherMethod' | 'options' | 'notFound' | 'bodyTooLarge'> {
  return {
    // RFC 9110 §15.5.6: "The origin server MUST generate an Allow header field in a 405 response".
    otherMethod: (request, allow) => withHeaders(
      ctx.seams.error(405, 'method_not_allowed', `${request.method} is not supported on ${request.routeOptions.url ?? request.url.split('?')[0]}`),
      { allow },
    ),
    options: (_request, allow) => ({ status: 204, headers: { allow } }),
    notFound: (request) => ctx.seams.error(404, 'not_found', `no operation ${request.method} ${request.url.split('?')[0]}`),
    bodyTooLarge: () => ctx.seams.error(413, 'payload_too_large', `the request body is larger than ${ctx.settings.bodyLimitBytes} bytes`),
  };
}

/** The most of a refused body the server reads before it answers; past it, the connection closes after the answer. */
const DRAINED_BYTES = 16 * 1024 * 1024;

/**
 * Reads what is left of a request body the server will not take, so that its answer reaches a client still
 * sending (nginx's lingering close): answering at once and closing makes the client's next write fail, and most
 * clients then lose the answer with it.
 */
export function drain(request: FastifyRequest): Promise<void> {
  const raw: IncomingMessage = request.raw;
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
