import type { DefectSpec } from './spec.js';

const CREATE_400_RULES = ['CREATE-08', 'CREATE-09', 'CREATE-10', 'CREATE-11', 'CREATE-12', 'CREATE-13'] as const;

/** Defects of the creating area. */
export const CREATING_DEFECTS = [
  { id: 'create-200', area: 'creating', description: 'answers a created pet with 200 instead of 201', rules: ['CREATE-01', 'FUZZ-02'] },
  {
    id: 'create-no-id',
    area: 'creating',
    description: 'leaves id out of the 201 body (the pet is stored with one)',
    rules: ['CREATE-02', 'CREATE-04', 'CREATE-05', 'FUZZ-02'],
  },
  {
    id: 'create-status-not-echoed',
    area: 'creating',
    description: 'leaves status out of the 201 body (it is stored)',
    rules: ['CREATE-03', 'FUZZ-02'],
  },
  {
    id: 'create-categoryid-double',
    area: 'creating',
    description: 'stores categoryId as a double, so values above 2^53 come back changed',
    rules: ['CREATE-03', 'CREATE-05', 'FUZZ-02'],
  },
  {
    id: 'create-same-id',
    area: 'creating',
    description: 'gives every created pet the first id',
    // GET of that id serves the last pet stored under it, so every other pet cannot be fetched back.
    rules: ['CREATE-04', 'CREATE-05', 'FETCH-01'],
  },
  {
    id: 'create-not-stored',
    area: 'creating',
    description: 'answers 201 but forgets the pet (GET gives 404, lists leave it out)',
    // The list checks count the pets the server said it created: every page comes back short.
    rules: ['CREATE-05', 'LIST-02', 'LIST-03', 'LIST-04', 'LIST-05', 'LIST-10', 'LIST-11', 'LIST-14', 'FETCH-01'],
  },
  {
    id: 'create-missing-status-unknown',
    area: 'creating',
    description: 'gives a pet created without status the status "unknown"',
    rules: ['CREATE-06', 'FUZZ-02'],
  },
  { id: 'create-name-optional', area: 'creating', description: 'accepts a body without name', rules: ['CREATE-08', 'FUZZ-01'] },
  {
    id: 'create-categoryid-string-coerced',
    area: 'creating',
    description: 'accepts categoryId "7" as 7',
    rules: ['CREATE-09', 'FUZZ-01'],
  },
  { id: 'create-null-accepted', area: 'creating', description: 'accepts null for name, categoryId and status', rules: ['CREATE-09', 'FUZZ-01'] },
  {
    id: 'create-fraction-truncated',
    area: 'creating',
    description: 'accepts a fractional or exponent categoryId and truncates it',
    rules: ['CREATE-10', 'FUZZ-01'],
  },
  {
    id: 'create-status-unchecked',
    area: 'creating',
    description: 'accepts any status string (Available, unknown, …)',
    rules: ['CREATE-11', 'FUZZ-01'],
  },
  { id: 'create-array-body', area: 'creating', description: 'accepts an array body and creates its first element', rules: ['CREATE-12', 'FUZZ-01'] },
  { id: 'create-malformed-500', area: 'creating', description: 'answers malformed JSON or an empty body with 500', rules: ['CREATE-13', 'ERR-04', 'FUZZ-01'] },
  {
    id: 'create-422',
    area: 'creating',
    description: 'answers every invalid body with 422 instead of 400',
    rules: [...CREATE_400_RULES, 'FUZZ-01'],
  },
  {
    id: 'create-int32-categoryid',
    area: 'creating',
    description: 'rejects a categoryId outside int32 with 400',
    rules: ['CREATE-03', 'FUZZ-02'],
  },
] as const satisfies readonly DefectSpec[];
