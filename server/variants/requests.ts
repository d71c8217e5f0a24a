import type { VariantSpec } from './spec.js';

/** Conforming answers to the requests around the documented ones: the freedoms the spec and HTTP leave. */
export const REQUESTS_VARIANTS = [
  {
    id: 'unnamed-methods-404',
    area: 'requests',
    description: 'answers a method a path does not have, OPTIONS included, with a 404 Error, as routers that match method and path together do',
  },
  {
    id: 'unnamed-methods-501',
    area: 'requests',
    description: 'answers PUT, PATCH and DELETE with a 501 Error: it implements them nowhere (RFC 9110 §9.1, §15.6.2); a POST to a pet stays 405, POST being a method it has',
  },
  {
    id: 'extension-methods',
    area: 'requests',
    description: 'implements DELETE (204, the pet is gone), PUT and PATCH on /pets/{petId}, methods the spec does not name',
  },
  {
    id: 'head-405',
    area: 'requests',
    description: 'implements no HEAD: a 405 with an Allow header, and no body (HEAD is not a method the spec names)',
  },
  {
    id: 'options-cors',
    area: 'requests',
    description: 'answers every OPTIONS as a CORS preflight, 204 with Access-Control-Allow-* headers, before authentication and after the rate limiter',
  },
  {
    id: 'routing-before-auth',
    area: 'requests',
    description: 'answers a path no operation has with a 404 Error before looking at the key (the spec requires the key of every operation, and such a path is none)',
  },
  {
    id: 'body-limit-8mib',
    area: 'requests',
    description: 'takes bodies up to 8 MiB, so a NewPet padded to 4 MiB is created (the maximum body size is not shown)',
  },
  {
    id: 'body-too-large-400',
    area: 'requests',
    description: 'refuses a body over its 1 MiB limit with a 400 Error instead of 413',
  },
  {
    id: 'accept-406',
    area: 'requests',
    description: 'answers an Accept header that admits no application/json with a 406 Error, as content negotiation allows (RFC 9110 §15.5.7)',
  },
] as const satisfies readonly VariantSpec[];
