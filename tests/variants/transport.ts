import type { FastifyReply, FastifyRequest } from 'fastify';
import { gzipSync } from 'node:zlib';
import type { VariantSpec } from './spec.js';

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

/** Conforming variants of the transport area. */
export const TRANSPORT_VARIANTS = [
  {
    id: 'gzip',
    area: 'transport',
    description: 'gzips every body the client accepts gzip for; a request without Accept-Encoding accepts any coding (RFC 9110 §12.5.3)',
    overrides: {
      outgoing: (request, reply, payload, reference) => gzipped(request, reply, reference(request, reply, payload)),
    },
  },
  {
    id: 'connection-close',
    area: 'transport',
    description: 'sends Connection: close on every response, so every request needs a new connection (HTTP/1.0-minded proxies do)',
    overrides: {
      outgoing: (request, reply, payload, reference) => reference(request, reply.header('connection', 'close'), payload),
    },
  },
  {
    id: 'extra-headers',
    area: 'transport',
    description: 'adds X-Request-Id, CORS headers and a Server header to every response, as API gateways do',
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        reply.header('x-request-id', request.id);
        reply.header('access-control-allow-origin', '*');
        reply.header('access-control-expose-headers', 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After');
        reply.header('server', 'petstore/1.0');
        return reference(request, reply, payload);
      },
    },
  },
  {
    id: 'routes-lenient',
    area: 'transport',
    description: 'routes every spelling of a path to it (a trailing or doubled slash, letter case, dot segments, a format suffix, path parameters), as lenient routers and the proxies in front of them do, and asks the key on each as on the path',
    options: { router: { trailingSlash: true, duplicateSlashes: true, caseInsensitive: true, dotSegments: true, formatSuffix: true, pathParameters: true } },
  },
  {
    id: 'redirect-trailing-slash',
    area: 'transport',
    description: 'answers a path with a trailing slash with 301 to the path without it, before looking at the key (Django\'s and Spring\'s redirects): a redirect serves nothing',
    overrides: {
      authenticate: (request, operation, reference, server) => {
        const path = request.url.split('?')[0]!;
        if (path.length > server.settings.basePath.length + 1 && path.endsWith('/')) {
          return { status: 301, headers: { location: `${path.replace(/\/+$/, '')}${request.url.slice(path.length)}` } };
        }
        return reference(request, operation);
      },
    },
  },
] as const satisfies readonly VariantSpec[];
