import type { DefectSpec } from './spec.js';

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
  },
  {
    id: 'unrouted-spring-whitelabel',
    area: 'requests',
    description: 'answers a path or a method no route has with Spring Boot\'s BasicErrorController body, {"timestamp", "status", "error": "Not Found", "path"} (405 "Method Not Allowed" for a method)',
    rules: ['ERR-02'],
  },
  {
    id: 'unrouted-fastapi-detail',
    area: 'requests',
    description: 'answers a path or a method no route has with Starlette\'s defaults, {"detail": "Not Found"} and {"detail": "Method Not Allowed"}',
    rules: ['ERR-02'],
  },
  {
    id: 'unrouted-fastify-default',
    area: 'requests',
    description: 'answers a path or a method no route has with fastify\'s default 404, {"message": "Route PUT:/v1/pets/1 not found", "error": "Not Found", "statusCode": 404}',
    rules: ['ERR-02'],
  },
  {
    id: 'method-django-405-empty',
    area: 'requests',
    description: 'answers a method a path does not have with Django\'s View.http_method_not_allowed: 405, an Allow header and an empty text/html body',
    rules: ['ERR-01', 'ERR-02'],
  },
  {
    id: 'unrouted-nginx-404',
    area: 'requests',
    description: 'lets nginx answer a path its locations do not map with its own 404 page (text/html): the request never reaches the API, so no rate-limit headers either',
    rules: ['ERR-01', 'ERR-02', 'RATE-01'],
  },
  {
    id: 'unrouted-rate-headers-skipped',
    area: 'requests',
    description: 'sets the rate-limit headers in a middleware mounted on the API router (express-rate-limit on router.use), so a path or a method the router does not match is answered without them',
    rules: ['RATE-01'],
  },
  {
    id: 'body-nginx-413',
    area: 'requests',
    description: 'lets nginx refuse a body over client_max_body_size (1m by default) with its own 413 page (text/html) and no rate-limit headers',
    rules: ['ERR-01', 'ERR-02', 'RATE-01'],
  },
  {
    id: 'body-limit-express-html',
    area: 'requests',
    description: 'lets body-parser\'s PayloadTooLargeError (limit 100kb by default) reach Express\'s finalhandler: 413 as an HTML page',
    rules: ['ERR-01', 'ERR-02'],
  },
  {
    id: 'body-limit-500',
    area: 'requests',
    description: 'answers a body over the size limit 500: a catch-all error handler that maps every error it does not know to 500',
    rules: ['REQ-05', 'ERR-04'],
  },
  {
    id: 'options-express-text',
    area: 'requests',
    description: 'lets Express answer OPTIONS by itself: 200 with the Allow list as a text/html body ("GET,HEAD,POST")',
    rules: ['ERR-05'],
  },
  {
    id: 'options-cors-before-rate-limit',
    area: 'requests',
    description: 'mounts the cors middleware before the rate limiter, so it ends every OPTIONS with 204 and no rate-limit headers',
    rules: ['RATE-01'],
  },
  {
    id: 'allow-missing-on-405',
    area: 'requests',
    description: 'answers a method a path does not have with a hand-written res.status(405).json(error), without the Allow header',
    rules: ['REQ-07'],
  },
  {
    id: 'accept-exact-406',
    area: 'requests',
    description: 'answers 406 unless Accept is exactly "application/json" (a hand-written negotiation by string equality), refusing no Accept at all, */* and a browser\'s',
    rules: ['REQ-03'],
  },
  {
    id: 'accept-browsable-html',
    area: 'requests',
    description: 'renders the response as an HTML page when Accept prefers text/html, as Django REST framework\'s BrowsableAPIRenderer does for a browser',
    rules: ['ERR-05'],
  },
] as const satisfies readonly DefectSpec[];
