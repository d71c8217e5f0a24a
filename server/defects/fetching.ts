import type { DefectSpec } from './spec.js';

// Ten pets of each status, so a petId prefix names a pet that exists.
const MIXED = { preload: 30 } as const;

/** Defects of the fetching area. */
export const FETCHING_DEFECTS = [
  { id: 'fetch-unknown-200-empty', area: 'fetching', description: 'answers an unknown pet with 200 {}', rules: ['FETCH-02'] },
  {
    id: 'fetch-unknown-404-text',
    area: 'fetching',
    description: 'answers an unknown pet with 404 and an empty text/plain body',
    rules: ['FETCH-02', 'ERR-01', 'ERR-02'],
  },
  {
    id: 'fetch-parseint-petid',
    area: 'fetching',
    description: 'reads petId with parseInt, so /pets/12abc is pet 12',
    rules: ['FETCH-03'],
    // parseInt only shows when the prefix names a pet that exists.
    options: MIXED,
  },
  {
    id: 'fetch-id-lossy-double',
    area: 'fetching',
    description: 'looks petId up through a double, so ids above 2^53 miss or hit a neighbour',
    rules: ['FETCH-01', 'CREATE-05'],
    options: { firstId: 2n ** 53n + 1n },
  },
  {
    id: 'fetch-removed',
    area: 'fetching',
    description: 'has no GET /pets/{petId} (404 for every pet)',
    rules: ['FETCH-01', 'CREATE-05', 'VER-02'],
  },
] as const satisfies readonly DefectSpec[];
