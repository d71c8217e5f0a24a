import { PAGE_SIZE } from '../../helpers/spec/facts.js';
import { integerParameter, LIMIT_REFUSED, pageSize } from '../../server/listing.js';
import { json, withHeaders } from '../../server/responses.js';
import { isPetStatus } from '../../server/new-pet.js';
import type { StoredPet } from '../../server/pet-store.js';
import { isRefusal } from '../../server/seams.js';
import type { VariantSpec } from './spec.js';

/** A fresh order on every call: the spec promises no order, so a client may not rely on one. */
function shuffled(pets: readonly StoredPet[]): StoredPet[] {
  const copy = [...pets];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Conforming variants of the listing area. */
export const LISTING_VARIANTS = [
  {
    id: 'shuffled',
    area: 'listing',
    description: 'lists pets in a fresh random order on every call: the spec promises no order',
    overrides: {
      selectPage: (pets, query, reference) => reference(shuffled(pets), query),
    },
  },
  {
    id: 'query-errors-422',
    area: 'listing',
    description: 'refuses a malformed limit, an unknown status and a malformed petId with 422 and an Error body (FastAPI\'s status for validation): the spec names no status for them',
    overrides: {
      invalidParameter: (parameter, refusal, reference, server) => (refusal.status === 400
        ? server.seams.error(422, 'invalid_parameter', refusal.message)
        : reference(parameter, refusal)),
    },
  },
  {
    id: 'lenient-limit',
    area: 'listing',
    description: 'reads limit with parseInt: "10abc" is 10, "1.5" is 1, "abc" and "" give the default page; out-of-range integers are still refused',
    overrides: {
      // parseInt as Express code often reads a query: a numeric prefix is the limit, anything else the default page.
      parseLimit: (raw, reference) => {
        if (raw === undefined) return reference(raw);
        const limit = typeof raw === 'string' ? Number.parseInt(raw, 10) : Number.NaN;
        if (Number.isNaN(limit)) return reference(undefined);
        return limit >= PAGE_SIZE.min && limit <= PAGE_SIZE.max ? { value: limit } : LIMIT_REFUSED;
      },
    },
  },
  {
    id: 'limit-zero-empty',
    area: 'listing',
    description: 'answers limit=0 with an empty page instead of refusing it: at most 0 pets, never more than 100',
    overrides: {
      parseLimit: (raw, reference) => (integerParameter(raw) === 0 ? { value: 0 } : reference(raw)),
    },
  },
  {
    id: 'unknown-status-empty',
    area: 'listing',
    description: 'answers an unknown status filter with an empty page: no pet holds that status',
    overrides: {
      // An unknown status matches no pet.
      parseStatus: (raw, reference) => {
        const status = reference(raw);
        return isRefusal(status) ? { value: typeof raw === 'string' ? raw : String(raw) } : status;
      },
    },
  },
  {
    id: 'status-filter-case-insensitive',
    area: 'listing',
    description: 'matches the status filter case-insensitively (status=PENDING lists pending pets)',
    overrides: {
      parseStatus: (raw, reference) => (typeof raw === 'string' && isPetStatus(raw.toLowerCase()) ? { value: raw.toLowerCase() } : reference(raw)),
    },
  },
  {
    id: 'paging-links',
    area: 'listing',
    description: 'pages with an offset parameter beside limit, and says so in X-Total-Count and a Link header with rel="next" (RFC 8288), as Rails\' and Django\'s paginators do: without an offset it answers the first page (paging controls other than limit are not shown)',
    overrides: {
      respond: async (operation, request, reference, server) => {
        const query = request.query as Record<string, unknown>;
        const limit = server.seams.parseLimit(query.limit);
        const status = server.seams.parseStatus(query.status);
        if (operation !== 'listPets' || isRefusal(limit) || isRefusal(status)) return reference(operation, request);
        const offset = query.offset === undefined ? 0 : integerParameter(query.offset);
        if (offset === undefined || offset < 0) return server.seams.error(400, 'invalid_parameter', 'offset must be a non-negative integer');
        const size = pageSize({ limit: limit.value, status: status.value });
        const matching = server.seams.selectPage(server.store.all(), { limit: Number.POSITIVE_INFINITY, status: status.value });
        const page = matching.slice(offset, offset + size);
        const headers: Record<string, string> = { 'x-total-count': String(matching.length) };
        if (offset + size < matching.length) {
          const next = new URLSearchParams({ ...(status.value ? { status: status.value } : {}), limit: String(size), offset: String(offset + size) });
          headers.link = `<${server.settings.basePath}/pets?${next}>; rel="next"`;
        }
        return withHeaders(json(200, page.map((pet) => server.seams.petBody(pet, 'listPets'))), headers);
      },
    },
  },
  {
    id: 'lived-in-store',
    area: 'listing',
    description: 'holds 137 pets other clients created before the run, of every status (a staging server someone else uses): the spec says nothing of what a store holds',
    options: { preload: 137 },
  },
  // Lived-in stores: every staging store holds pets before a run. The suite sizes its fixtures from what the store
  // shows, and a rule that no run could judge there (a pet of the run listed on a page full of older pets) is not
  // applicable, so both end certified.
  {
    id: 'lived-in-few',
    area: 'listing',
    description: 'holds a few pets of each status before the run (3 available, 3 pending, 3 sold): no status fills a default page',
    options: { preload: 9 },
  },
  {
    id: 'lived-in-thousands',
    area: 'listing',
    description: 'holds 3,000 pets before the run, listed oldest first: every page of every status is full before the run creates a pet',
    options: { preload: 3_000 },
  },
] as const satisfies readonly VariantSpec[];
