// The store as a whole: a model of every pet the target showed the run (each 201, each GET, every page)
// and of what the run wrote, judged once, at the end, on all the evidence: a page is judged with what pages
// after it proved. This area runs after every area that writes and before the 429 probe spends the window:
// its only requests are four last pages (the largest limit, unfiltered and per status), read once everything is written.
import { describe } from 'vitest';
import { check, type CheckContext } from '../helpers/judge/check.js';
import type { Exchange } from '../helpers/http/exchange.js';
import { show } from '../helpers/fixtures/pet-fields.js';
import { asBigInt, isJsonObject, type Json } from '../helpers/json.js';
import { itemsById, samePet, StoreModel, type ListedPage, type PetView } from '../helpers/model/store-model.js';
import { PAGE_SIZE, PET_STATUSES } from '../helpers/spec/facts.js';
import { runKey } from '../helpers/run-context.js';

const LAST_PAGES = runKey<Promise<unknown>>('consistency: the last pages');

/**
 * The largest pages the spec allows, unfiltered and for each status, read once per run after every write of
 * the run: the one moment the run knows the most it will about what the target holds, so a page cut short shows.
 */
function readLastPages(ctx: CheckContext): Promise<unknown> {
  return ctx.run.shared(LAST_PAGES, () => Promise.all([undefined, ...PET_STATUSES].map((status) =>
    ctx.client.send({ path: '/pets', query: { ...(status ? { status } : {}), limit: String(PAGE_SIZE.max) } }))));
}

/** The run's model of the store, built from every exchange the run recorded, the last pages included. */
async function storeModel(ctx: CheckContext): Promise<StoreModel> {
  await readLastPages(ctx);
  return StoreModel.of(ctx.client.exchanges, ctx.config.baseUrl, ctx.config.readLagMs);
}

/** One broken case: what it is, and the exchanges that show it. */
interface Finding {
  kind: string;
  example: string;
  exchanges: Exchange[];
}

/**
 * Reports the findings one violation per kind ("listed view disagrees on status: 12 pet(s)"), with the first
 * example as evidence, so a fault repeated on every page reads as one finding.
 */
function report(ctx: CheckContext, findings: readonly Finding[], expected: string, judged: string): void {
  const kinds = new Map<string, Finding[]>();
  for (const finding of findings) kinds.set(finding.kind, [...(kinds.get(finding.kind) ?? []), finding]);
  for (const [kind, members] of kinds) {
    const first = members[0]!;
    ctx.violation({ what: `${kind}: ${members.length} case(s)`, expected, seen: first.example, exchanges: first.exchanges });
  }
  ctx.observe(`judged ${judged}`);
}

function pageQuery(page: ListedPage): string {
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

/**
 * How the reads of each pet (GET /pets/{petId}, the items of every page) differ from what the run wrote and
 * from each other. The 201 itself is CREATE-03's and FUZZ-02's to compare with the write, so it is no view
 * here; a field the run did not write (a status the server chose, any field of a pet the run did not create)
 * is held to the first read that showed it. Ids two writes were answered with, or one page gave two pets,
 * name no single pet: CREATE-04 and CONS-08 report them.
 */
function viewDisagreements(model: StoreModel): Finding[] {
  const excluded = new Set([...model.idsOfSeveralWrites(), ...model.idsSharedOnAPage()]);
  const findings: Finding[] = [];
  for (const [id, views] of model.views) {
    if (excluded.has(id)) continue;
    const reads = views.filter((view) => view.source !== 'created');
    const write = model.writeOf(id);
    for (const field of FIELDS) {
      const written = write?.sent[field];
      const reference: Reference | undefined = write && written !== undefined
        ? { value: field === 'categoryId' ? String(asBigInt(written)) : written, by: 'written', exchange: write.exchange }
        : firstShown(reads, field);
      if (!reference) continue;
      const differing = reads.find((view) => {
        const value = shown(view, field);
        return value !== undefined && value !== reference.value;
      });
      if (!differing) continue;
      findings.push({
        kind: `a ${differing.source} view differs from the ${reference.by} ${field}`,
        example: `id ${id}: ${field} ${reference.by} ${showValue(reference.value)}, ${differing.source} ${showValue(shown(differing, field)!)}`,
        exchanges: [reference.exchange, differing.exchange],
      });
    }
  }
  return findings;
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

// ── the checks ──

describe('consistency', () => {
  check('CONS-01', async (ctx) => {
    const model = await storeModel(ctx);
    const reads = (views: readonly PetView[]) => views.filter((view) => view.source !== 'created').length;
    const viewed = [...model.views.values()].filter((views) => reads(views) > 1 || (reads(views) === 1 && model.writeOf(views[0]!.id))).length;
    if (viewed === 0) ctx.skip('no pet was read twice, or read after the run wrote it, so no two views can be compared');
    report(ctx, viewDisagreements(model), 'every view of a pet to agree with what was written and with every other view', `${viewed} pet(s) read more than once or read after the run wrote them`);
  });

  check('CONS-02', async (ctx) => {
    const model = await storeModel(ctx);
    const judged = model.fetches.filter((fetch) => fetch.answered !== undefined);
    if (judged.length === 0) ctx.skip('no GET /pets/{petId} of the run answered 200 with an integer id, so there is no id to compare');
    const findings = judged.filter((fetch) => fetch.answered !== fetch.asked).map((fetch) => ({
      kind: 'GET /pets/{petId} answered another pet', example: `asked for id ${fetch.asked}, answered id ${fetch.answered}`, exchanges: [fetch.exchange],
    }));
    report(ctx, findings, 'the pet whose id was asked for', `${judged.length} answer(s) of GET /pets/{petId}`);
  });

  check('CONS-03', async (ctx) => {
    const model = await storeModel(ctx);
    if (model.pages.length === 0) ctx.skip('the run received no 200 page of GET /pets');
    const findings = model.pages.flatMap((page) => [...itemsById(page)]
      .filter(([, items]) => items.length > 1 && items.every((item) => samePet(item, items[0]!)))
      .slice(0, 1)
      .map(([id, items]) => ({ kind: 'a page lists a pet more than once', example: `${pageQuery(page)}: id ${id} ${items.length} times in ${page.items.length} item(s)`, exchanges: [page.exchange] })));
    report(ctx, findings, 'each pet at most once on a page', `${model.pages.length} page(s)`);
  });

  check('CONS-04', async (ctx) => {
    const model = await storeModel(ctx);
    const judged = model.pages.filter((page) => page.limit !== undefined);
    if (judged.length === 0) ctx.skip(`the run received no 200 page of GET /pets for a limit from ${PAGE_SIZE.min} to ${PAGE_SIZE.max} or none`);
    const findings = judged.filter((page) => page.items.length > page.limit!).map((page) => ({
      kind: `a page holds more pets than its limit`, example: `${pageQuery(page)}: ${page.items.length} pets for a limit of ${page.limit}`, exchanges: [page.exchange],
    }));
    report(ctx, findings, `at most limit pets a page (${PAGE_SIZE.default} without limit)`, `${judged.length} page(s)`);
  });

  check('CONS-05', async (ctx) => {
    const model = await storeModel(ctx);
    const filtered = model.pages.filter((page) => page.status !== undefined);
    const items = filtered.reduce((sum, page) => sum + page.items.length, 0);
    if (items === 0) ctx.skip(`no page filtered by ${PET_STATUSES.join(', ')} held a pet, so no status can be judged`);
    const findings = filtered.flatMap((page) => {
      // Items that are not objects are LIST-01's finding; an object without status has none of the statuses.
      const strays = page.items.filter(isJsonObject).filter((item) => item.status !== page.status);
      const stray = strays[0];
      if (!stray) return [];
      const held = stray.status === undefined ? 'no status at all' : `status ${show(stray.status)}`;
      return [{ kind: `a page filtered by ${page.status} holds another status`, example: `${pageQuery(page)}: ${strays.length} of ${page.items.length} pet(s) without status ${page.status}, e.g. id ${show(stray.id)} with ${held}`, exchanges: [page.exchange] }];
    });
    report(ctx, findings, 'only pets whose status is the one filtered for', `${items} item(s) of ${filtered.length} filtered page(s)`);
  });

  check('CONS-06', async (ctx) => {
    const model = await storeModel(ctx);
    if (model.writes.length === 0) ctx.skip('the run created no pet it can look for on a page (--read-only, or every creation was refused)');
    let judged = 0;
    const findings: Finding[] = [];
    for (const page of model.pages) {
      if (page.limit === undefined || page.unknownFilter) continue;
      // Only a page with room, where every matching pet fits: a full page may rightly hold others (CONS-07
      // judges its size, CONS-04 a page over its limit).
      if (page.items.length >= page.limit || model.matchingBefore(page).length >= page.limit) continue;
      const listed = itemsById(page);
      for (const write of model.writes) {
        if (page.status !== undefined && write.sent.status !== page.status) continue;
        if (!model.visibleBefore(write.id, page.exchange) || model.writeOf(write.id) === undefined) continue;
        judged += 1;
        if (!listed.has(write.id)) {
          findings.push({ kind: `a page ${page.status ? `filtered by ${page.status} ` : ''}leaves out a pet of the run`, example: `${pageQuery(page)}: ${page.items.length} pet(s) for a limit of ${page.limit}, without id ${write.id} (created ${page.status ? `with status ${page.status} ` : ''}and shown before the page was asked for)`, exchanges: [write.exchange, page.exchange] });
        }
      }
    }
    if (judged === 0) ctx.skip('no page of the run had room for every matching pet after a pet of the run was shown, so none could be looked for');
    report(ctx, findings, 'every pet of the run on each later page with room for every matching pet', `${judged} (page, pet) pair(s)`);
  });

  check('CONS-07', async (ctx) => {
    const model = await storeModel(ctx);
    const judged = model.pages.filter((page) => page.limit !== undefined && !page.unknownFilter && model.matchingBefore(page).length >= page.limit);
    if (judged.length === 0) ctx.skip('no page was asked for when the run had seen at least its limit of matching pets, so none must be full');
    const findings = judged.filter((page) => page.items.length < page.limit!).map((page) => ({
      kind: `a page ${page.status ? `filtered by ${page.status} ` : ''}comes back short`,
      example: `${pageQuery(page)}: ${page.items.length} pet(s), though the run had seen ${model.matchingBefore(page).length} ${page.status ?? ''} pet(s) before asking`.replace(/ {2}/g, ' '),
      exchanges: [page.exchange],
    }));
    report(ctx, findings, 'exactly limit pets whenever at least that many match', `${judged.length} page(s)`);
  });

  check('CONS-08', async (ctx) => {
    const model = await storeModel(ctx);
    if (model.pages.length === 0) ctx.skip('the run received no 200 page of GET /pets');
    const findings = model.pages.flatMap((page) => [...itemsById(page)]
      .filter(([, items]) => items.some((item) => !samePet(item, items[0]!)))
      .slice(0, 1)
      .map(([id, items]) => ({ kind: 'one page shows two different pets with one id', example: `${pageQuery(page)}: id ${id} for ${items.map((item) => show(item.name)).join(' and ')}`, exchanges: [page.exchange] })));
    report(ctx, findings, 'a different id for every pet', `${model.pages.length} page(s)`);
  });
});
