import { PAGE_SIZE } from '../../helpers/spec/facts.js';
import { integerParameter } from '../listing.js';
import type { VariantSpec } from './spec.js';

/** The first gallery: int64 ids, Retry-After forms, extra fields, status defaults, transport and plans. */
export const CORE_VARIANTS = [
  {
    id: 'ids-above-2p53',
    area: 'creating',
    description: 'assigns ids from 2^53+11, which a double cannot hold',
    options: { firstId: 2n ** 53n + 11n },
  },
  { id: 'retry-after-http-date', area: 'ratelimit', description: 'sends Retry-After as an HTTP-date' },
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
  { id: 'charset', area: 'transport', description: 'sends every JSON body as application/json; charset=utf-8' },
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
  { id: 'slow', area: 'transport', description: 'delays every response by 200 ms' },
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
  },
  {
    id: 'ban-after-429',
    area: 'ratelimit',
    description: 'bans a key (403 until restart) that sends more than 3 requests while it is answered 429',
  },
  {
    id: 'read-lag',
    area: 'creating',
    description: 'shows a created pet to reads 1.5 s after creating it, as a replica lagging its primary does (the spec promises no read-after-write consistency)',
    options: { readLagMs: 1_500 },
  },
] as const satisfies readonly VariantSpec[];
