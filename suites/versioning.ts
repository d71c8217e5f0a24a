// Versioning: the /v1 segment, the deprecated GET /pets/{petId} (alive until its removal date), what every answer
// announces of its operation's deprecation, stability markers. It runs after every area that sends but the rate limits.
import { check, suite, type CheckContext } from '../helpers/judge/check.js';
import { skipIfGetPetRemoved } from '../helpers/judge/deprecation.js';
import { GET_PET_REMOVAL, PAGE_SIZE } from '../helpers/spec/facts.js';
import { describeExchange, type Exchange } from '../helpers/http/exchange.js';
import { expectThat, preview, responseOf } from '../helpers/judge/expect.js';
import { groupExchanges, operationOf } from '../helpers/judge/operations.js';
import { parseHttpDate } from '../helpers/http/retry-after.js';
import type { Json } from '../helpers/json.js';
import { ensurePets, isValidPet, SetupError, type Pet } from '../helpers/fixtures/pets.js';

/** Statuses that say an operation is gone rather than that a pet is missing or a request wrong. */
const GONE = [404, 405, 410, 501];
const DEPRECATION_HEADERS = ['deprecation', 'sunset', 'link'];
const STABILITY_MARKER = /experimental|beta/i;

/** The getPet exchanges with the key the run has made so far. */
function getPetExchanges(ctx: CheckContext): Exchange[] {
  return ctx.client.exchanges.filter((exchange) => exchange.request.auth === 'key' && exchange.response && operationOf(exchange, ctx.config.baseUrl) === 'getPet');
}

/**
 * A pet the target lists, not merely one the run was told it created: only a listed pet's 404 says the
 * operation is gone. Its id is one a double holds exactly, where there is one: int64 precision is
 * FETCH-01's business, existence is VER-02's.
 */
async function listedPet(ctx: CheckContext): Promise<Pet | undefined> {
  const listed = (exchanges: readonly Exchange[]) => exchanges
    .filter((exchange) => operationOf(exchange, ctx.config.baseUrl) === 'listPets' && exchange.response?.status === 200)
    .flatMap((exchange) => (Array.isArray(exchange.response?.json) ? exchange.response.json : []))
    .filter((item): item is Json & Pet => isValidPet(item));
  let pets = listed(ctx.client.exchanges);
  if (pets.length === 0) {
    // An empty target gets one pet (unless --read-only); a listing too broken to count is LIST-01's finding.
    if (!ctx.config.readOnly) await ensurePets(ctx, { total: 1 }).catch((error: unknown) => { if (!(error instanceof SetupError)) throw error; });
    pets = listed([await ctx.client.send({ path: '/pets', query: { limit: String(PAGE_SIZE.max) } })]);
  }
  return pets.find((pet) => BigInt(Number(pet.id)) === BigInt(pet.id)) ?? pets[0];
}

/** The first moment a Sunset may name, and the last: the day the spec names, in GMT as every HTTP-date is. */
const REMOVAL_DAY = { from: Date.parse(`${GET_PET_REMOVAL}T00:00:00Z`), to: Date.parse(`${GET_PET_REMOVAL}T00:00:00Z`) + 86_400_000 };
const DEPRECATION_LINK = /;\s*rel\s*=\s*"?[^";,]*\b(deprecation|sunset)\b/i;

/** What a response announces of its operation's end: Deprecation and Sunset headers (RFC 9745, RFC 8594) and Links of those relations. */
function announcements(headers: Readonly<Record<string, string>>): string[] {
  const said: string[] = [];
  for (const name of ['deprecation', 'sunset'] as const) if (headers[name] !== undefined) said.push(`${name}: ${headers[name]}`);
  if (headers.link !== undefined && DEPRECATION_LINK.test(headers.link)) said.push(`link: ${headers.link}`);
  return said;
}

/**
 * What is false in what a response announces of its operation: any announcement on an operation the spec does not
 * deprecate, or a Sunset on GET /pets/{petId} that is not on 5 December 2030. GET /pets, the stated replacement,
 * most of all: a client that believed it would have nowhere to go.
 */
function falseAnnouncement(exchange: Exchange, baseUrl: string): string | undefined {
  const operation = operationOf(exchange, baseUrl);
  const said = announcements(responseOf(exchange).headers);
  if (operation === undefined || said.length === 0) return undefined;
  if (operation !== 'getPet') return `${said.join('; ')} on ${operation}, which the spec does not deprecate`;
  const sunset = responseOf(exchange).headers.sunset;
  if (sunset === undefined) return undefined;
  const at = parseHttpDate(sunset);
  if (at === undefined) return `sunset: ${sunset}, which is no HTTP-date`;
  return at >= REMOVAL_DAY.from && at <= REMOVAL_DAY.to ? undefined : `sunset: ${sunset} (${new Date(at).toISOString()}), not on ${GET_PET_REMOVAL}`;
}

export default suite('versioning', [
  check('VER-01', async (ctx) => {
    const path = new URL(ctx.config.baseUrl).pathname.replace(/\/+$/, '');
    // A SHOULD, not a MUST: a gateway may lawfully publish the same interface under another path.
    expectThat(ctx, path.endsWith('/v1'), { expected: 'the base URL to end in the version segment /v1', seen: ctx.config.baseUrl });
  }),

  check('VER-02', async (ctx) => {
    skipIfGetPetRemoved(ctx);
    const served = getPetExchanges(ctx).find((exchange) => exchange.response?.status === 200);
    if (served) return ctx.observe(`served before ${GET_PET_REMOVAL}: ${describeExchange(served)}`);
    const pet = await listedPet(ctx);
    if (!pet) return ctx.skip('the target lists no pet, so a 404 could not tell a removed operation from a missing pet');
    const exchange = await ctx.client.send({ path: `/pets/${pet.id}` });
    const status = responseOf(exchange).status;
    expectThat(ctx, !GONE.includes(status), {
      expected: `the deprecated GET /pets/{petId} served until ${GET_PET_REMOVAL} for pet ${pet.id}, which the target holds`,
      seen: String(status), body: preview(responseOf(exchange).rawBody), exchanges: [exchange],
    });
  }),

  check('VER-03', async (ctx) => {
    const exchanges = getPetExchanges(ctx);
    const exchange = exchanges.find((e) => e.response?.status === 200) ?? exchanges[0] ?? (await ctx.client.send({ path: '/pets/1' }));
    const { headers, status } = responseOf(exchange);
    const announced = DEPRECATION_HEADERS.filter((name) => headers[name] !== undefined);
    // A server may announce the deprecation on a pet it serves only, so the status read is on record.
    ctx.observe(announced.length > 0
      ? `GET /pets/{petId} announces its deprecation (on a ${status}): ${announced.map((name) => `${name}: ${headers[name]}`).join('; ')}`
      : `GET /pets/{petId} sends no Deprecation, Sunset or Link header (read on a ${status}${status === 200 ? '' : '; no getPet was answered 200 in this run'})`);
  }),

  check('VER-04', async (ctx) => {
    const markers = new Set<string>();
    for (const exchange of ctx.client.exchanges) {
      for (const [name, value] of Object.entries(exchange.response?.headers ?? {})) {
        if (STABILITY_MARKER.test(name) || STABILITY_MARKER.test(value)) {
          markers.add(`${operationOf(exchange, ctx.config.baseUrl) ?? describeExchange(exchange)}: ${name}: ${value}`);
        }
      }
    }
    ctx.observe(markers.size > 0 ? `stability markers: ${[...markers].join('; ')}` : `no experimental or beta marker in the headers of ${ctx.client.exchanges.length} responses`);
  }),

  check('VER-05', async (ctx) => {
    // Every answer of the run to a documented operation: this area runs after every area that sends but the rate limits.
    const judged = ctx.client.exchanges.filter((exchange) => exchange.response && operationOf(exchange, ctx.config.baseUrl) !== undefined);
    if (judged.length === 0) ctx.skip('the run received no answer to a documented operation, so there is nothing it announced to judge');
    for (const [operation, members] of groupExchanges(judged, ctx.config.baseUrl, false)) {
      const broken = members.filter((exchange) => falseAnnouncement(exchange, ctx.config.baseUrl) !== undefined);
      if (broken.length === 0) continue;
      ctx.violation({
        what: `${operation}: ${broken.length} of ${members.length} response(s)`,
        expected: `no Deprecation or Sunset announced but on GET /pets/{petId}, and a Sunset there on ${GET_PET_REMOVAL}`,
        seen: falseAnnouncement(broken[0]!, ctx.config.baseUrl)!, exchanges: [broken[0]!],
      });
    }
    ctx.observe(`judged what ${judged.length} response(s) to the documented operations announce of their deprecation`);
  }),
], { wholeRun: true });
