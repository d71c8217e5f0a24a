// GET /pets (listPets): page size, the limit bounds and the status filter.
import { check, suite, type CheckContext, type CheckOptions } from '../helpers/judge/check.js';
import type { Exchange } from '../helpers/http/exchange.js';
import { createdIdOf, describeExchange } from '../helpers/http/exchange.js';
import { answeredAt, readAfterWrite } from '../helpers/fixtures/read-after-write.js';
import { expectNoServerError, expectSchema, expectStatus, expectThat, preview, responseOf } from '../helpers/judge/expect.js';
import { fallbackCase, sliceRevealingCase } from '../helpers/fixtures/filtered-page.js';
import { asBigInt } from '../helpers/json.js';
import { ensurePets, knownPetIds, knownPets, knownStatusCounts, knownWhenSent, oneStatusShortfall, mostHeldStatus, SetupError, type Pet, type PetNeed } from '../helpers/fixtures/pets.js';
import { validateSchema } from '../helpers/judge/schema.js';
import type { Findings } from '../helpers/judge/outcome.js';
import { PAGE_SIZE, PET_STATUSES } from '../helpers/spec/facts.js';
import { together } from '../helpers/judge/together.js';
import { runKey } from '../helpers/run-context.js';

/** A page as the listing answered it. */
interface Page {
  pets: Pet[];
  exchange: Exchange;
}

/**
 * A 200 page, or undefined once a violation says what came back instead. Only the array is required here:
 * whether each item is a valid Pet is LIST-01's finding, so a mistyped field does not also break every count.
 */
async function listPage(ctx: CheckContext, query: Record<string, string> | string = {}): Promise<Page | undefined> {
  const exchange = await ctx.client.send({ path: '/pets', query });
  if (!expectStatus(ctx, exchange, [200])) return undefined;
  const pets = expectArray(ctx, exchange);
  return pets && { pets, exchange };
}

function expectArray(findings: Findings, exchange: Exchange): Pet[] | undefined {
  const body = responseOf(exchange).json;
  if (!expectThat(findings, Array.isArray(body), { expected: 'a JSON array of pets', seen: preview(responseOf(exchange).rawBody, 120), exchanges: [exchange] })) return undefined;
  return body as unknown as Pet[];
}

/**
 * ensurePets, where a 200 listing that is not an array is this suite's finding, not a broken setup: undefined
 * once it is recorded.
 */
async function ensureListed(ctx: CheckContext, ...needs: PetNeed[]): Promise<Pet[] | undefined> {
  try {
    return await ensurePets(ctx, ...needs);
  } catch (error) {
    const listing = error instanceof SetupError && error.exchange?.response?.status === 200 && error.exchange.request.method === 'GET' ? error.exchange : undefined;
    if (listing && !expectArray(ctx, listing)) return undefined;
    throw error;
  }
}

/**
 * LIST-02 makes the fixtures of the whole suite, before LIST-04 lists them in the target's own order (LIST-11
 * reads that order): a default page and one more of one status, the status the target shows most of (for LIST-02
 * and LIST-14: on an empty target 21 pets, on one that holds some the fewest that do it, on one that holds enough
 * none), then two of each status for the filters (LIST-09, LIST-10, LIST-11) and one without status, which no
 * filtered page may hold (LIST-09).
 */
async function ensureSuiteFixtures(ctx: CheckContext): Promise<boolean> {
  const listed = await ensureListed(ctx);
  if (!listed) return false;
  return (await ensureListed(ctx, { ofOneStatus: PAGE_SIZE.default + 1 }, { perStatus: 2, withoutStatus: 1 })) !== undefined;
}

/** The POSTs of the run the target answered 201: how many pets it said it made, whatever ids it gave them. */
function createdByTheRun(exchanges: readonly Exchange[]): number {
  return exchanges.filter((exchange) => exchange.request.method === 'POST' && exchange.response?.status === 201).length;
}

/**
 * Why LIST-02 cannot count the default page. Pets are counted by distinct id, so a target that gives many
 * creates one id has "shown" few pets however many the run made: the reason says so, not that the store is short.
 */
function tooFewToJudgeThePage(ctx: CheckContext, known: number, created: number): string {
  const cannotTell = `a default page of ${PAGE_SIZE.default} cannot be told from a short store`;
  if (created > known) return `${createdButNotShown(ctx, created, known)}, so ${cannotTell}`;
  return `the target has shown only ${known} pet(s), so ${cannotTell}; ${whyNoFixtures(ctx, PAGE_SIZE.default + 1 - known, 'more pets')}`;
}

/**
 * The run created more pets than the target has shown distinct ids for, and why, from the answers: several creates
 * answered with one id (CREATE-04 judges that), creates answered without an id (CREATE-02), or pets not listed.
 */
function createdButNotShown(ctx: CheckContext, created: number, known: number): string {
  const answers = ctx.client.exchanges.filter((exchange) => exchange.request.method === 'POST' && exchange.response?.status === 201);
  const ids = answers.map(createdIdOf);
  const withoutId = ids.filter((id) => id === undefined).length;
  const distinct = new Set(ids.filter((id) => id !== undefined)).size;
  const stated = `the run created ${created} pets (${created} POSTs answered 201), but those answers and the listings show only ${known} distinct pet id(s)`;
  if (distinct < ids.length - withoutId) return `${stated}: ${ids.length - withoutId} creates were answered with ${distinct} id(s) (one id for several pets: CREATE-04 judges that)`;
  if (withoutId > 0) return `${stated}: ${withoutId} of those answers carried no id (CREATE-02 judges that), and the listings show no more`;
  return `${stated}: the listings leave out pets the run created (LIST-02, CONS-06 judge that)`;
}

/**
 * Why the fixtures LIST-02 makes are not there, from what the run sent and was answered: --read-only (and what a run
 * without it would create), creations refused (CREATE-01 judges those), or none sent at all.
 */
function whyNoFixtures(ctx: CheckContext, missing: number, what: string): string {
  if (ctx.config.readOnly) return `--read-only creates none: a run without it creates ${missing} ${what}, the fewest that make it judgeable`;
  // The listing checks create their fixtures (LIST-02 most of them), each in turn.
  const posts = ctx.client.exchanges.filter((exchange) => exchange.rule?.startsWith('LIST-') && exchange.request.method === 'POST');
  const refused = posts.find((exchange) => exchange.response?.status !== 201);
  if (refused) return `the fixtures the listing checks create were not created (${describeExchange(refused)}; CREATE-01 judges creation)`;
  if (posts.length === 0) return `the listing checks created no fixture in this run (${ctx.config.only.length > 0 ? `--only ${ctx.config.only.join(',')}` : 'LIST-02, which creates them, did not get so far'})`;
  return `the ${posts.length} pet(s) the listing checks created for it do not show in the listings (LIST-02, CONS-06 judge that)`;
}

/** "1 pet", "20 pets": how a count of pets reads. */
function petCount(count: number): string {
  return `${count} ${count === 1 ? 'pet' : 'pets'}`;
}

/**
 * "At most n, and exactly n when enough exist": `known` is how many pets the run has seen the target hold.
 * An empty page where the run knows of no pet judges nothing, so the check is skipped.
 */
/**
 * The page of `limit`, read again while it holds fewer pets than the run knew of when it asked and the run created some
 * of them within --read-lag before (a replica that has not caught up with writes another area made meanwhile): the
 * last read is the one judged.
 */
async function pageOfLimit(ctx: CheckContext, limit: number): Promise<Page | undefined> {
  const query = { limit: String(limit) };
  const knew = (exchange: Exchange) => knownWhenSent(ctx.client.exchanges, exchange);
  const full = (exchange: Exchange) => {
    const body = exchange.response?.json;
    return exchange.response?.status !== 200 || !Array.isArray(body) || body.length >= Math.min(limit, knownPetIds(knew(exchange)).size);
  };
  const first = await ctx.client.send({ path: '/pets', query });
  const created = full(first) ? [] : knew(first).filter((exchange) => createdIdOf(exchange) !== undefined);
  const lastWrite = created.length > 0 ? Math.max(...created.map(answeredAt)) : undefined;
  let reads = 0;
  const read = async () => (reads++ === 0 ? first : ctx.client.send({ path: '/pets', query }));
  const exchange = lastWrite === undefined ? first : await readAfterWrite(ctx, `GET /pets?limit=${limit}`, lastWrite, read, full);
  if (!expectStatus(ctx, exchange, [200])) return undefined;
  const pets = expectArray(ctx, exchange);
  return pets && { pets, exchange };
}

function expectPageSize(ctx: CheckContext, pets: Pet[], limit: number, exchange: Exchange): void {
  const known = knownPetIds(knownWhenSent(ctx.client.exchanges, exchange)).size;
  if (known === 0 && pets.length === 0) ctx.skip(`the target has shown no pet, so limit=${limit} cannot be told from an empty store; ${whyNoFixtures(ctx, 1, 'pet')}`);
  const want = Math.min(limit, known);
  if (!expectThat(ctx, pets.length <= limit, { expected: `at most ${petCount(limit)}`, seen: petCount(pets.length), exchanges: [exchange] })) return;
  expectThat(ctx, pets.length >= want, { expected: `${petCount(want)} (the target holds at least ${known})`, seen: petCount(pets.length), exchanges: [exchange] });
}

/**
 * An out-of-range or malformed limit may be refused (any 4xx with an Error body: 400 is usual, FastAPI says
 * 422) or answered with a page (clamped, or read leniently): the spec states the bounds but not the reaction.
 * Never a 5xx, never another status, never more pets than the largest page.
 */
async function expectRefusedOrPaged(ctx: CheckContext, value: string): Promise<void> {
  const exchange = await ctx.client.send({ path: '/pets', query: `limit=${encodeURIComponent(value)}` });
  const response = expectNoServerError(ctx, exchange, `limit=${value}`);
  if (!response) return;
  const { status } = response;
  if (status >= 400) {
    expectSchema(ctx, exchange, 'Error', `limit=${value} refused with ${status}`);
    return;
  }
  const paged = expectThat(ctx, status === 200, {
    what: `limit=${value}`, expected: 'a 4xx with an Error body or a 200 page', seen: `${status}`, body: preview(responseOf(exchange).rawBody), exchanges: [exchange],
  });
  const pets = paged ? expectArray(ctx, exchange) : undefined;
  if (!pets) return;
  expectThat(ctx, pets.length <= PAGE_SIZE.max, { what: `limit=${value}`, expected: `at most ${PAGE_SIZE.max} pets`, seen: petCount(pets.length), exchanges: [exchange] });
}

/** How a target reacted to a bad limit, in words for LIST-08. */
function reactionTo(exchange: Exchange): string {
  const { status, json } = responseOf(exchange);
  if (status >= 400) return `refused with ${status}${validateSchema('Error', json).length === 0 ? ' and an Error body' : ', without a valid Error body'}`;
  return status === 200 && Array.isArray(json) ? `answered with a page of ${json.length}` : `answered ${status}`;
}

/**
 * The unfiltered order the target showed last: its longest page (the largest page LIST-04 asked for in a full run) sent
 * after the run's last POST, so the pets it created are in it. Listed afresh when there is none.
 */
async function unfilteredOrder(ctx: CheckContext): Promise<Pet[] | undefined> {
  const exchanges = ctx.client.exchanges;
  const lastPost = exchanges.findLastIndex((e) => e.request.method === 'POST');
  const pages = exchanges.slice(lastPost + 1)
    .filter((e) => e.request.method === 'GET' && new URL(e.request.url).pathname.endsWith('/pets') && !new URL(e.request.url).searchParams.has('status'))
    .filter((e) => e.response?.status === 200 && Array.isArray(e.response.json))
    .map((e) => e.response!.json as unknown as Pet[]);
  const longest = pages.reduce<Pet[] | undefined>((best, page) => (best && best.length >= page.length ? best : page), undefined);
  return longest ?? (await listPage(ctx, { limit: String(PAGE_SIZE.max) }))?.pets;
}

/** Below the minimum, negative, one above the maximum, and far above it. */
const OUT_OF_RANGE = [PAGE_SIZE.min - 1, -1, PAGE_SIZE.max + 1, PAGE_SIZE.max * 10].map(String);
const NOT_INTEGERS = ['abc', '1.5', '', '10abc'];
/** Default pages per status, fetched by LIST-09 and reused by LIST-10 and LIST-14: three requests, not nine. */
const STATUS_PAGES = runKey<Map<string, Page>>('listing: default page per status');

/** The default page of one status; undefined once a violation says what came back instead (asked again by the next check). */
async function statusPage(ctx: CheckContext, status: string): Promise<Page | undefined> {
  const pages = ctx.run.shared(STATUS_PAGES, () => new Map());
  const page = pages.get(status) ?? (await listPage(ctx, { status }));
  if (page) pages.set(status, page);
  return page;
}

/**
 * The default page of `status` with how many pets of it the run had been shown when the page was asked for. The shared
 * page (LIST-09's) when the run knew enough (`enough`) by then; else a page asked for now, after all the run has seen:
 * a page is never held to pets it was served before they were created.
 */
async function statusPageKnowing(ctx: CheckContext, status: string, enough: (count: number) => boolean): Promise<{ page: Page; known: number } | undefined> {
  const knownWhen = (page: Page) => knownStatusCounts(knownWhenSent(ctx.client.exchanges, page.exchange)).get(status) ?? 0;
  const shared = await statusPage(ctx, status);
  if (shared && enough(knownWhen(shared))) return { page: shared, known: knownWhen(shared) };
  const fresh = await listPage(ctx, { status });
  return fresh && { page: fresh, known: knownWhen(fresh) };
}

// Once LIST-02 has made the fixtures, the page-size and bad-limit checks only read: LIST-03..07 run together,
// and so do LIST-12 and LIST-13. LIST-08 reads what LIST-06 and LIST-07 were answered, and the status
// checks share their pages and what the earlier pages showed, so they stay in turn.
const TOGETHER: CheckOptions = { concurrent: true };

export default suite('listing', [
  check('LIST-01', async (ctx) => {
    const page = await listPage(ctx);
    if (page) expectSchema(ctx, page.exchange, 'PetList');
  }),

  check('LIST-02', async (ctx) => {
    if (!(await ensureSuiteFixtures(ctx))) return;
    const page = await listPage(ctx);
    if (!page) return;
    const { pets, exchange } = page;
    const knew = knownWhenSent(ctx.client.exchanges, exchange);
    const known = knownPetIds(knew).size;
    if (known <= PAGE_SIZE.default) ctx.skip(tooFewToJudgeThePage(ctx, known, createdByTheRun(knew)));
    expectThat(ctx, pets.length === PAGE_SIZE.default, {
      expected: `exactly ${PAGE_SIZE.default} pets without limit (the target holds at least ${known})`, seen: petCount(pets.length), exchanges: [exchange],
    });
  }),

  check('LIST-03', async (ctx) => {
    if (!(await ensureListed(ctx, { total: PAGE_SIZE.min }))) return;
    const page = await pageOfLimit(ctx, PAGE_SIZE.min);
    if (page) expectPageSize(ctx, page.pets, PAGE_SIZE.min, page.exchange);
  }, TOGETHER),

  check('LIST-04', async (ctx) => {
    const page = await pageOfLimit(ctx, PAGE_SIZE.max);
    if (page) expectPageSize(ctx, page.pets, PAGE_SIZE.max, page.exchange);
  }, TOGETHER),

  check('LIST-05', async (ctx) => {
    if (!(await ensureListed(ctx, { total: 7 }))) return;
    const page = await pageOfLimit(ctx, 7);
    if (page) expectPageSize(ctx, page.pets, 7, page.exchange);
  }, TOGETHER),

  check('LIST-06', async (ctx) => {
    await together(ctx, OUT_OF_RANGE, (value, part) => expectRefusedOrPaged(part, value));
  }, TOGETHER),

  check('LIST-07', async (ctx) => {
    await together(ctx, NOT_INTEGERS, (value, part) => expectRefusedOrPaged(part, value));
  }, TOGETHER),

  check('LIST-08', async (ctx) => {
    const earlier = ctx.client.exchanges.filter((e) => (e.rule === 'LIST-06' || e.rule === 'LIST-07') && e.response);
    const exchanges = earlier.length > 0 ? earlier : [await ctx.client.send({ path: '/pets', query: `limit=${PAGE_SIZE.max + 1}` })];
    for (const exchange of exchanges) ctx.observe(`${describeExchange(exchange)}: ${reactionTo(exchange)}`);
  }),

  check('LIST-09', async (ctx) => {
    // A pet without status too: a filter written `status = ? OR status IS NULL`, or one that compares with a
    // NULL column in a language where that passes, lists it under every status, and it has none of them.
    if (!(await ensureListed(ctx, { perStatus: 1, withoutStatus: 1 }))) return;
    let judged = 0;
    await together(ctx, PET_STATUSES, async (status, part) => {
      const page = await statusPage(part, status);
      if (!page) return;
      const { pets, exchange } = page;
      judged += pets.length;
      const strays = pets.filter((pet) => pet.status !== status);
      const held = (pet: Pet) => (pet.status === undefined ? 'no status at all' : `status ${JSON.stringify(pet.status)}`);
      expectThat(part, strays.length === 0, {
        what: `status=${status}`, expected: `only ${status} pets`, exchanges: [exchange],
        seen: `${strays.length} of ${pets.length} without status ${status}, e.g. id ${strays[0]?.id} with ${strays[0] ? held(strays[0]) : ''}`,
      });
    });
    // Empty pages hold no pet of the wrong status, and no evidence either: whether they should be empty is LIST-10's.
    if (judged === 0) ctx.skip('every filtered page was empty, so no pet could be judged (LIST-10 judges whether they should be)');
  }),

  check('LIST-10', async (ctx) => {
    if (!(await ensureListed(ctx, { perStatus: 1 }))) return;
    const known = knownStatusCounts(ctx.client.exchanges);
    const held = PET_STATUSES.filter((status) => (known.get(status) ?? 0) > 0);
    if (held.length === 0) ctx.skip('the target has shown no pet with a status, so an empty filtered page cannot be told from a right one');
    for (const status of held) {
      const found = await statusPageKnowing(ctx, status, (count) => count > 0);
      if (!found) continue;
      const { page: { pets, exchange }, known: shown } = found;
      expectThat(ctx, pets.some((pet) => pet.status === status), {
        what: `status=${status}`, expected: `at least one ${status} pet (the target had shown ${shown})`, seen: `${pets.length} pets, none ${status}`, exchanges: [exchange],
      });
    }
  }),

  check('LIST-11', async (ctx) => {
    if (!(await ensureListed(ctx, { perStatus: 2 }))) return;
    const order = await unfilteredOrder(ctx);
    if (!order) return;
    const shown = knownPets(ctx.client.exchanges);
    const known = knownStatusCounts(ctx.client.exchanges);
    const statuses = order.map((pet) => asBigInt(pet.id)).map((id) => (id === undefined ? undefined : shown.get(String(id))?.status));
    const chosen = sliceRevealingCase(statuses, known) ?? fallbackCase(known);
    if (!chosen) return ctx.skip('the target has shown no pet with a status to filter for');
    const { status, limit } = chosen;
    const page = await listPage(ctx, { status, limit: String(limit) });
    if (!page) return;
    const { pets, exchange } = page;
    const why = chosen.inFirst === undefined ? '' : `; its first ${limit} pet(s) unfiltered hold ${chosen.inFirst} ${status}, so a page cut before filtering comes back short`;
    // A pet listed without its status is LIST-01's and LIST-09's to judge; one listed with another status is this rule's.
    expectThat(ctx, pets.length === limit && pets.every((pet) => pet.status === status || pet.status === undefined), {
      what: `status=${status}&limit=${limit}`, expected: `exactly ${limit} ${status} pet(s) (the target has shown ${chosen.known}${why})`,
      seen: `${pets.length} pet(s) with statuses ${JSON.stringify(pets.map((p) => p.status))}`, exchanges: [exchange],
    });
  }),

  check('LIST-12', async (ctx) => {
    const exchange = await ctx.client.send({ path: '/pets', query: { status: 'not-a-status' } });
    ctx.observe(`status=not-a-status is answered ${exchange.response?.status}`);
  }, TOGETHER),

  check('LIST-13', async (ctx) => {
    const earlier = ctx.client.exchanges.find((e) => e.rule === 'LIST-01' && e.response);
    const exchange = earlier ?? (await ctx.client.send({ path: '/pets' }));
    const headers = exchange.response?.headers ?? {};
    const paging = Object.keys(headers).filter((name) => /^(link|x-total-count|x-next|x-page|x-cursor|x-has-more|x-next-cursor)/.test(name));
    ctx.observe(paging.length > 0 ? `paging headers: ${paging.map((name) => `${name}: ${headers[name]}`).join('; ')}` : 'no paging headers beyond the array itself');
  }, TOGETHER),
  check('LIST-14', async (ctx) => {
    const known = knownStatusCounts(ctx.client.exchanges);
    const status = PET_STATUSES.find((s) => (known.get(s) ?? 0) > PAGE_SIZE.default);
    if (!status) {
      const held = PET_STATUSES.map((s) => `${known.get(s) ?? 0} ${s}`).join(', ');
      const shown = [...knownPets(ctx.client.exchanges).values()].map((pet) => pet.status);
      const { status: most, missing } = oneStatusShortfall(shown, PAGE_SIZE.default + 1);
      const created = createdByTheRun(ctx.client.exchanges);
      const why = created > shown.length ? createdButNotShown(ctx, created, shown.length) : whyNoFixtures(ctx, missing, `${most} pet(s)`);
      return ctx.skip(`no status has more than ${PAGE_SIZE.default} pets the target has shown (${held}), so a filtered default page of ${PAGE_SIZE.default} cannot be told from a short one; ${why}`);
    }
    const found = await statusPageKnowing(ctx, status, (count) => count > PAGE_SIZE.default);
    if (!found) return;
    const { page: { pets, exchange }, known: shown } = found;
    // Only the count: whether the page holds the right statuses is LIST-09's.
    expectThat(ctx, pets.length === PAGE_SIZE.default, {
      what: `status=${status} without limit`, expected: `exactly ${PAGE_SIZE.default} pets (the target had shown ${shown} ${status})`, seen: petCount(pets.length), exchanges: [exchange],
    });
  }),
]);
