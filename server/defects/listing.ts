import type { DefectSpec } from './spec.js';

// Pets enough that a page past 100 can be served.
const MANY = { preload: 150 } as const;
// Ten pets of each status, so filters and their interplay with limit have something to cut.
const MIXED = { preload: 30 } as const;

/** Defects of the listing area. */
export const LISTING_DEFECTS = [
  { id: 'list-default-limit-10', area: 'listing', description: 'answers GET /pets without limit with 10 pets', rules: ['LIST-02'] },
  {
    id: 'list-limit-ignored',
    area: 'listing',
    description: 'ignores limit and always answers a page of 20',
    rules: ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-11'],
    options: MANY,
  },
  {
    id: 'list-limit-off-by-one',
    area: 'listing',
    description: 'answers limit=N with N+1 pets',
    rules: ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-11'],
    options: MANY,
  },
  {
    id: 'list-limit-unbounded',
    area: 'listing',
    description: 'honours a limit above 100 (limit=1000 returns every pet)',
    rules: ['LIST-06'],
    options: MANY,
  },
  { id: 'list-limit-nonpositive-500', area: 'listing', description: 'answers limit=0 or a negative limit with 500', rules: ['LIST-06', 'ERR-04'] },
  { id: 'list-limit-noninteger-500', area: 'listing', description: 'answers a non-integer or empty limit with 500', rules: ['LIST-07', 'ERR-04'] },
  {
    id: 'list-status-ignored',
    area: 'listing',
    description: 'ignores the status filter',
    rules: ['LIST-09', 'LIST-11'],
    options: MIXED,
  },
  {
    id: 'list-status-empty',
    area: 'listing',
    description: 'answers any status filter with an empty list',
    rules: ['LIST-10', 'LIST-11'],
    options: MIXED,
  },
  {
    id: 'list-status-drops-limit',
    area: 'listing',
    description: 'ignores limit when status is given (answers up to 20 pets of that status)',
    rules: ['LIST-11'],
    options: MIXED,
  },
  {
    id: 'list-categoryid-string',
    area: 'listing',
    description: 'writes categoryId as a JSON string in list items',
    rules: ['LIST-01'],
    options: MIXED,
  },
  {
    id: 'list-wrapped-object',
    area: 'listing',
    description: 'answers GET /pets with {"items": [...]} instead of an array',
    rules: ['LIST-01', 'LIST-02', 'LIST-03', 'LIST-04', 'LIST-05', 'LIST-09', 'LIST-10', 'LIST-11'],
    options: MIXED,
  },
] as const satisfies readonly DefectSpec[];
