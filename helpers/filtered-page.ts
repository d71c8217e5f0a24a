// LIST-11's choice of a status filter and a limit that together show where a target cuts its page.
import { PAGE_SIZE, PET_STATUSES, type PetStatus } from './spec-facts.js';

export interface FilteredPageCase {
  status: PetStatus;
  limit: number;
  /** How many pets of the status the first `limit` of the unfiltered order hold; unknown in the fallback. */
  inFirst?: number;
  known: number;
}

/**
 * A status S and limit L where cutting the page before filtering it shows: the first L pets of the target's
 * unfiltered order hold fewer than L of S, while the target has shown at least L of S. Preferred: L of 2 or
 * more, and more than L of S known (so that a filter which forgets the limit shows too); the smallest L.
 * `order` holds the status each pet of the order is known by (an item that leaves it out is LIST-09's finding).
 */
export function sliceRevealingCase(order: readonly (string | undefined)[], known: ReadonlyMap<string, number>): FilteredPageCase | undefined {
  const cases: FilteredPageCase[] = [];
  for (let limit = 1; limit <= Math.min(order.length, PAGE_SIZE.max); limit++) {
    for (const status of PET_STATUSES) {
      const inFirst = order.slice(0, limit).filter((held) => held === status).length;
      const held = known.get(status) ?? 0;
      if (inFirst < limit && held >= limit) cases.push({ status, limit, inFirst, known: held });
    }
  }
  const rank = (c: FilteredPageCase) => (c.limit >= 2 ? 0 : 2) + (c.known > c.limit ? 0 : 1);
  return cases.sort((a, b) => rank(a) - rank(b) || a.limit - b.limit)[0];
}

/** Where no status is thin enough at the head of the order: one pet of a status, pending where the target has shown one. */
export function fallbackCase(known: ReadonlyMap<string, number>): FilteredPageCase | undefined {
  const status = ['pending', ...PET_STATUSES].find((s) => (known.get(s) ?? 0) > 0);
  return status === undefined ? undefined : { status, limit: 1, known: known.get(status)! };
}
