import type { FastifyReply, FastifyRequest } from 'fastify';
import { removeRateLimitHeaders } from '../../server/gate.js';
import { json, text, withHeaders, withoutHeader } from '../../server/responses.js';
import type { Answer, SeamOverride } from '../../server/seams.js';
import { browsableApiPage, expressErrorPage, NGINX_404, NGINX_413 } from './pages.js';
import type { DefectSpec } from './spec.js';

/** The path of a request, without its query. */
function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0]!;
}

/** An `outgoing` override for a response that never met the rate-limit middleware: `leftOff` says which. */
function rateLimitHeadersLeftOff(leftOff: (request: FastifyRequest, reply: FastifyReply) => boolean): SeamOverride<'outgoing'> {
  return (request, reply, payload, reference) => {
    if (leftOff(request, reply)) removeRateLimitHeaders(reply);
    return reference(request, reply, payload);
  };
}

/** A response to a path or a method no route has: fastify's not-found handler, or the 405 of a route that exists. */
function unrouted(request: FastifyRequest, reply: FastifyReply): boolean {
  return request.is404 || reply.statusCode === 405;
}

/** What a framework answers to a path (404) or a method (405) no route has, under the defects that keep its default. */
function frameworkDefault(answer: (request: FastifyRequest, status: 404 | 405, allow: string | undefined) => Answer): { notFound: SeamOverride<'notFound'>; otherMethod: SeamOverride<'otherMethod'> } {
  return {
    notFound: (request) => answer(request, 404, undefined),
    otherMethod: (request, allow) => answer(request, 405, allow),
  };
}

/** The cors middleware's answer to a preflight: 204 and what the browser may send. */
function corsPreflight(): Answer {
  return {
    status: 204,
    headers: {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': 'Authorization, Content-Type',
    },
  };
}

/** The media types an Accept header lists, in its order. */
function acceptedTypes(accept: string | undefined): string[] {
  return (accept ?? '').split(',').map((part) => part.split(';')[0]!.trim().toLowerCase()).filter((type) => type !== '');
}

/** The quality an Accept header gives a media range it names exactly (0 when it does not name it). */
function qualityOf(accept: string, range: string): number {
  const entry = accept.split(',').map((part) => part.trim().split(';')).find(([type]) => type!.trim().toLowerCase() === range);
  if (!entry) return 0;
  const q = entry.slice(1).map((parameter) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(parameter)?.[1]).find((value) => value !== undefined);
  return q === undefined ? 1 : Number(q);
}

/** Whether Spring's negotiation would pick XML first: application/xml named, and ranked above JSON and every wildcard. */
function ranksXmlFirst(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const xml = qualityOf(accept, 'application/xml');
  return xml > 0 && ['application/json', 'application/*', '*/*'].every((range) => xml > qualityOf(accept, range));
}

/** A JSON value as Jackson's XmlMapper writes it: a root element, arrays as repeated items. */
function xmlOf(value: unknown, element = 'List'): string {
  if (Array.isArray(value)) return `<${element}>${value.map((item) => xmlOf(item, 'item')).join('')}</${element}>`;
  if (typeof value === 'object' && value !== null) {
    return `<${element}>${Object.entries(value).map(([key, member]) => xmlOf(member, key)).join('')}</${element}>`;
  }
  return `<${element}>${String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</${element}>`;
}

/**
 * Defects of the requests around the documented ones: what stacks answer to a method a path does not have, a path
 * no route names, a body over their size limit, an OPTIONS or an Accept header. Each breaks a run-wide rule (an
 * error that is no Error, a body that is not JSON, a response without the rate-limit headers, a 5xx) or a rule
 * of the requests area, and only on the requests of that area.
 */
export const REQUESTS_DEFECTS = [
  {
    id: 'unrouted-express-default',
    area: 'requests',
    description: 'answers a path or a method no route has with Express\'s finalhandler page, 404 "Cannot PUT /v1/pets/1" as text/html (Express has no 405)',
    rules: ['ERR-01', 'ERR-02'],
    overrides: frameworkDefault((request) => ({
      status: 404,
      headers: { 'content-security-policy': "default-src 'none'" },
      contentType: 'text/html; charset=utf-8',
      text: expressErrorPage(`Cannot ${request.method} ${pathOf(request).replace(/[<>&"]/g, '')}`),
    })),
  },
  {
    id: 'unrouted-spring-whitelabel',
    area: 'requests',
    description: 'answers a path or a method no route has with Spring Boot\'s BasicErrorController body, {"timestamp", "status", "error": "Not Found", "path"} (405 "Method Not Allowed" for a method)',
    rules: ['ERR-02'],
    overrides: frameworkDefault((request, status, allow) => withHeaders(
      json(status, { timestamp: new Date().toISOString(), status, error: status === 404 ? 'Not Found' : 'Method Not Allowed', path: pathOf(request) }),
      allow === undefined ? {} : { allow },
    )),
  },
  {
    id: 'unrouted-fastapi-detail',
    area: 'requests',
    description: 'answers a path or a method no route has with Starlette\'s defaults, {"detail": "Not Found"} and {"detail": "Method Not Allowed"}',
    rules: ['ERR-02'],
    overrides: frameworkDefault((_request, status, allow) => withHeaders(json(status, { detail: status === 404 ? 'Not Found' : 'Method Not Allowed' }), allow === undefined ? {} : { allow })),
  },
  {
    id: 'unrouted-fastify-default',
    area: 'requests',
    description: 'answers a path or a method no route has with fastify\'s default 404, {"message": "Route PUT:/v1/pets/1 not found", "error": "Not Found", "statusCode": 404}',
    rules: ['ERR-02'],
    overrides: frameworkDefault((request) => json(404, { message: `Route ${request.method}:${pathOf(request)} not found`, error: 'Not Found', statusCode: 404 })),
  },
  {
    id: 'method-django-405-empty',
    area: 'requests',
    description: 'answers a method a path does not have with Django\'s View.http_method_not_allowed: 405, an Allow header and an empty text/html body',
    rules: ['ERR-01', 'ERR-02'],
    overrides: {
      otherMethod: (_request, allow) => ({ status: 405, headers: { allow }, contentType: 'text/html; charset=utf-8', text: '' }),
    },
  },
  {
    id: 'unrouted-nginx-404',
    area: 'requests',
    description: 'lets nginx answer a path its locations do not map with its own 404 page (text/html): the request never reaches the API, so no key is asked and no rate-limit headers are sent',
    rules: ['ERR-01', 'ERR-02', 'RATE-01'],
    overrides: {
      authenticate: (request, operation, reference) => (request.is404 ? text(404, 'text/html', NGINX_404) : reference(request, operation)),
      outgoing: rateLimitHeadersLeftOff((request) => request.is404),
    },
  },
  {
    id: 'unrouted-rate-headers-skipped',
    area: 'requests',
    description: 'sets the rate-limit headers in a middleware mounted on the API router (express-rate-limit on router.use), so a path or a method the router does not match is answered without them',
    rules: ['RATE-01'],
    overrides: {
      outgoing: rateLimitHeadersLeftOff(unrouted),
    },
  },
  {
    id: 'body-nginx-413',
    area: 'requests',
    description: 'lets nginx refuse a body over client_max_body_size (1m by default) with its own 413 page (text/html) and no rate-limit headers',
    rules: ['ERR-01', 'ERR-02', 'RATE-01'],
    overrides: {
      bodyTooLarge: () => text(413, 'text/html', NGINX_413),
      outgoing: rateLimitHeadersLeftOff((_request, reply) => reply.statusCode === 413),
    },
  },
  {
    id: 'body-limit-express-html',
    area: 'requests',
    description: 'lets body-parser\'s PayloadTooLargeError (limit 100kb by default) reach Express\'s finalhandler: 413 as an HTML page',
    rules: ['ERR-01', 'ERR-02'],
    overrides: {
      bodyTooLarge: () => text(413, 'text/html; charset=utf-8', expressErrorPage('PayloadTooLargeError: request entity too large')),
    },
  },
  {
    id: 'body-limit-500',
    area: 'requests',
    description: 'answers a body over the size limit 500: a catch-all error handler that maps every error it does not know to 500',
    rules: ['REQ-05', 'ERR-04'],
    overrides: {
      bodyTooLarge: (_request, _reference, server) => server.seams.error(500, 'internal_error', 'internal server error'),
    },
  },
  {
    id: 'options-express-text',
    area: 'requests',
    description: 'lets Express answer OPTIONS by itself: 200 with the Allow list as a text/html body ("GET,HEAD,POST")',
    rules: ['ERR-05'],
    overrides: {
      options: (_request, allow) => withHeaders(text(200, 'text/html; charset=utf-8', allow.replace(/, /g, ',')), { allow }),
    },
  },
  {
    id: 'options-cors-before-rate-limit',
    area: 'requests',
    description: 'mounts the cors middleware before the rate limiter, so it ends every OPTIONS with 204 and no rate-limit headers',
    rules: ['RATE-01'],
    overrides: {
      authenticate: (request, operation, reference) => (request.method === 'OPTIONS' ? corsPreflight() : reference(request, operation)),
      outgoing: rateLimitHeadersLeftOff((request) => request.method === 'OPTIONS'),
    },
  },
  {
    id: 'allow-missing-on-405',
    area: 'requests',
    description: 'answers a method a path does not have with a hand-written res.status(405).json(error), without the Allow header',
    rules: ['REQ-07'],
    overrides: {
      otherMethod: (request, allow, reference) => withoutHeader(reference(request, allow), 'allow'),
    },
  },
  {
    id: 'accept-exact-406',
    area: 'requests',
    description: 'answers 406 unless Accept is exactly "application/json" (a hand-written negotiation by string equality), refusing no Accept at all, */* and a browser\'s',
    rules: ['REQ-03'],
    overrides: {
      respond: async (operation, request, reference, server) => (request.headers.accept === 'application/json'
        ? reference(operation, request)
        : server.seams.error(406, 'not_acceptable', 'only application/json is served')),
    },
  },
  {
    id: 'accept-browsable-html',
    area: 'requests',
    description: 'renders the response as an HTML page when Accept prefers text/html, as Django REST framework\'s BrowsableAPIRenderer does for a browser',
    rules: ['ERR-05'],
    overrides: {
      respond: async (operation, request, reference) => (request.method === 'GET' && acceptedTypes(request.headers.accept)[0] === 'text/html'
        ? text(200, 'text/html; charset=utf-8', browsableApiPage(pathOf(request)))
        : reference(operation, request)),
    },
  },
  {
    id: 'accept-substring-406',
    area: 'requests',
    description: 'answers 406 unless Accept is absent, */* or names application/json (a negotiation by substring that never reads */*;q=0.8 inside a list): a browser\'s Accept is refused',
    rules: ['REQ-03'],
    overrides: {
      respond: async (operation, request, reference, server) => {
        const accept = request.headers.accept;
        const served = accept === undefined || accept === '*/*' || accept.includes('application/json');
        return served ? reference(operation, request) : server.seams.error(406, 'not_acceptable', 'only application/json is served');
      },
    },
  },
  {
    id: 'method-put-unhandled-500',
    area: 'requests',
    description: 'routes every method of /pets/{petId} to one handler (app.all) that switches on GET and falls through for the others, reading a body it never parsed: PUT and PATCH raise a TypeError, answered 500',
    rules: ['ERR-04'],
    overrides: {
      otherMethod: (request, allow, reference) => {
        if ((request.method === 'PUT' || request.method === 'PATCH') && /\/pets\/[^/]+$/.test(pathOf(request))) {
          throw new TypeError("Cannot read properties of undefined (reading 'name')");
        }
        return reference(request, allow);
      },
    },
  },
  {
    id: 'unrouted-spa-fallback',
    area: 'requests',
    description: 'serves the single-page app\'s index.html, 200 text/html, for any GET path no route has (connect-history-api-fallback mounted before the API\'s not-found handler)',
    rules: ['ERR-05'],
    overrides: {
      notFound: (request, reference) => (request.method === 'GET'
        ? text(200, 'text/html; charset=utf-8', '<!doctype html><html><head><title>Pet Store</title></head><body><div id="root"></div></body></html>')
        : reference(request)),
    },
  },
  {
    id: 'keepalive-refused-body-unread',
    area: 'requests',
    description: 'answers a POST without a key with 401 at once and never reads its body, keeping the connection open: the body is read as the next request, whose own bytes then get a 400 page (a hand-rolled auth gateway, a raw-socket server)',
    rules: ['REQ-09', 'ERR-01', 'ERR-02', 'RATE-01'],
    alsoMetIn: ['errors', 'ratelimit'],
    front: 'unread-refused-body',
  },
  {
    id: 'accept-xml-jackson-dataformat',
    area: 'requests',
    description: 'has jackson-dataformat-xml on the classpath, so Spring MVC negotiates XML for any Accept that ranks application/xml above */*, as a browser\'s does (application/xml;q=0.9 before */*;q=0.8): GET /pets answers application/xml',
    rules: ['ERR-05'],
    alsoMetIn: ['errors'],
    overrides: {
      respond: async (operation, request, reference) => {
        const answer = await reference(operation, request);
        return request.method === 'GET' && answer.status === 200 && ranksXmlFirst(request.headers.accept)
          ? text(200, 'application/xml;charset=UTF-8', xmlOf(answer.json))
          : answer;
      },
    },
  },
  {
    id: 'keepalive-post-crlf-skipped',
    area: 'requests',
    description: 'drops the two bytes after every POST body, the CRLF old browsers sent after one (RFC 7230 §3.5), without looking at them: on a kept-alive connection the next request loses its first two bytes and goes on as "T /v1/pets …", which the server behind refuses with its HTTP parser\'s own 400 (a hand-rolled front)',
    rules: ['REQ-09', 'ERR-02', 'RATE-01'],
    alsoMetIn: ['errors', 'ratelimit'],
    front: 'post-crlf-skipped',
  },
] as const satisfies readonly DefectSpec[];

