import type { VariantSpec } from './spec.js';

/** Conforming variants of the listing area. */
export const LISTING_VARIANTS = [
  { id: 'shuffled', area: 'listing', description: 'lists pets in a fresh random order on every call: the spec promises no order' },
  {
    id: 'query-errors-422',
    area: 'listing',
    description: 'refuses a malformed limit, an unknown status and a malformed petId with 422 and an Error body (FastAPI\'s status for validation): the spec names no status for them',
  },
  {
    id: 'lenient-limit',
    area: 'listing',
    description: 'reads limit with parseInt: "10abc" is 10, "1.5" is 1, "abc" and "" give the default page; out-of-range integers are still refused',
  },
  { id: 'limit-zero-empty', area: 'listing', description: 'answers limit=0 with an empty page instead of refusing it: at most 0 pets, never more than 100' },
  { id: 'unknown-status-empty', area: 'listing', description: 'answers an unknown status filter with an empty page: no pet holds that status' },
  { id: 'status-filter-case-insensitive', area: 'listing', description: 'matches the status filter case-insensitively (status=PENDING lists pending pets)' },
] as const satisfies readonly VariantSpec[];
