// GET /pets/{petId} (getPet): deprecated but served until its removal date (GET_PET_REMOVAL); ids compared exactly.
import { check, suite, type CheckContext, type CheckOptions } from '../helpers/judge/check.js';
import { skipIfGetPetRemoved } from '../helpers/judge/deprecation.js';
import { createdIdOf, describeExchange, type Exchange } from '../helpers/http/exchange.js';
import { expectError, expectNoServerError, expectSchema, expectStatus, expectThat, preview, responseOf } from '../helpers/judge/expect.js';
import { asBigInt, isJsonObject } from '../helpers/json.js';
import { petFieldDifferences, show, type PetField } from '../helpers/fixtures/pet-fields.js';
import { createdAtOf, readAfterWrite } from '../helpers/fixtures/read-after-write.js';
import { highestKnownPetId, isValidPet, petsKnownToExist, unknownPetId, type Pet } from '../helpers/fixtures/pets.js';
import { INT64 } from '../helpers/spec/facts.js';
import { allTogether, together } from '../helpers/judge/together.js';

/** Whether a double would round this id: the ids a lookup through a JS number or a float column gets wrong. */
function doubleLoses(id: number | bigint): boolean {
  return typeof id === 'bigint' && BigInt(Number(id)) !== id;
}

/** The first pet, and up to two whose id a double cannot hold: where a lossy lookup misses or finds a neighbour. */
function petsToFetch(pets: readonly Pet[]): Pet[] {
  const lossy = pets.filter((pet) => doubleLoses(pet.id)).slice(0, 2);
  // Two pets at least: a lookup that serves one pet for every id (a cache keyed by the route) shows only with a second.
  return [...new Set([...pets.slice(0, 2), ...lossy])];
}

/** Path segments that are not an int64: each must get a 4xx, never a 2xx, 3xx or 5xx. */
function badPetIds(id: number | bigint): Array<{ name: string; segment: string }> {
  return [
    { name: 'an existing id with trailing letters', segment: `${id}abc` },
    { name: 'an existing id with a fraction', segment: `${id}.5` },
    { name: 'letters only', segment: 'abc' },
    // The first value past the int64 bound: an off-by-one range check or an unsigned parser lets it through.
    { name: 'int64 max + 1', segment: String(INT64.max + 1n) },
    // 2^64 + id wraps to the existing id in 64-bit arithmetic: an overflowing parser serves that pet.
    { name: 'an existing id plus 2^64 (beyond int64)', segment: String(2n ** 64n + BigInt(id)) },
  ];
}

/** One above the highest id the target has shown: the slot an array-backed store gets wrong by one. */
function nextPetId(ctx: CheckContext): bigint | undefined {
  const highest = highestKnownPetId(ctx.client.exchanges);
  return highest === undefined || highest >= INT64.max ? undefined : highest + 1n;
}

/** Whether the run sent a create that was answered with `id` before `asked` was answered (seq is the order answers came in). */
function createdWhileAsked(exchanges: readonly Exchange[], id: string, asked: Exchange): boolean {
  return exchanges.some((exchange) => createdIdOf(exchange) === id && (exchange.sentAfter ?? 0) < asked.seq);
}

/**
 * 404 with an Error body, unless the pet exists: another client may have created it since, or the target
 * holds more pets than its first page showed. Then a 200 with that very pet is right, and only observed;
 * a 200 with another pet is the lookup landing on a neighbour.
 */
async function expectNotFoundOrCreatedSince(ctx: CheckContext, id: bigint): Promise<void> {
  const exchange = await ctx.client.send({ path: `/pets/${id}` });
  const { status, json } = responseOf(exchange);
  if (status === 200 && isValidPet(json) && isJsonObject(json) && asBigInt(json.id) === id) {
    return ctx.observe(`pet ${id} exists (created since, or beyond what the run listed): ${describeExchange(exchange)}`);
  }
  // The run's other areas create pets meanwhile: one may have been given this id, and a fetch of a pet that exists is
  // FETCH-01's to judge, whatever came back.
  if (status === 200 && createdWhileAsked(ctx.client.exchanges, String(id), exchange)) {
    return ctx.observe(`pet ${id} was being created by this run when it was asked for, so the answer says nothing of a missing pet: ${describeExchange(exchange)}`);
  }
  expectError(ctx, exchange, 404, `a pet that does not exist (id ${id})`);
}

// FETCH-01 may create the pet it fetches; after it, FETCH-02 and FETCH-03 only ask for ids no pet has and run
// together. FETCH-04 reads what FETCH-03 was answered.
const TOGETHER: CheckOptions = { concurrent: true };

export default suite('fetching', [
  check('FETCH-01', async (ctx) => {
    skipIfGetPetRemoved(ctx);
    const pets = await petsKnownToExist(ctx, { create: true, atLeast: 2 });
    // Pets are listed, but none as a valid Pet to compare with: the listing's shape is LIST-01's finding.
    if (pets.length === 0) ctx.skip('the target lists no valid Pet to fetch and compare (see LIST-01)');
    await together(ctx, petsToFetch(pets), async (pet, part) => {
      // A pet this run created may not have reached the replica that answers yet.
      const exchange = await readAfterWrite(part, `GET /pets/${pet.id}`, createdAtOf(part.client.exchanges, String(pet.id)),
        () => part.client.send({ path: `/pets/${pet.id}` }), (answer) => answer.response?.status !== 404);
      if (!expectStatus(part, exchange, [200], `id ${pet.id}`) || expectSchema(part, exchange, 'Pet', `id ${pet.id}`) === undefined) return;
      // A status the pet was seen without is not compared: the server may have chosen one since.
      const fields: PetField[] = pet.status === undefined ? ['id', 'name', 'categoryId'] : ['id', 'name', 'categoryId', 'status'];
      const differences = petFieldDifferences(pet, responseOf(exchange).json, fields);
      expectThat(part, differences.length === 0, {
        what: `GET /pets/${pet.id}`, expected: `the pet as the run saw it, ${show(pet)}`, seen: differences.join('; '), body: responseOf(exchange).rawBody, exchanges: [exchange],
      });
    });
  }),

  check('FETCH-02', async (ctx) => {
    skipIfGetPetRemoved(ctx);
    const top = unknownPetId(ctx.client.exchanges);
    const next = nextPetId(ctx);
    const topUnknown = async (part: CheckContext) => {
      const exchange = await part.client.send({ path: `/pets/${top}` });
      expectError(part, exchange, 404, `a pet that does not exist (id ${top}, at the top of int64)`);
    };
    // int64 is signed: -1 is a well-formed id no pet has, not a malformed one (an unsigned parser says 400).
    const parts = [topUnknown, (part: CheckContext) => expectNotFoundOrCreatedSince(part, -1n)];
    const nextTried = next !== undefined && next !== top;
    if (nextTried) parts.push((part) => expectNotFoundOrCreatedSince(part, next));
    await allTogether(ctx, parts);
    if (!nextTried) ctx.observe('no pet id seen below the top of int64, so the id after the highest was not tried');
  }, TOGETHER),

  check('FETCH-03', async (ctx) => {
    const pets = await petsKnownToExist(ctx, { create: false });
    await together(ctx, badPetIds(pets[0]?.id ?? 1), async (bad, part) => {
      const exchange = await part.client.send({ path: `/pets/${encodeURIComponent(bad.segment)}` });
      // Whether the Error body is right is ERR-02's finding; here only the class of the status.
      const response = expectNoServerError(part, exchange, `petId ${bad.segment} (${bad.name})`);
      if (!response) return;
      const { status, rawBody } = response;
      expectThat(part, status >= 400, {
        what: `petId ${bad.segment} (${bad.name})`, expected: 'a 4xx for a petId that is not an int64 (the spec names no status; 400 and 404 are usual)',
        seen: String(status), body: preview(rawBody), exchanges: [exchange],
      });
    });
  }, TOGETHER),

  check('FETCH-04', async (ctx) => {
    const earlier = ctx.client.exchanges.filter((exchange) => exchange.rule === 'FETCH-03' && exchange.response);
    const exchanges = earlier.length > 0 ? earlier : [await ctx.client.send({ path: '/pets/abc' })];
    for (const exchange of exchanges) ctx.observe(describeExchange(exchange));
  }),
]);
