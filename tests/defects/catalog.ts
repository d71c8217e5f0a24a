import { AUTH_DEFECTS } from './auth.js';
import { CONSISTENCY_DEFECTS } from './consistency.js';
import { CREATING_DEFECTS } from './creating.js';
import { ERRORS_DEFECTS } from './errors.js';
import { FETCHING_DEFECTS } from './fetching.js';
import { FUZZING_DEFECTS } from './fuzzing.js';
import { LISTING_DEFECTS } from './listing.js';
import { RATELIMIT_DEFECTS } from './ratelimit.js';
import { REQUESTS_DEFECTS } from './requests.js';
import type { DefectSpec } from './spec.js';
import { STORE_DEFECTS } from './store.js';
import { VERSIONING_DEFECTS } from './versioning.js';

export type { Area, DefectSpec } from './spec.js';

/**
 * Named ways to break the reference server, one file per area under tests/defects/: each entry holds the
 * seam overrides that are the defect (see tests/defects/spec.ts). The mutation harness proves that each is
 * caught by exactly its rules. This catalog ships only with the source repository, never in the package.
 */
export const DEFECTS = [
  ...LISTING_DEFECTS,
  ...CREATING_DEFECTS,
  ...FETCHING_DEFECTS,
  ...AUTH_DEFECTS,
  ...STORE_DEFECTS,
  ...VERSIONING_DEFECTS,
  ...REQUESTS_DEFECTS,
  ...ERRORS_DEFECTS,
  ...RATELIMIT_DEFECTS,
  ...CONSISTENCY_DEFECTS,
  ...FUZZING_DEFECTS,
] as const satisfies readonly DefectSpec[];

export type DefectId = (typeof DEFECTS)[number]['id'];

const BY_ID = new Map<string, DefectSpec>(DEFECTS.map((defect) => [defect.id, defect]));

export function isDefectId(id: string): id is DefectId {
  return BY_ID.has(id);
}

export function defectById(id: DefectId): DefectSpec {
  return BY_ID.get(id)!;
}
