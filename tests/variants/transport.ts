import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { parse, stringify } from 'lossless-json';
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

/** Whether a payload on its way out is a JSON body the server wrote (a media type of JSON, text not yet encoded). */
function isJsonBody(reply: FastifyReply, payload: unknown): payload is Buffer | string {
  const type = String(reply.getHeader('content-type') ?? '');
  return (typeof payload === 'string' || Buffer.isBuffer(payload)) && payload.length > 0 && /^application\/(?:[\w.-]+\+)?json\b/i.test(type) && reply.getHeader('content-encoding') === undefined;
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
  {
    id: 'json-unicode-escaped',
    area: 'transport',
    description: 'writes every JSON body as System.Text.Json\'s default encoder does: each character outside ASCII, and < > & \' +, as a \\uXXXX escape (🐾 as \\uD83D\\uDC3E); the text differs, the JSON value does not (RFC 8259 §7)',
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        const sent = reference(request, reply, payload);
        // These characters occur only inside JSON strings, so escaping them anywhere in the text escapes them there.
        return isJsonBody(reply, sent) ? Buffer.from(sent.toString('utf8').replace(/[^\x00-\x7f]|[<>&'+]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`), 'utf8') : sent;
      },
    },
  },
  {
    id: 'json-pretty-printed',
    area: 'transport',
    description: 'pretty-prints every JSON body with two-space indentation and a trailing newline (Go\'s json.MarshalIndent, Python\'s indent=2, Express\'s json spaces in development): whitespace means nothing in JSON',
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        const sent = reference(request, reply, payload);
        // lossless-json keeps every number as it was written, int64 beyond 2^53 included.
        return isJsonBody(reply, sent) ? Buffer.from(`${stringify(parse(sent.toString('utf8')), null, 2)}\n`, 'utf8') : sent;
      },
    },
  },
  {
    id: 'chunked-responses',
    area: 'transport',
    description: 'streams every body with Transfer-Encoding: chunked and no Content-Length, as a server that writes its answer as it goes does (RFC 9112 §7.1: every HTTP/1.1 client reads the chunked coding)',
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        const sent = reference(request, reply, payload);
        // A stream has no length up front, so Node frames it in chunks.
        return (typeof sent === 'string' || Buffer.isBuffer(sent)) && sent.length > 0 ? Readable.from([Buffer.from(sent)]) : sent;
      },
    },
  },
] as const satisfies readonly VariantSpec[];
