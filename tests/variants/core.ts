import { GET_PET_REMOVAL, PAGE_SIZE } from '../../helpers/spec/facts.js';
import { integerParameter } from '../../server/listing.js';
import { json, withHeaders } from '../../server/responses.js';
import { insteadOf, onAnswer } from '../../server/seams.js';
import type { VariantSpec } from './spec.js';

// A fixed announcement date keeps responses reproducible.
const DEPRECATED_SINCE = Date.UTC(2025, 0, 1) / 1000;
// The spec's removal date as an HTTP-date (RFC 8594): 'Thu, 05 Dec 2030 00:00:00 GMT'.
const SUNSET = new Date(`${GET_PET_REMOVAL}T00:00:00Z`).toUTCString();
// How many 429s of a window a key may receive before its next request bans it.
const BAN_AFTER_429S = 3;

/** The first gallery: int64 ids, Retry-After forms, extra fields, status defaults, transport and plans. */
export const CORE_VARIANTS = [
  {
    id: 'ids-above-2p53',
    area: 'creating',
    description: 'assigns ids from 2^53+11, which a double cannot hold',
    options: { firstId: 2n ** 53n + 11n },
  },
  {
    id: 'retry-after-http-date',
    area: 'ratelimit',
    description: 'sends Retry-After as an HTTP-date',
    overrides: {
      tooManyRequests: (admission, reference) => withHeaders(reference(admission), { 'retry-after': new Date(Math.ceil(admission.resetAtMs / 1000) * 1000).toUTCString() }),
    },
  },
  {
    id: 'extra-fields',
    area: 'creating',
    description: 'adds createdAt and tags: [] to every Pet body',
    overrides: {
      petBody: (pet, operation, reference) => ({ ...reference(pet, operation), createdAt: pet.createdAt, tags: [] }),
    },
  },
  {
    id: 'default-status',
    area: 'creating',
    description: 'gives a pet created without status the status available',
    overrides: {
      readNewPet: (text, reference) => {
        const read = reference(text);
        return read.ok && read.pet.status === undefined ? { ...read, pet: { ...read.pet, status: 'available' } } : read;
      },
    },
  },
  { id: 'no-status', area: 'creating', description: 'leaves status out of a pet created without one (the default behaviour)' },
  {
    id: 'charset',
    area: 'transport',
    description: 'sends every JSON body as application/json; charset=utf-8',
    overrides: {
      jsonType: () => 'application/json; charset=utf-8',
    },
  },
  {
    id: 'newest-first',
    area: 'listing',
    description: 'lists the newest pet first',
    overrides: {
      selectPage: (pets, query, reference) => reference([...pets].reverse(), query),
    },
  },
  {
    id: 'clamp-limit',
    area: 'listing',
    description: 'clamps an out-of-range integer limit into 1–100 instead of answering 400',
    overrides: {
      parseLimit: (raw, reference) => {
        const limit = integerParameter(raw);
        return limit === undefined ? reference(raw) : { value: Math.min(Math.max(limit, PAGE_SIZE.min), PAGE_SIZE.max) };
      },
    },
  },
  {
    id: 'slow',
    area: 'transport',
    description: 'delays every response by 200 ms',
    options: { latencyMs: 200 },
  },
  {
    id: 'free-plan',
    area: 'ratelimit',
    description: 'enforces the Free plan: 60 requests per minute',
    options: { rateLimit: { limit: 60, windowMs: 60_000 } },
  },
  {
    id: 'deprecation-headers',
    area: 'versioning',
    description: 'announces the deprecation of GET /pets/{petId} with Deprecation, Sunset and Link headers',
    overrides: {
      respond: onAnswer('getPet', (answer, _request, server) => withHeaders(answer, {
        deprecation: `@${DEPRECATED_SINCE}`,
        sunset: SUNSET,
        link: `<${server.settings.basePath}/pets>; rel="successor-version"`,
      })),
    },
  },
  {
    id: 'ban-after-429',
    area: 'ratelimit',
    description: 'bans a key (403 until restart) that sends more than 3 requests while it is answered 429',
    overrides: {
      limiterPolicy: (reference) => ({ ...reference(), banAfter429s: BAN_AFTER_429S }),
    },
  },
  {
    id: 'read-lag',
    area: 'creating',
    description: 'shows a created pet to reads 1.5 s after creating it, as a replica lagging its primary does (the spec promises no read-after-write consistency)',
    options: { readLagMs: 1_500 },
  },
  {
    id: 'pet-id-last',
    area: 'creating',
    description: 'writes the members of every Pet in the order its columns were declared, id last: a JSON object is unordered (RFC 8259 §4)',
    overrides: {
      petBody: (pet, operation, reference) => {
        const { id, ...rest } = reference(pet, operation);
        return { ...rest, id };
      },
    },
  },
  {
    id: 'stability-marker',
    area: 'versioning',
    description: 'marks GET /store/orders beta with an X-API-Stability header, as Kong\'s and Azure\'s gateways let an operation say (which operations carry a stability marker is not shown)',
    overrides: {
      respond: onAnswer('getStoreOrders', (answer) => withHeaders(answer, { 'x-api-stability': 'beta' })),
    },
  },
  {
    id: 'deprecation-draft-warning',
    area: 'versioning',
    description: 'announces the deprecation of GET /pets/{petId} as earlier drafts did, Deprecation as an HTTP-date with Sunset on 5 December 2030, and a Warning: 299 beside them',
    overrides: {
      respond: onAnswer('getPet', (answer) => withHeaders(answer, {
        deprecation: new Date(DEPRECATED_SINCE * 1000).toUTCString(),
        sunset: SUNSET,
        warning: '299 - "GET /pets/{petId} is deprecated and will be removed on 5 December 2030; use GET /pets?status="',
      })),
    },
  },
  {
    id: 'store-orders-scope-403',
    area: 'store',
    description: 'answers GET /store/orders with the key 403 insufficient_scope, an Error: the key lacks the OAuth scope orders:read, checked in the handler after routing (the spec shows neither the operation\'s responses nor key scopes)',
    overrides: {
      respond: insteadOf('getStoreOrders', (_request, server) => server.seams.error(403, 'insufficient_scope', 'the key lacks the scope orders:read')),
    },
  },
  {
    id: 'store-orders-sample',
    area: 'store',
    description: 'answers GET /store/orders with the orders it holds, Swagger\'s Petstore Order objects (id, petId, quantity, shipDate, status, complete): their shape is not shown',
    overrides: {
      respond: insteadOf('getStoreOrders', () => json(200, [
        { id: 10, petId: 198772, quantity: 7, shipDate: '2025-06-01T12:00:00.000Z', status: 'approved', complete: true },
        { id: 11, petId: 198773, quantity: 1, shipDate: '2025-06-03T09:30:00.000Z', status: 'placed', complete: false },
      ])),
    },
  },
] as const satisfies readonly VariantSpec[];
