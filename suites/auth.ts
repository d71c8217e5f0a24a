// Authentication: HTTP bearer on every operation; a missing or invalid key gets 401 with an Error body.
import { check, suite, type CheckContext, type CheckOptions } from '../helpers/judge/check.js';
import type { SendOptions } from '../helpers/http/client.js';
import { describeExchange, KEY_PLACES, type AuthMode, type Exchange } from '../helpers/http/exchange.js';
import { expectError, expectStatus, expectThat, preview, responseOf } from '../helpers/judge/expect.js';
import { groupExchanges, type OperationId } from '../helpers/judge/operations.js';
import { petName, petsKnownToExist, plainName, recordIfCreated, unknownPetId, type Pet } from '../helpers/fixtures/pets.js';
import { swapCase } from '../helpers/http/redact.js';
import { allTogether, together } from '../helpers/judge/together.js';
import { runKey } from '../helpers/run-context.js';
import { PAGE_SIZE } from '../helpers/spec/facts.js';

/** How each broken credential reads in a message. */
const BROKEN_AUTH: Record<Exclude<AuthMode, 'key' | 'lowercase-bearer'>, string> = {
  none: 'no Authorization header',
  'empty-bearer': '"Bearer" with an empty token',
  'unknown-key': 'a key no server issued',
  'key-plus-char': 'the key with one character appended',
  'key-minus-char': 'the key without its last character',
  'key-case-swapped': 'the key with its letters in the other case',
  basic: 'the key under the Basic scheme (base64 of "key:")',
  'basic-raw': 'the unencoded key under the Basic scheme',
  'token-scheme': 'the key under the Token scheme',
  bare: 'the bare key without a scheme',
  'bearer-no-space': 'Bearer and the key with no space between them',
  'key-elsewhere': `no Authorization header and the key in the query (${KEY_PLACES.query.join(', ')}), in cookies (${KEY_PLACES.cookie.join(', ')}) and in headers (${KEY_PLACES.headers.join(', ')})`,
  'key-in-query': `no Authorization header and the key in the query parameters ${KEY_PLACES.query.join(', ')}`,
  'key-in-cookie': `no Authorization header and the key in the cookies ${KEY_PLACES.cookie.join(', ')}`,
  'key-in-headers': `no Authorization header and the key in the headers ${KEY_PLACES.headers.join(', ')}`,
};
type BrokenAuth = keyof typeof BROKEN_AUTH;

/**
 * Each operation as a request that succeeds with the key, so that only the credential decides the
 * answer: an existing pet for getPet, a valid NewPet (named, in case a server wrongly accepts it) for createPet.
 */
async function requests(ctx: CheckContext, label: string): Promise<Record<OperationId, SendOptions>> {
  const pets = await existingPets(ctx);
  return {
    listPets: { path: '/pets', query: { limit: '1' } },
    createPet: { method: 'POST', path: '/pets', json: { name: petName(ctx.config.runId, `auth ${label}`), categoryId: 1 } },
    getPet: { path: `/pets/${pets[0]?.id ?? 1}` },
    getStoreOrders: { path: '/store/orders' },
  };
}

const EXISTING_PETS = runKey<Promise<Pet[]>>('auth: pets known to exist');

/** Looked up once per run for the checks that run together: one listing at most, not one per check. */
function existingPets(ctx: CheckContext): Promise<Pet[]> {
  return ctx.run.shared(EXISTING_PETS, () => petsKnownToExist(ctx, { create: false }));
}

/** Sends one operation with one broken credential; it must get 401 with an Error body. */
async function expectRefused(ctx: CheckContext, operation: string, request: SendOptions, auth: BrokenAuth): Promise<void> {
  const exchange = await ctx.client.send({ ...request, auth });
  recordIfCreated(ctx, exchange);
  expectError(ctx, exchange, 401, `${operation} with ${BROKEN_AUTH[auth]}`);
}

/** Sends every operation with one broken credential. */
async function expectRefusedEverywhere(ctx: CheckContext, auth: BrokenAuth): Promise<void> {
  await together(ctx, Object.entries(await requests(ctx, auth)), ([operation, request], part) => expectRefused(part, operation, request, auth));
}

/**
 * Near misses of the real key, each once on an operation of its own (the unknown key already covers
 * every operation): they catch comparisons by prefix, by the token's length and without case.
 */
async function expectNearMissesRefused(ctx: CheckContext): Promise<void> {
  const key = ctx.config.apiKey;
  const { listPets, getPet, getStoreOrders } = await requests(ctx, 'near-miss');
  const parts = [(part: CheckContext) => expectRefused(part, 'listPets', listPets, 'key-plus-char')];
  if (key.length >= 2) parts.push((part) => expectRefused(part, 'getPet', getPet, 'key-minus-char'));
  else ctx.observe('the key has a single character: no truncated key to send');
  if (swapCase(key) !== key) parts.push((part) => expectRefused(part, 'getStoreOrders', getStoreOrders, 'key-case-swapped'));
  else ctx.observe('the key has no letters: no key differing only in case to send');
  await allTogether(ctx, parts);
}

/** Other schemes than Basic with the encoded key, once each on an operation of its own. */
async function expectOtherSchemesRefused(ctx: CheckContext): Promise<void> {
  const { listPets, getPet } = await requests(ctx, 'scheme');
  await allTogether(ctx, [
    (part) => expectRefused(part, 'listPets', listPets, 'token-scheme'),
    (part) => expectRefused(part, 'getPet', getPet, 'basic-raw'),
  ]);
}

/** A request that is wrong besides its missing key must still get 401: the key is checked first. */
async function expectKeyCheckedFirst(ctx: CheckContext, what: string, request: SendOptions, auth: 'none' | 'unknown-key', allowed: readonly number[] = [401]): Promise<void> {
  const exchange = await ctx.client.send({ ...request, auth });
  recordIfCreated(ctx, exchange);
  expectStatus(ctx, exchange, allowed, `${what} with ${BROKEN_AUTH[auth]}`);
}

/** The listing AUTH-10 and AUTH-11 send: it needs no pet, so the credential alone decides the answer. */
const LIST_ONE: SendOptions = { path: '/pets', query: { limit: '1' } };

/**
 * The key where auth libraries also look for one, never in Authorization: the spec says the key is missing, so
 * 401. Every place goes in one request, so that the key travels outside its header once on a conforming server;
 * only a server that took it from somewhere is asked once per place, to say where.
 */
async function expectKeyElsewhereRefused(ctx: CheckContext): Promise<void> {
  const everywhere = await ctx.client.send({ ...LIST_ONE, auth: 'key-elsewhere' });
  if (responseOf(everywhere).status === 401) {
    expectError(ctx, everywhere, 401, `listPets with ${BROKEN_AUTH['key-elsewhere']}`);
    return;
  }
  const places = ['key-in-query', 'key-in-cookie', 'key-in-headers'] as const;
  const alone = await Promise.all(places.map((auth) => ctx.client.send({ ...LIST_ONE, auth })));
  const accepted = alone.filter((exchange) => responseOf(exchange).status !== 401 && !tooLarge(exchange));
  // A server that answers each place alone 401, but not all of them together, is judged by the request that showed it.
  const judged = accepted.length > 0 ? accepted : !tooLarge(everywhere) ? [everywhere] : alone.filter((exchange) => !tooLarge(exchange));
  if (judged.length === 0) {
    const key = ctx.config.apiKey.length;
    ctx.skip(`the key (${key} characters) put in several places of one request made every such request too large for the server (${describeExchange(everywhere)}; each place alone, ${alone.map((exchange) => responseOf(exchange).status).join(', ')}): a refusal for size says nothing of where the server looks for the key`);
  }
  for (const exchange of judged) {
    expectError(ctx, exchange, 401, `listPets with ${BROKEN_AUTH[exchange.request.auth as BrokenAuth]}`);
  }
}

/**
 * An answer refusing the request for its size before anything else (414 URI Too Long, 431 Request Header Fields Too
 * Large): AUTH-10 repeats the key in many places, and a key of kilobytes (a long JWT) makes that request larger than
 * a server takes, whatever it does with keys.
 */
function tooLarge(exchange: Exchange): boolean {
  return [414, 431].includes(responseOf(exchange).status);
}

/**
 * Spellings of the documented paths that routers, proxies and URL parsers may take for the path itself while an auth
 * middleware matching the exact path does not (Express's non-strict routing with a `/pets` guard, Spring's suffix and
 * matrix-variable matching, a proxy that resolves dot segments after the gateway's check, a router that decodes
 * percent-encoding or ignores case): each must be refused without the key as the path is, or not served at all.
 */
function spellingsOf(petId: string): Array<{ operation: OperationId; path: string }> {
  return [
    ...['/pets/', '//pets', '/./pets', '/%70ets', '/PETS', '/pets;v=1', '/pets.json'].map((path) => ({ operation: 'listPets' as const, path })),
    ...[`/pets/${petId}/`, `//pets/${petId}`, `/Pets/${petId}`, `/pets/${petId}.json`].map((path) => ({ operation: 'getPet' as const, path })),
    ...['/store/orders/', '/store/./orders', '/STORE/orders'].map((path) => ({ operation: 'getStoreOrders' as const, path })),
  ];
}

/** The documented paths asked with HEAD, without the key: a 2xx answers what GET would, without its body. */
function headRequestsOf(petId: string): Array<{ operation: OperationId; path: string }> {
  return [{ operation: 'listPets', path: '/pets' }, { operation: 'getPet', path: `/pets/${petId}` }, { operation: 'getStoreOrders', path: '/store/orders' }];
}

/** Whether an answer served or stored pet data: any success (a redirect to the path, a 404, a 401 serve nothing). */
function served(exchange: Exchange): boolean {
  const status = responseOf(exchange).status;
  return status >= 200 && status <= 299;
}

/**
 * AUTH-12: every spelling, and HEAD on each path, without the key, together; and one valid NewPet POSTed to `/pets/`, named
 * and given a status so that the store model finds it on the last pages should the server store it though it refused it (CONS-11).
 */
async function expectSpellingsRefused(ctx: CheckContext): Promise<void> {
  const pets = await existingPets(ctx);
  const id = String(pets[0]?.id ?? 1);
  const spellings = [
    ...spellingsOf(id).map(({ operation, path }) => ({ operation, request: { path, pathAsIs: true } as SendOptions })),
    { operation: 'createPet' as const, request: { method: 'POST', path: '/pets/', pathAsIs: true, json: { name: plainName(ctx.config.runId, 'auth slash'), categoryId: 1, status: 'sold' } } as SendOptions },
    // HEAD is GET without the body (RFC 9110 §9.3.2): routers answer it from the GET route, ahead of a guard registered
    // for GET alone (chi's GetHead, a gateway rule per method), and its headers (the length of a page, a 200 for an id) show data.
    ...headRequestsOf(id).map(({ operation, path }) => ({ operation, request: { method: 'HEAD', path } as SendOptions })),
  ];
  await together(ctx, spellings, async ({ operation, request }, part) => {
    const exchange = await part.client.send({ ...request, auth: 'none' });
    recordIfCreated(part, exchange);
    expectThat(part, !served(exchange), {
      what: `${operation} ${request.method === 'HEAD' ? 'asked with' : 'spelled'} ${request.method ?? 'GET'} ${request.path}, without a key`,
      expected: 'no pet data served or stored without a valid key (401, or a redirect or 404 that serves nothing)',
      seen: String(responseOf(exchange).status), body: preview(responseOf(exchange).rawBody), exchanges: [exchange],
    });
  });
}

// Each credential check sends its own requests and reads nothing another sends: they run together.
// AUTH-08 judges every 401 of the area sent before it, so it waits for them.
const TOGETHER: CheckOptions = { concurrent: true };
const WHOLE_RUN: CheckOptions = { wholeRun: true };

export default suite('auth', [
  check('AUTH-01', (ctx) => expectRefusedEverywhere(ctx, 'none'), TOGETHER),
  check('AUTH-02', (ctx) => expectRefusedEverywhere(ctx, 'empty-bearer'), TOGETHER),
  check('AUTH-03', async (ctx) => {
    await expectRefusedEverywhere(ctx, 'unknown-key');
    await expectNearMissesRefused(ctx);
  }, TOGETHER),
  check('AUTH-04', async (ctx) => {
    await expectRefusedEverywhere(ctx, 'basic');
    await expectOtherSchemesRefused(ctx);
  }, TOGETHER),
  check('AUTH-05', (ctx) => expectRefusedEverywhere(ctx, 'bare'), TOGETHER),

  check('AUTH-06', async (ctx) => {
    const { listPets, getPet, getStoreOrders } = await requests(ctx, 'key');
    for (const [operation, request] of Object.entries({ listPets, getPet, getStoreOrders })) {
      const exchange = await ctx.client.send(request);
      const status = responseOf(exchange).status;
      // 403 is not counted against the rule: key scopes are "not shown", so a key may lawfully lack one.
      if (status === 403) ctx.observe(`${operation} answered 403 to the key: it may lack a scope (${describeExchange(exchange)})`);
      if (status === 401) {
        ctx.violation({ what: operation, expected: 'the key sent as "Authorization: Bearer <key>" to be accepted (any status but 401)', seen: String(status), body: responseOf(exchange).rawBody, exchanges: [exchange] });
      }
    }
  }, TOGETHER),

  check('AUTH-07', async (ctx) => {
    // An invalid body, an unknown pet, an out-of-range limit, a malformed petId: a server that validates
    // or looks up first answers 400, 404 or 422.
    const unknownPet = unknownPetId(ctx.client.exchanges);
    await allTogether(ctx, [
      ...(['none', 'unknown-key'] as const).flatMap((auth) => [
        (part: CheckContext) => expectKeyCheckedFirst(part, 'createPet with an invalid body', { method: 'POST', path: '/pets', json: {} }, auth),
        (part: CheckContext) => expectKeyCheckedFirst(part, 'getPet of a pet that does not exist', { path: `/pets/${unknownPet}` }, auth),
      ]),
      (part) => expectKeyCheckedFirst(part, `listPets with limit=${PAGE_SIZE.min - 1}`, { path: '/pets', query: { limit: String(PAGE_SIZE.min - 1) } }, 'none'),
      // A router that only matches integer petIds (Spring's {petId:\d+}, Rails constraints) answers 404 for a
      // path that names no operation, before any operation's authentication: that is no check of the body or pet.
      (part) => expectKeyCheckedFirst(part, 'getPet of the malformed petId "abc"', { path: '/pets/abc' }, 'none', [401, 404]),
    ]);
  }, TOGETHER),

  // Every 401 of the run, whichever area was answered it: judged once they all have been.
  check('AUTH-08', async (ctx) => {
    const isUnauthorized = (exchange: Exchange): boolean => exchange.response?.status === 401;
    if (!ctx.client.exchanges.some(isUnauthorized)) await ctx.client.send({ path: '/pets', query: { limit: '1' }, auth: 'none' });
    const unauthorized = ctx.client.exchanges.filter(isUnauthorized);
    // No 401 to judge: AUTH-01 reports the missing 401 itself; a challenge cannot be judged without one.
    if (unauthorized.length === 0) ctx.skip('the target answered no request with 401, so no challenge could be judged');
    const unchallenged = unauthorized.filter((exchange) => !exchange.response?.headers['www-authenticate']?.trim());
    for (const [operation, exchanges] of groupExchanges(unchallenged, ctx.config.baseUrl, false)) {
      ctx.violation({ what: operation, expected: 'a WWW-Authenticate challenge with every 401', seen: `none on ${exchanges.length} of them`, exchanges: exchanges.slice(0, 1) });
    }
  }, WHOLE_RUN),

  check('AUTH-09', async (ctx) => {
    const exchange = await ctx.client.send({ path: '/pets', query: { limit: '1' }, auth: 'lowercase-bearer' });
    expectStatus(ctx, exchange, [200], 'the key sent as "bearer <key>"');
  }, TOGETHER),

  check('AUTH-10', (ctx) => expectKeyElsewhereRefused(ctx), TOGETHER),

  check('AUTH-11', (ctx) => expectRefused(ctx, 'listPets', LIST_ONE, 'bearer-no-space'), TOGETHER),

  check('AUTH-12', (ctx) => expectSpellingsRefused(ctx), TOGETHER),
]);
