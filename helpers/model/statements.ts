// What the model of the store says no answer may do, one statement per rule (CONS-01..11). Each judges every
// answer the model holds (the consistency suite, at the end of the run, on all the evidence), or one answer
// (the stateful exploration, FUZZ-03, as each command gets it, on the evidence so far): one definition each.
import type { Exchange } from '../http/exchange.js';
import { sameName, show } from '../fixtures/pet-fields.js';
import { asBigInt, isJsonObject, type Json } from '../json.js';
import { PAGE_SIZE } from '../spec/facts.js';
import { validateSchema } from '../judge/schema.js';
import { itemsById, samePet, type ListedPage, type PetView, type PetWrite, type ShownPet, type StoreModel } from './store-model.js';

/** One broken case: what it is, an example, and the exchanges that show it. */
export interface ModelFinding {
  rule: string;
  kind: string;
  example: string;
  exchanges: Exchange[];
}

export interface ModelStatement {
  readonly rule: string;
  /** What every answer must show: the `expected` of a finding. */
  readonly expected: string;
  /** The findings among every answer the model holds, or only among the answer `judged` when it is given. */
  findings(model: StoreModel, judged?: Exchange): ModelFinding[];
}

/** The pages to judge: every page, or the one `judged` answered. */
function pagesOf(model: StoreModel, judged: Exchange | undefined): ListedPage[] {
  return judged === undefined ? model.pages : model.pages.filter((page) => page.exchange === judged);
}

export function pageQuery(page: Pick<ListedPage, 'exchange'>): string {
  return new URL(page.exchange.request.url).search || '(no query)';
}

// ── CONS-01: every view of a pet agrees with its write and with every other view ──

const FIELDS = ['name', 'categoryId', 'status'] as const;
type Field = (typeof FIELDS)[number];

/**
 * The value a view shows for a field, when it is of the field's type; undefined when the view leaves it out
 * or mistypes it (the schema rules judge that). A status left out is a value of its own: `absent`.
 */
function shown(view: PetView, field: Field): Json | 'absent' | undefined {
  const value = view.fields[field];
  if (field === 'status') return value === undefined ? 'absent' : typeof value === 'string' ? value : undefined;
  if (field === 'name') return typeof value === 'string' ? value : undefined;
  const id = asBigInt(value);
  return id === undefined ? undefined : String(id);
}

interface Reference {
  value: Json | 'absent';
  by: string;
  exchange: Exchange;
}

function firstShown(views: readonly PetView[], field: Field): Reference | undefined {
  const view = views.find((candidate) => shown(candidate, field) !== undefined);
  return view && { value: shown(view, field)!, by: `first ${view.source}`, exchange: view.exchange };
}

function showValue(value: Json | 'absent'): string {
  return value === 'absent' ? 'absent' : show(value);
}

/** The reads of a pet: its GETs and the items of every page; the 201 is CREATE-03's and FUZZ-02's to compare with the write. */
export function readsOf(views: readonly PetView[]): PetView[] {
  return views.filter((view) => view.source !== 'created');
}

/**
 * How the reads of each pet (GET /pets/{petId}, the items of every page) differ from what the run wrote and
 * from each other. A field the run did not write (a status the server chose, any field of a pet the run did
 * not create) is held to the first read that showed it. Ids two writes were answered with, or one page gave
 * two pets, name no single pet: CREATE-04 and CONS-08 report them. With `judged`, only its reads are held to
 * the reference (the first read is a reference, not a difference).
 */
function viewDisagreements(model: StoreModel, judged: Exchange | undefined): ModelFinding[] {
  const excluded = new Set([...model.idsOfSeveralWrites(), ...model.idsSharedOnAPage()]);
  const findings: ModelFinding[] = [];
  for (const [id, views] of model.views) {
    if (excluded.has(id)) continue;
    const reads = readsOf(views);
    if (judged !== undefined && !reads.some((view) => view.exchange === judged)) continue;
    const write = model.writeOf(id);
    for (const field of FIELDS) {
      const written = write?.sent[field];
      const reference: Reference | undefined = write && written !== undefined
        ? { value: field === 'categoryId' ? String(asBigInt(written)) : written, by: 'written', exchange: write.exchange }
        : firstShown(reads, field);
      if (!reference) continue;
      const differing = reads.find((view) => {
        if (judged !== undefined && view.exchange !== judged) return false;
        const value = shown(view, field);
        // A name written with a lone surrogate may be read with U+FFFD in its place (sameName), as its 201 may show it.
        return value !== undefined && (field === 'name' ? !sameName(reference.value, value) : value !== reference.value);
      });
      if (!differing) continue;
      findings.push({
        rule: 'CONS-01',
        kind: `a ${differing.source} view differs from the ${reference.by} ${field}`,
        example: `id ${id}: ${field} ${reference.by} ${showValue(reference.value)}, ${differing.source} ${showValue(shown(differing, field)!)}`,
        exchanges: [reference.exchange, differing.exchange],
      });
    }
  }
  return findings;
}

export const CONS_01: ModelStatement = {
  rule: 'CONS-01',
  expected: 'every view of a pet to agree with what was written and with every other view',
  findings: viewDisagreements,
};

// ── CONS-02: GET /pets/{petId} answers the pet asked for ──

export const CONS_02: ModelStatement = {
  rule: 'CONS-02',
  expected: 'the pet whose id was asked for',
  findings: (model, judged) => model.fetches
    .filter((fetch) => fetch.answered !== undefined && fetch.answered !== fetch.asked && (judged === undefined || fetch.exchange === judged))
    .map((fetch) => ({ rule: 'CONS-02', kind: 'GET /pets/{petId} answered another pet', example: `asked for id ${fetch.asked}, answered id ${fetch.answered}`, exchanges: [fetch.exchange] })),
};

// ── CONS-03: a page lists each pet once ──

export const CONS_03: ModelStatement = {
  rule: 'CONS-03',
  expected: 'each pet at most once on a page',
  findings: (model, judged) => pagesOf(model, judged).flatMap((page) => [...itemsById(page)]
    .filter(([, items]) => items.length > 1 && items.every((item) => samePet(item, items[0]!)))
    .slice(0, 1)
    .map(([id, items]) => ({ rule: 'CONS-03', kind: 'a page lists a pet more than once', example: `${pageQuery(page)}: id ${id} ${items.length} times in ${page.items.length} item(s)`, exchanges: [page.exchange] }))),
};

// ── CONS-04: a page holds at most its limit ──

export const CONS_04: ModelStatement = {
  rule: 'CONS-04',
  expected: `at most limit pets a page (${PAGE_SIZE.default} without limit)`,
  findings: (model, judged) => pagesOf(model, judged)
    .filter((page) => page.limit !== undefined && page.items.length > page.limit)
    .map((page) => ({ rule: 'CONS-04', kind: 'a page holds more pets than its limit', example: `${pageQuery(page)}: ${page.items.length} pets for a limit of ${page.limit}`, exchanges: [page.exchange] })),
};

// ── CONS-05: a filtered page holds only the status filtered for ──

export const CONS_05: ModelStatement = {
  rule: 'CONS-05',
  expected: 'only pets whose status is the one filtered for',
  findings: (model, judged) => pagesOf(model, judged).filter((page) => page.status !== undefined).flatMap((page) => {
    // Items that are not objects are LIST-01's finding; an object without status has none of the statuses.
    const strays = page.items.filter(isJsonObject).filter((item) => item.status !== page.status);
    const stray = strays[0];
    if (!stray) return [];
    const held = stray.status === undefined ? 'no status at all' : `status ${show(stray.status)}`;
    return [{ rule: 'CONS-05', kind: `a page filtered by ${page.status} holds another status`, example: `${pageQuery(page)}: ${strays.length} of ${page.items.length} pet(s) without status ${page.status}, e.g. id ${show(stray.id)} with ${held}`, exchanges: [page.exchange] }];
  }),
};

// ── CONS-06: a pet the run wrote is on every later page with room for it ──

/**
 * Whether a page had room for every matching pet: a limit the spec defines, a known filter, fewer items than
 * the limit, and fewer matching pets seen before it was sent. A full page may rightly hold others (CONS-07
 * judges its size, CONS-04 a page over its limit).
 */
export function pageHasRoom(model: StoreModel, page: ListedPage): boolean {
  return page.limit !== undefined && !page.unknownFilter && page.items.length < page.limit && model.matchingBefore(page).length < page.limit;
}

/** The run's writes a page with room must list: of its filter, shown (or past --read-lag) before it was sent, and the only write of their id. */
export function writesDueOn(model: StoreModel, page: ListedPage): PetWrite[] {
  if (!pageHasRoom(model, page)) return [];
  return model.writes.filter((write) => (page.status === undefined || write.sent.status === page.status)
    && model.visibleBefore(write.id, page.exchange) && model.writeOf(write.id) !== undefined);
}

export const CONS_06: ModelStatement = {
  rule: 'CONS-06',
  expected: 'every pet of the run on each later page with room for every matching pet',
  findings: (model, judged) => pagesOf(model, judged).flatMap((page) => {
    const listed = itemsById(page);
    return writesDueOn(model, page).filter((write) => !listed.has(write.id)).map((write) => ({
      rule: 'CONS-06',
      kind: `a page ${page.status ? `filtered by ${page.status} ` : ''}leaves out a pet of the run`,
      example: `${pageQuery(page)}: ${page.items.length} pet(s) for a limit of ${page.limit}, without id ${write.id} (created ${page.status ? `with status ${page.status} ` : ''}and shown before the page was asked for)`,
      exchanges: [write.exchange, page.exchange],
    }));
  }),
};

// ── CONS-07: a page is full whenever the run had seen enough matching pets ──

/** Whether a page must hold exactly its limit: the run had seen at least that many matching pets before it was sent. */
export function pageMustBeFull(model: StoreModel, page: ListedPage): boolean {
  return page.limit !== undefined && !page.unknownFilter && model.matchingBefore(page).length >= page.limit;
}

export const CONS_07: ModelStatement = {
  rule: 'CONS-07',
  expected: 'exactly limit pets whenever at least that many match',
  findings: (model, judged) => pagesOf(model, judged).filter((page) => pageMustBeFull(model, page) && page.items.length < page.limit!).map((page) => ({
    rule: 'CONS-07',
    kind: `a page ${page.status ? `filtered by ${page.status} ` : ''}comes back short`,
    example: `${pageQuery(page)}: ${page.items.length} pet(s), though the run had seen ${model.matchingBefore(page).length} ${page.status ?? ''} pet(s) before asking`.replace(/ {2}/g, ' '),
    exchanges: [page.exchange],
  })),
};

// ── CONS-08: no page shows two different pets under one id ──

export const CONS_08: ModelStatement = {
  rule: 'CONS-08',
  expected: 'a different id for every pet',
  findings: (model, judged) => pagesOf(model, judged).flatMap((page) => [...itemsById(page)]
    .filter(([, items]) => items.some((item) => !samePet(item, items[0]!)))
    .slice(0, 1)
    .map(([id, items]) => ({ rule: 'CONS-08', kind: 'one page shows two different pets with one id', example: `${pageQuery(page)}: id ${id} for ${items.map((item) => show(item.name)).join(' and ')}`, exchanges: [page.exchange] }))),
};

// ── CONS-09: a pet once shown is never "not found" ──

export const CONS_09: ModelStatement = {
  rule: 'CONS-09',
  expected: 'status 200 for a pet the run has seen: the interface deletes nothing, and what one read showed, later reads show',
  findings: (model, judged) => model.misses.flatMap((miss) => {
    const shownBy = judged === undefined || miss.exchange === judged ? model.shownBefore(String(miss.asked), miss.exchange) : undefined;
    if (!shownBy) return [];
    const how = shownBy.source === 'created' ? 'the run created it more than --read-lag before' : `${shownBy.source === 'listed' ? 'a page' : 'a GET'} showed it first`;
    return [{ rule: 'CONS-09', kind: 'GET /pets/{petId} answers 404 for a pet the run has seen', example: `id ${miss.asked}: 404, though ${how}`, exchanges: [shownBy.exchange, miss.exchange] }];
  }),
};

// ── CONS-10: every read shows a valid Pet, wherever the run read it ──

/** Where a shown pet was: "GET /pets/7", or "item 3 of ?status=sold". */
function placeOf(pet: ShownPet): string {
  return pet.source === 'fetched' ? `GET ${new URL(pet.exchange.request.url).pathname}` : `item ${pet.index} of the page ${pageQuery(pet)}`;
}

export const CONS_10: ModelStatement = {
  rule: 'CONS-10',
  expected: 'a valid Pet (id, name and categoryId as int64, status a PetStatus or absent) in every read',
  findings: (model, judged) => model.shown
    .filter((pet) => judged === undefined || pet.exchange === judged)
    .flatMap((pet) => {
      const problems = validateSchema('Pet', pet.body);
      if (problems.length === 0) return [];
      const filtered = pet.source === 'listed' && new URL(pet.exchange.request.url).searchParams.has('status');
      return [{
        rule: 'CONS-10',
        kind: pet.source === 'fetched' ? 'GET /pets/{petId} shows an invalid Pet' : `${filtered ? 'a filtered' : 'an unfiltered'} page lists an invalid Pet`,
        example: `${placeOf(pet)}: ${problems.slice(0, 3).map((problem) => `${problem.path || '/'} ${problem.message}`).join('; ')}`,
        exchanges: [pet.exchange],
      }];
    }),
};

// ── CONS-11: a refused request changes nothing ──

export const CONS_11: ModelStatement = {
  rule: 'CONS-11',
  expected: 'no pet stored from a request the server refused: a name sent only in refused POSTs on no page and in no GET',
  findings: (model, judged) => model.shown
    .filter((pet) => judged === undefined || pet.exchange === judged)
    .flatMap((pet) => {
      const name = isJsonObject(pet.body) ? pet.body.name : undefined;
      const refusal = typeof name === 'string' && !model.maybeStored.has(name) ? model.refusedNames.get(name) : undefined;
      if (!refusal) return [];
      const { method, url } = refusal.request;
      return [{
        rule: 'CONS-11',
        kind: `a pet sent in a request answered ${refusal.response!.status} is stored`,
        example: `${placeOf(pet)} shows ${show(name)}, sent only in ${method} ${new URL(url).pathname}, which was answered ${refusal.response!.status}`,
        exchanges: [refusal, pet.exchange],
      }];
    }),
};

/** Every statement of the model, in catalog order. */
export const MODEL_STATEMENTS: readonly ModelStatement[] = [CONS_01, CONS_02, CONS_03, CONS_04, CONS_05, CONS_06, CONS_07, CONS_08, CONS_09, CONS_10, CONS_11];

/** What every statement of the model finds on one answer, judged on all the model holds, each with what it expected. */
export function modelFindings(model: StoreModel, judged: Exchange): Array<ModelFinding & { expected: string }> {
  return MODEL_STATEMENTS.flatMap((statement) => statement.findings(model, judged).map((finding) => ({ ...finding, expected: statement.expected })));
}
