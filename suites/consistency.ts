// The store as a whole: a model of every pet the target showed the run (each 201, each GET, every page)
// and of what the run wrote, judged once, at the end, on all the evidence: a page is judged with what pages
// after it proved. This area runs after every area that writes and before the 429 probe spends the window:
// its only requests are four last pages (the largest limit, unfiltered and per status), read once everything is written.
import { check, suite, type CheckContext } from '../helpers/judge/check.js';
import { StoreModel, type PetView } from '../helpers/model/store-model.js';
import {
  CONS_01, CONS_02, CONS_03, CONS_04, CONS_05, CONS_06, CONS_07, CONS_08, CONS_09, CONS_10, CONS_11, readsOf, writesDueOn, pageMustBeFull, type ModelFinding, type ModelStatement,
} from '../helpers/model/statements.js';
import { PAGE_SIZE, PET_STATUSES } from '../helpers/spec/facts.js';
import { answeredSuccess, describeExchange } from '../helpers/http/exchange.js';
import { operationOf } from '../helpers/judge/operations.js';
import { runKey } from '../helpers/run-context.js';

const LAST_PAGES = runKey<Promise<unknown>>('consistency: the last pages');

/**
 * The largest pages the spec allows, unfiltered and for each status, read once per run after every write of
 * the run: the one moment the run knows the most it will about what the target holds, so a page cut short shows,
 * and so does a pet stored from a request the target refused. They ask for a compressed answer, as fetch, browsers
 * and most SDKs do, so that the run reads the largest bodies as those clients get them.
 */
function readLastPages(ctx: CheckContext): Promise<unknown> {
  return ctx.run.shared(LAST_PAGES, () => Promise.all([undefined, ...PET_STATUSES].map((status) =>
    ctx.client.send({ path: '/pets', query: { ...(status ? { status } : {}), limit: String(PAGE_SIZE.max) }, headers: { 'accept-encoding': CLIENT_ACCEPT_ENCODING } }))));
}

/** What fetch (undici) and browsers send: a server may compress its answer with any of these, or not at all. */
const CLIENT_ACCEPT_ENCODING = 'gzip, deflate, br';

/** The run's model of the store, built from every exchange the run recorded, the last pages included. */
async function storeModel(ctx: CheckContext): Promise<StoreModel> {
  await readLastPages(ctx);
  return StoreModel.of(ctx.client.exchanges, ctx.config.baseUrl, ctx.config.readLagMs);
}

/**
 * Reports the statement's findings on every answer of the run, one violation per kind ("listed view disagrees
 * on status: 12 case(s)"), with the first example as evidence, so a fault repeated on every page reads as one
 * finding. The statement is the one definition the stateful exploration judges each answer by too.
 */
function report(ctx: CheckContext, model: StoreModel, statement: ModelStatement, judged: string): void {
  const kinds = new Map<string, ModelFinding[]>();
  for (const finding of statement.findings(model)) kinds.set(finding.kind, [...(kinds.get(finding.kind) ?? []), finding]);
  for (const [kind, members] of kinds) {
    const first = members[0]!;
    ctx.violation({ what: `${kind}: ${members.length} case(s)`, expected: statement.expected, seen: first.example, exchanges: first.exchanges });
  }
  ctx.observe(`judged ${judged}`);
}

/**
 * How many pets the target has shown under each filter a pet of the run could be listed under (unfiltered, and its
 * status), when every one of them holds at least the largest page: then no page can ever have room for every
 * matching pet (a page has room only while fewer pets match than its limit). Undefined when one of them has fewer.
 */
function crowdedFilters(model: StoreModel): string | undefined {
  const filters = new Set<string | undefined>([undefined, ...model.writes.map((write) => write.sent.status as string | undefined)]);
  // The pets shown under it, or a page of it that came back full (a pet set aside still fills a page).
  const largestPage = (status: string | undefined) => Math.max(0, ...model.pages.filter((page) => page.status === status && !page.unknownFilter).map((page) => page.items.length));
  const shown = [...filters].map((status) => ({
    status, count: Math.max(largestPage(status), [...model.views.keys()].filter((id) => status === undefined || model.statusOf(id) === status).length),
  }));
  if (shown.some(({ count }) => count < PAGE_SIZE.max)) return undefined;
  return shown.map(({ status, count }) => `${count} ${status ?? 'in all'}`).join(', ');
}

/** A skip reason, with why the pets the reads showed were left out of the model when some were (see StoreModel.asideReason). */
function besideAside(model: StoreModel, reason: string): string {
  const aside = model.asideReason();
  return aside ? `${reason}; ${aside}` : reason;
}

/**
 * Why the model holds no write of the run to look for, from what the run sent and was answered: --read-only, no
 * create answered with a success, none answered with a Pet that has an integer id, or every one set aside.
 */
function noWriteReason(ctx: CheckContext, model: StoreModel): string {
  if (ctx.config.readOnly) return 'the run created no pet to look for on a page: --read-only creates none';
  const creates = ctx.client.exchanges.filter((exchange) => operationOf(exchange, ctx.config.baseUrl) === 'createPet');
  const succeeded = creates.filter(answeredSuccess);
  if (succeeded.length === 0) {
    return creates.length === 0 ? 'the run sent no create, so it has no pet of its own to look for on a page' : `every create of the run was refused (${creates.length} POST(s), e.g. ${describeExchange(creates[0]!)}; CREATE-01 judges that)`;
  }
  if (model.creationsById.size === 0) return `none of the ${succeeded.length} create(s) answered with a success carried a Pet with an integer id to look for (CREATE-02 judges that)`;
  return besideAside(model, `the ${succeeded.length} pet(s) the run created all carry ids set aside`);
}

// ── the checks ──

export default suite('consistency', [
  check('CONS-01', async (ctx) => {
    const model = await storeModel(ctx);
    const reads = (views: readonly PetView[]) => readsOf(views).length;
    const viewed = [...model.views.values()].filter((views) => reads(views) > 1 || (reads(views) === 1 && model.writeOf(views[0]!.id))).length;
    if (viewed === 0) ctx.skip(besideAside(model, 'no pet was read twice, or read after the run wrote it, so no two views can be compared'));
    report(ctx, model, CONS_01, `${viewed} pet(s) read more than once or read after the run wrote them`);
  }),

  check('CONS-02', async (ctx) => {
    const model = await storeModel(ctx);
    const judged = model.fetches.filter((fetch) => fetch.answered !== undefined);
    if (judged.length === 0) ctx.skip('no GET /pets/{petId} of the run answered 200 with an integer id, so there is no id to compare');
    report(ctx, model, CONS_02, `${judged.length} answer(s) of GET /pets/{petId}`);
  }),

  check('CONS-03', async (ctx) => {
    const model = await storeModel(ctx);
    if (model.pages.length === 0) ctx.skip('the run received no 200 page of GET /pets');
    report(ctx, model, CONS_03, `${model.pages.length} page(s)`);
  }),

  check('CONS-04', async (ctx) => {
    const model = await storeModel(ctx);
    const judged = model.pages.filter((page) => page.limit !== undefined);
    if (judged.length === 0) ctx.skip(`the run received no 200 page of GET /pets for a limit from ${PAGE_SIZE.min} to ${PAGE_SIZE.max} or none`);
    report(ctx, model, CONS_04, `${judged.length} page(s)`);
  }),

  check('CONS-05', async (ctx) => {
    const model = await storeModel(ctx);
    const filtered = model.pages.filter((page) => page.status !== undefined);
    const items = filtered.reduce((sum, page) => sum + page.items.length, 0);
    if (items === 0) ctx.skip(`no page filtered by ${PET_STATUSES.join(', ')} held a pet, so no status can be judged`);
    report(ctx, model, CONS_05, `${items} item(s) of ${filtered.length} filtered page(s)`);
  }),

  check('CONS-06', async (ctx) => {
    const model = await storeModel(ctx);
    if (model.writes.length === 0) ctx.skip(noWriteReason(ctx, model));
    const judged = model.pages.reduce((sum, page) => sum + writesDueOn(model, page).length, 0);
    if (judged === 0) {
      const crowded = crowdedFilters(model);
      if (crowded) ctx.notApplicable(`the target has shown at least ${PAGE_SIZE.max} pets under every filter a pet of this run could be listed under (${crowded}), so no page, of at most ${PAGE_SIZE.max}, has room for every matching pet, and no run can look for one of its pets on this target (the spec shows no paging beyond limit); a store with fewer than ${PAGE_SIZE.max} pets of one status judges it`);
      ctx.skip('no page of the run had room for every matching pet after a pet of the run was shown, so none could be looked for');
    }
    report(ctx, model, CONS_06, `${judged} (page, pet) pair(s)`);
  }),

  check('CONS-07', async (ctx) => {
    const model = await storeModel(ctx);
    const judged = model.pages.filter((page) => pageMustBeFull(model, page));
    if (judged.length === 0) ctx.skip(besideAside(model, 'no page was asked for when the run had seen at least its limit of matching pets, so none must be full'));
    report(ctx, model, CONS_07, `${judged.length} page(s)`);
  }),

  check('CONS-08', async (ctx) => {
    const model = await storeModel(ctx);
    if (model.pages.length === 0) ctx.skip('the run received no 200 page of GET /pets');
    report(ctx, model, CONS_08, `${model.pages.length} page(s)`);
  }),

  check('CONS-09', async (ctx) => {
    const model = await storeModel(ctx);
    const judged = [...model.fetches, ...model.misses].filter((fetch) => model.visibleBefore(String(fetch.asked), fetch.exchange));
    if (judged.length === 0) ctx.skip(besideAside(model, 'no GET /pets/{petId} of the run that asked for a pet a read had shown before was answered with a pet or a 404 (or the run had created it more than --read-lag before)'));
    report(ctx, model, CONS_09, `${judged.length} GET /pets/{petId} of a pet the run had seen`);
  }),

  check('CONS-10', async (ctx) => {
    const model = await storeModel(ctx);
    if (model.shown.length === 0) {
      ctx.skip(model.asideReason() ? `every pet the run read is set aside: ${model.asideReason()!}` : 'the run read no pet: no 200 to GET /pets/{petId}, no item on a 200 page');
    }
    const fetched = model.shown.filter((pet) => pet.source === 'fetched').length;
    report(ctx, model, CONS_10, `${fetched} pet(s) served by GET /pets/{petId} and ${model.shown.length - fetched} listed on ${model.pages.length} page(s)`);
  }),

  check('CONS-11', async (ctx) => {
    const model = await storeModel(ctx);
    const refused = [...model.refusedNames.keys()].filter((name) => !model.maybeStored.has(name));
    if (refused.length === 0 && ctx.config.readOnly) ctx.skip('--read-only sends no POST, so no refused pet could be looked for; run without --read-only to judge it');
    if (refused.length === 0) ctx.skip('the target refused no POST that named a pet (every one was created, or none was sent), so no refused pet could be looked for');
    if (model.shown.length === 0) {
      const why = model.asideReason() ? `every pet the run read is set aside: ${model.asideReason()!}` : 'the run read no pet after its writes (no 200 page, no 200 to GET /pets/{petId})';
      ctx.skip(`${why}, so the ${refused.length} pet(s) of refused requests could not be looked for`);
    }
    report(ctx, model, CONS_11, `${refused.length} name(s) sent only in refused POSTs, looked for among ${model.shown.length} pet(s) the run read`);
  }),
], { wholeRun: true });
