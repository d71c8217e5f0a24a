// GET /pets (listPets): page size, the limit bounds and the status filter.
import { describe } from 'vitest';
import { check, type CheckContext } from '../helpers/check.js';
import type { Exchange } from '../helpers/exchange.js';
import { describeExchange } from '../helpers/exchange.js';
import { expectError, expectNoServerError, expectSchema, expectStatus, expectThat, preview, responseOf } from '../helpers/expect.js';
import { ensurePets, knownPetIds, SetupError, STATUSES, type Pet } from '../helpers/pets.js';

/**
 * A 200 page, or a violation saying what came back instead. Only the array is required here: whether
 * each item is a valid Pet is LIST-01's finding, so a mistyped field does not also break every count.
 */
async function listPage(ctx: CheckContext, query: Record<string, string> | string = {}): Promise<{ pets: Pet[]; exchange: Exchange }> {
  const exchange = await ctx.client.send({ path: '/pets', query });
  expectStatus(exchange, [200]);
  return { pets: expectArray(exchange), exchange };
}

function expectArray(exchange: Exchange): Pet[] {
  const body = responseOf(exchange).json;
  expectThat(Array.isArray(body), `expected a JSON array of pets, saw ${preview(responseOf(exchange).rawBody, 120)} (${describeExchange(exchange)})`, {
    expected: 'a JSON array of Pet', seen: preview(responseOf(exchange).rawBody), exchanges: [exchange],
  });
  return body as unknown as Pet[];
}

/** ensurePets, where a 200 listing that is not an array is this suite's finding, not a broken setup. */
async function ensureListed(ctx: CheckContext, need: Parameters<typeof ensurePets>[1]): Promise<Pet[]> {
  try {
    return await ensurePets(ctx, need);
  } catch (error) {
    if (error instanceof SetupError && error.exchange?.response?.status === 200 && error.exchange.request.method === 'GET') expectArray(error.exchange);
    throw error;
  }
}

/** "At most n, and exactly n when enough exist": `known` is how many the run has seen the target hold. */
function expectPageSize(pets: Pet[], limit: number, known: number, exchange: Exchange): void {
  const want = Math.min(limit, known);
  expectThat(pets.length <= limit, `expected at most ${limit} pets, saw ${pets.length} (${describeExchange(exchange)})`, {
    expected: `at most ${limit}`, seen: `${pets.length} pets`, exchanges: [exchange],
  });
  expectThat(pets.length >= want, `expected ${want} pets (the target holds at least ${known}), saw ${pets.length} (${describeExchange(exchange)})`, {
    expected: `${want} pets`, seen: `${pets.length} pets`, exchanges: [exchange],
  });
}

/**
 * An out-of-range or malformed limit may be rejected (400 with an Error body) or clamped (a 200 page):
 * the spec states the bounds but not the reaction, so both are conforming. Never more than 100, never 5xx.
 */
async function expectRejectedOrClamped(ctx: CheckContext, value: string): Promise<void> {
  const exchange = await ctx.client.send({ path: '/pets', query: `limit=${encodeURIComponent(value)}` });
  const response = expectNoServerError(exchange, `limit=${value}`);
  if (response.status === 400) return expectError(exchange, 400, `limit=${value}`);
  expectStatus(exchange, [200, 400], `limit=${value}`);
  const pets = expectArray(exchange);
  expectThat(pets.length <= 100, `limit=${value}: expected at most 100 pets, saw ${pets.length}`, { expected: 'at most 100 pets', seen: `${pets.length}`, exchanges: [exchange] });
}

const OUT_OF_RANGE = ['0', '-1', '101', '1000'];
const NOT_INTEGERS = ['abc', '1.5', '', '10abc'];
/** Pages fetched by LIST-09, reused by LIST-10 so the filter costs three requests, not six. */
const statusPages = new Map<string, Pet[]>();

describe('listing', () => {
  check('LIST-01', async (ctx) => {
    const { exchange } = await listPage(ctx);
    expectSchema(exchange, 'PetList');
  });

  check('LIST-02', async (ctx) => {
    await ensureListed(ctx, { total: 21 });
    const { pets, exchange } = await listPage(ctx);
    expectThat(pets.length === 20, `expected exactly 20 pets without limit (the target holds more than 20), saw ${pets.length}`, {
      expected: '20 pets', seen: `${pets.length} pets`, exchanges: [exchange],
    });
  });

  check('LIST-03', async (ctx) => {
    await ensureListed(ctx, { total: 1 });
    const { pets, exchange } = await listPage(ctx, { limit: '1' });
    expectPageSize(pets, 1, knownPetIds(ctx.client.exchanges).size, exchange);
  });

  check('LIST-04', async (ctx) => {
    const { pets, exchange } = await listPage(ctx, { limit: '100' });
    expectPageSize(pets, 100, knownPetIds(ctx.client.exchanges).size, exchange);
  });

  check('LIST-05', async (ctx) => {
    await ensureListed(ctx, { total: 7 });
    const { pets, exchange } = await listPage(ctx, { limit: '7' });
    expectPageSize(pets, 7, knownPetIds(ctx.client.exchanges).size, exchange);
  });

  check('LIST-06', async (ctx) => {
    for (const value of OUT_OF_RANGE) await ctx.softly(() => expectRejectedOrClamped(ctx, value));
  });

  check('LIST-07', async (ctx) => {
    for (const value of NOT_INTEGERS) await ctx.softly(() => expectRejectedOrClamped(ctx, value));
  });

  check('LIST-08', async (ctx) => {
    const earlier = ctx.client.exchanges.filter((e) => (e.rule === 'LIST-06' || e.rule === 'LIST-07') && e.response);
    const exchanges = earlier.length > 0 ? earlier : [await ctx.client.send({ path: '/pets', query: 'limit=101' })];
    for (const exchange of exchanges) {
      const { status, json } = responseOf(exchange);
      const reaction = status === 400 ? 'rejected with 400' : status === 200 && Array.isArray(json) ? `answered with a page of ${json.length}` : `answered ${status}`;
      ctx.observe(`${describeExchange(exchange)}: ${reaction}`);
    }
  });

  check('LIST-09', async (ctx) => {
    await ensureListed(ctx, { perStatus: 1 });
    for (const status of STATUSES) {
      await ctx.softly(async () => {
        const { pets, exchange } = await listPage(ctx, { status });
        statusPages.set(status, pets);
        const strays = pets.filter((pet) => pet.status !== status);
        expectThat(strays.length === 0, `status=${status}: expected only ${status} pets, saw ${strays.length} other(s), e.g. id ${strays[0]?.id} with status ${JSON.stringify(strays[0]?.status)}`, {
          expected: `every pet with status ${status}`, seen: `${strays.length} of ${pets.length} with another status`, exchanges: [exchange],
        });
      });
    }
  });

  check('LIST-10', async (ctx) => {
    await ensureListed(ctx, { perStatus: 1 });
    for (const status of STATUSES) {
      await ctx.softly(async () => {
        const pets = statusPages.get(status) ?? (await listPage(ctx, { status })).pets;
        const matching = pets.filter((pet) => pet.status === status);
        expectThat(matching.length > 0, `status=${status}: expected at least one ${status} pet (the target holds some), saw none`, {
          expected: `at least one pet with status ${status}`, seen: `${pets.length} pets, none ${status}`,
          exchanges: ctx.client.exchanges.filter((e) => e.request.url.includes(`status=${status}`)).slice(-1),
        });
      });
    }
  });

  check('LIST-11', async (ctx) => {
    await ensureListed(ctx, { perStatus: 2 });
    const { pets, exchange } = await listPage(ctx, { status: 'pending', limit: '1' });
    expectThat(pets.length === 1 && pets[0]?.status === 'pending', `status=pending&limit=1: expected exactly one pending pet, saw ${pets.length} pet(s) with statuses ${JSON.stringify(pets.map((p) => p.status))}`, {
      expected: 'one pending pet', seen: `${pets.length} pets`, exchanges: [exchange],
    });
  });

  check('LIST-12', async (ctx) => {
    const exchange = await ctx.client.send({ path: '/pets', query: { status: 'not-a-status' } });
    ctx.observe(`status=not-a-status is answered ${exchange.response?.status}`);
  });

  check('LIST-13', async (ctx) => {
    const earlier = ctx.client.exchanges.find((e) => e.rule === 'LIST-01' && e.response);
    const exchange = earlier ?? (await ctx.client.send({ path: '/pets' }));
    const headers = exchange.response?.headers ?? {};
    const paging = Object.keys(headers).filter((name) => /^(link|x-total-count|x-next|x-page|x-cursor|x-has-more|x-next-cursor)/.test(name));
    ctx.observe(paging.length > 0 ? `paging headers: ${paging.map((name) => `${name}: ${headers[name]}`).join('; ')}` : 'no paging headers beyond the array itself');
  });
});
