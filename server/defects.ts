import { AUTH_DEFECTS } from './defects/auth.js';
import { CONSISTENCY_DEFECTS } from './defects/consistency.js';
import { CREATING_DEFECTS } from './defects/creating.js';
import { ERRORS_DEFECTS } from './defects/errors.js';
import { FETCHING_DEFECTS } from './defects/fetching.js';
import { FUZZING_DEFECTS } from './defects/fuzzing.js';
import { LISTING_DEFECTS } from './defects/listing.js';
import { RATELIMIT_DEFECTS } from './defects/ratelimit.js';
import { REQUESTS_DEFECTS } from './defects/requests.js';
import type { DefectSpec } from './defects/spec.js';
import { STORE_DEFECTS } from './defects/store.js';
import { VERSIONING_DEFECTS } from './defects/versioning.js';

export type { Area, DefectSpec } from './defects/spec.js';

/**
 * Named ways to break the reference server, one file per area under server/defects/: each entry holds the
 * seam overrides that are the defect (see server/defects/spec.ts). The mutation harness proves that each is
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
