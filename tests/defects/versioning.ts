import { insteadOf } from '../../server/seams.js';
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
] as const satisfies readonly DefectSpec[];
