import type { DefectSpec } from './spec.js';

const ERROR_BODY_RULES = ['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04', 'AUTH-05'] as const;
const CREATE_400_RULES = ['CREATE-08', 'CREATE-09', 'CREATE-10', 'CREATE-11', 'CREATE-12', 'CREATE-13'] as const;

/** Defects of the errors area. */
export const ERRORS_DEFECTS = [
  { id: 'errors-text-plain', area: 'errors', description: 'sends every error as text/plain (the body is still the JSON Error)', rules: ['ERR-01'] },
  { id: 'errors-status-always-400', area: 'errors', description: 'writes status 400 in every Error body', rules: ['ERR-03', 'RATE-09'] },
  {
    id: 'errors-without-code',
    area: 'errors',
    description: 'leaves code out of every Error body',
    rules: ['ERR-02', ...ERROR_BODY_RULES, ...CREATE_400_RULES, 'LIST-06', 'LIST-07', 'FETCH-02', 'FUZZ-01', 'RATE-09'],
  },
  { id: 'list-text-plain', area: 'errors', description: 'sends the GET /pets list as text/plain', rules: ['ERR-05'] },
  { id: 'errors-unknown-status-500', area: 'errors', description: 'answers an unknown status filter with 500', rules: ['ERR-04'] },
] as const satisfies readonly DefectSpec[];
