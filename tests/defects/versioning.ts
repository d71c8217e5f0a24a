import { GET_PET_REMOVAL } from '../../helpers/spec/facts.js';
import { insteadOf, onAnswer } from '../../server/seams.js';
import { withHeaders } from '../../server/responses.js';
import type { DefectSpec } from './spec.js';

/** Defects of the versioning area. */
export const VERSIONING_DEFECTS = [
  {
    id: 'base-path-api',
    area: 'versioning',
    description: 'serves under /api instead of /v1',
    rules: ['VER-01'],
    options: { basePath: '/api' },
  },
  {
    id: 'get-pet-gone-410',
    area: 'versioning',
    description: 'retires the deprecated GET /pets/{petId} early, answering 410 Gone for every pet (the deprecation read as a removal)',
    rules: ['VER-02', 'FETCH-01', 'FETCH-02', 'CREATE-05', 'FUZZ-03'],
    overrides: {
      respond: insteadOf('getPet', (_request, server) => server.seams.error(410, 'gone', 'GET /pets/{petId} is deprecated; use GET /pets?status=')),
    },
  },
  {
    id: 'deprecation-on-every-response',
    area: 'versioning',
    description: 'sends Deprecation and Sunset on every response, GET /pets (the stated replacement) included: a deprecation middleware mounted on the whole router rather than the one route (Koa, Express)',
    rules: ['VER-05'],
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        reply.header('deprecation', 'true');
        reply.header('sunset', new Date(`${GET_PET_REMOVAL}T00:00:00Z`).toUTCString());
        return reference(request, reply, payload);
      },
    },
  },
  {
    id: 'sunset-local-midnight',
    area: 'versioning',
    description: 'announces the removal of GET /pets/{petId} at midnight of 5 December 2030 in Berlin, written as GMT: Sunset Wed, 04 Dec 2030 23:00:00 GMT (a LocalDate turned into an instant in the host\'s zone)',
    rules: ['VER-05'],
    overrides: {
      respond: onAnswer('getPet', (answer) => withHeaders(answer, { sunset: new Date(Date.parse(`${GET_PET_REMOVAL}T00:00:00+01:00`)).toUTCString() })),
    },
  },
  {
    id: 'sunset-js-month-zero-based',
    area: 'versioning',
    description: 'announces the removal of GET /pets/{petId} with a Sunset built as new Date(Date.UTC(2030, 12, 5)): JavaScript counts months from 0, so month 12 rolls over into Sun, 05 Jan 2031',
    rules: ['VER-05'],
    overrides: {
      // Month 12 of 2030 is January 2031 to Date.UTC.
      respond: onAnswer('getPet', (answer) => withHeaders(answer, { deprecation: 'true', sunset: new Date(Date.UTC(2030, 12, 5)).toUTCString() })),
    },
  },
  {
    id: 'sunset-iso-8601',
    area: 'versioning',
    description: 'announces the removal of GET /pets/{petId} with Sunset: 2030-12-05T00:00:00Z, the date as ISO 8601 (toISOString, a LocalDate\'s toString) where RFC 8594 asks for an HTTP-date, which a client\'s date parser rejects',
    rules: ['VER-05'],
    overrides: {
      respond: onAnswer('getPet', (answer) => withHeaders(answer, { deprecation: 'true', sunset: new Date(`${GET_PET_REMOVAL}T00:00:00Z`).toISOString() })),
    },
  },
  {
    id: 'sunset-day-month-swapped',
    area: 'versioning',
    description: 'announces the removal of GET /pets/{petId} from the date in its config, "05/12/2030" as Europe writes 5 December, parsed by a month-first parser (JavaScript\'s Date, a US locale): Sunset: Sun, 12 May 2030',
    rules: ['VER-05'],
    overrides: {
      // Date.parse reads "05/12/2030" month first.
      respond: onAnswer('getPet', (answer) => withHeaders(answer, { deprecation: 'true', sunset: new Date(Date.UTC(2030, 4, 12)).toUTCString() })),
    },
  },
] as const satisfies readonly DefectSpec[];
