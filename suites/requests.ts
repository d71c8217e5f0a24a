// The requests around the documented ones: the methods the spec does not name, paths it does not name, the
// Accept headers clients send, and a body of a few MiB. Each answer is held to the run-wide invariants like any
// other (every error an Error in application/json, every body JSON, no 5xx, the rate-limit headers, the store
// model); the rules here judge what the spec says of these requests in particular, and report (INFO) which of
// the answers it allows came back. Safe on a production server: a request that could change data goes only to
// a pet this area created for it (spec/test-design.md, "Request-space").
import { check, suite, type CheckContext, type CheckOptions } from '../helpers/judge/check.js';
import { TransportError, type SendOptions } from '../helpers/http/client.js';
import { answeredSuccess, createdIdOf, describeExchange, type Exchange } from '../helpers/http/exchange.js';
import { expectStatus, expectThat, preview, responseOf } from '../helpers/judge/expect.js';
import { groupExchanges, pathTemplate } from '../helpers/judge/operations.js';
import { petFieldDifferences } from '../helpers/fixtures/pet-fields.js';
import { plainName, petsKnownToExist, recordIfCreated, unknownPetId } from '../helpers/fixtures/pets.js';
import { stringifyJson, type Json } from '../helpers/json.js';
import { together } from '../helpers/judge/together.js';

/** A path under the base URL that no API names: the run-labelled text makes it recognisable in the target's logs. */
const UNKNOWN_PATH = '/petstore-conformance-no-such-path';

/** Methods the spec names on no path, safe on any resource (RFC 9110 §9.2.1): sent to every path. */
const SAFE_METHODS = ['HEAD', 'OPTIONS'] as const;

/** What Firefox sends: HTML first, any type last. It admits JSON, so a JSON-only server answers it with JSON. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Accept headers that admit application/json (REQ-03): none at all (RFC 9110 §12.5.1: any type), curl's any type, a browser's. */
const ACCEPTING_JSON: ReadonlyArray<{ about: string; accept: string | null }> = [
  { about: 'no Accept header', accept: null },
  { about: 'Accept: */*', accept: '*/*' },
  { about: `a browser's Accept (${BROWSER_ACCEPT})`, accept: BROWSER_ACCEPT },
];

/** The body of REQ-05: 4 MiB, above the default limit of every common stack (1 MiB for nginx and fastify, 100 KB for Express). */
const BIG_BODY_BYTES = 4 * 1024 * 1024;

/** A pet created for the methods that could change it, and what it was created with. */
interface MethodsPet {
  id: string;
  sent: Record<string, Json>;
}

/**
 * The pet the data-changing methods go to: created here, for them alone, so that nothing a server does with
 * PUT, PATCH, POST or DELETE (an extension it may implement) touches a pet another check reads. The store
 * model sets every pet such a request went to aside (helpers/model/store-model.ts).
 */
async function methodsPet(ctx: CheckContext): Promise<MethodsPet | undefined> {
  if (ctx.config.readOnly) {
    ctx.observe('PUT, PATCH, POST and DELETE on /pets/{petId} were not sent: they go only to a pet the run creates, and --read-only creates none');
    return undefined;
  }
  const sent = { name: plainName(ctx.config.runId, 'methods'), categoryId: 8, status: 'sold' };
  const exchange = await ctx.client.send({ method: 'POST', path: '/pets', json: sent });
  recordIfCreated(ctx, exchange);
  const id = createdIdOf(exchange);
  if (id !== undefined && /^-?[0-9]+$/.test(id)) return { id, sent };
  ctx.observe(`PUT, PATCH, POST and DELETE on /pets/{petId} were not sent: the pet for them was not created with an integer id (${describeExchange(exchange)})`);
  return undefined;
}

/** A pet id that HEAD and OPTIONS may address: the run's own pet, one the target lists, or one it cannot hold. */
async function readablePetId(ctx: CheckContext, own: MethodsPet | undefined): Promise<string> {
  if (own) return own.id;
  const listed = await petsKnownToExist(ctx, { create: false }).catch(() => []);
  return String(listed[0]?.id ?? unknownPetId(ctx.client.exchanges));
}

/**
 * Requests that leave the pet as it was, were a server to implement them: PUT the pet as written, PATCH its
 * status to the one it has, POST the NewPet it was created from.
 */
function unchangingWrites(pet: MethodsPet): SendOptions[] {
  const path = `/pets/${pet.id}`;
  return [
    { method: 'PUT', path, json: { id: BigInt(pet.id), ...pet.sent } },
    { method: 'PATCH', path, json: { status: pet.sent.status ?? null } },
    { method: 'POST', path, json: pet.sent },
  ];
}

/** One answer as REQ-01 reports it: "DELETE /pets/{petId} → 405 (Allow: GET, HEAD, OPTIONS)". */
function methodAnswer(ctx: CheckContext, exchange: Exchange): string {
  const { status, headers } = responseOf(exchange);
  const allow = headers.allow === undefined ? '' : ` (Allow: ${headers.allow})`;
  return `${exchange.request.method} ${pathTemplate(exchange, ctx.config.baseUrl)} → ${status}${allow}`;
}

/**
 * REQ-01: HEAD and OPTIONS on every path, then the data-changing methods on the area's own pet, DELETE last;
 * a DELETE the server says it carried out is followed by one GET, to report whether the pet is gone.
 */
async function probeMethods(ctx: CheckContext): Promise<void> {
  const pet = await methodsPet(ctx);
  const petPath = `/pets/${await readablePetId(ctx, pet)}`;
  const safe = ['/pets', '/store/orders', petPath].flatMap((path) => SAFE_METHODS.map((method): SendOptions => ({ method, path })));
  const answers = await Promise.all([...safe, ...(pet ? unchangingWrites(pet) : [])].map((request) => ctx.client.send(request)));
  for (const exchange of answers) ctx.observe(methodAnswer(ctx, exchange));
  if (!pet) return;
  const deleted = await ctx.client.send({ method: 'DELETE', path: `/pets/${pet.id}` });
  ctx.observe(methodAnswer(ctx, deleted));
  if (!answeredSuccess(deleted)) return;
  const after = await ctx.client.send({ path: `/pets/${pet.id}` });
  ctx.observe(`after that DELETE, GET /pets/{petId} of the pet answers ${responseOf(after).status}: ${responseOf(after).status === 404 ? 'DELETE is implemented (an extension the spec does not name)' : 'the pet is still there'}`);
}

/** REQ-02: the unknown path with the key and without one. */
async function probeUnknownPath(ctx: CheckContext): Promise<void> {
  const answers = await Promise.all((['key', 'none'] as const).map((auth) => ctx.client.send({ path: UNKNOWN_PATH, auth })));
  for (const exchange of answers) {
    const { status, headers, rawBody } = responseOf(exchange);
    ctx.observe(`GET ${UNKNOWN_PATH} ${exchange.request.auth === 'key' ? 'with the key' : 'without a key'} → ${status}, ${headers['content-type'] ?? 'no content type'}, ${preview(rawBody, 80)}`);
  }
}

/** REQ-05: a valid NewPet padded with spaces to 4 MiB, so that a server that takes it stores a pet of a few bytes. */
async function probeBigBody(ctx: CheckContext): Promise<void> {
  const sent = { name: plainName(ctx.config.runId, 'big body'), categoryId: 9, status: 'sold' };
  const padBytes = BIG_BODY_BYTES - Buffer.byteLength(stringifyJson(sent));
  let exchange: Exchange;
  try {
    exchange = await ctx.client.send({ method: 'POST', path: '/pets', json: sent, padBytes });
  } catch (error) {
    // RFC 9110 §15.5.14: a server may close the connection rather than read a body too large for it. A client
    // still sending then meets the closed connection, usually before it can read any answer.
    if (!(error instanceof TransportError && closedWhileSending(error.exchange))) throw error;
    return ctx.observe(`the server closed the connection before it had the whole body (${error.exchange!.error}), as RFC 9110 §15.5.14 lets it do with a body it will not take: no answer to judge`);
  }
  recordIfCreated(ctx, exchange);
  // The spec shows no maximum body size: taking the NewPet, refusing it as invalid or as too large all conform.
  // An error must still be an Error (ERR-01..03 judge every error of the run).
  const response = expectStatus(ctx, exchange, [201, 400, 413], 'a valid NewPet padded with JSON whitespace to 4 MiB');
  if (response?.status !== 201) return;
  const differences = petFieldDifferences(sent, response.json, ['name', 'categoryId', 'status']);
  expectThat(ctx, differences.length === 0, { expected: 'the 201 body to echo the NewPet the padded body holds', seen: differences.join('; '), exchanges: [exchange] });
}

/** Whether a request failed on a connection the server closed or reset, rather than by a timeout or a bad answer. */
function closedWhileSending(exchange: Exchange | undefined): boolean {
  return exchange?.response === undefined && /reset by the server|closed the connection/.test(exchange?.error ?? '');
}

/** Whatever a server answers a 405 with, it says which methods the path has (RFC 9110 §15.5.6). */
function withoutAllow(exchange: Exchange): boolean {
  return exchange.response?.status === 405 && !exchange.response.headers.allow?.trim();
}

/** The spellings of GET /pets whose answers REQ-08 sets beside the canonical path's (AUTH-12 sends them without the key). */
const LIST_SPELLINGS = ['/pets/', '//pets', '/./pets', '/%70ets', '/PETS', '/pets;v=1', '/pets.json'];

/** REQ-08: each spelling with the key, beside GET /pets: which a router serves as the path, redirects, or does not know. */
async function probeSpellings(ctx: CheckContext): Promise<void> {
  const answers = await Promise.all([
    ctx.client.send({ path: '/pets', query: { limit: '1' } }),
    ...LIST_SPELLINGS.map((path) => ctx.client.send({ path, query: { limit: '1' }, pathAsIs: true })),
  ]);
  const [canonical, ...spelled] = answers;
  const shown = (exchange: Exchange) => {
    const { status, headers } = responseOf(exchange);
    return `${status}${headers.location ? ` to ${headers.location}` : ''}`;
  };
  ctx.observe(`GET /pets → ${shown(canonical!)}; ${spelled.map((exchange, index) => `${LIST_SPELLINGS[index]} → ${shown(exchange)}${responseOf(exchange).status === responseOf(canonical!).status ? ' (as the path)' : ''}`).join('; ')}`);
}

/**
 * The first request of each pair REQ-09 sends on a connection of its own, one for each kind of answer the run provokes
 * elsewhere (401, 400, 404, 405, 415, 413): a server that answers before it has read the body leaves the rest of it on
 * the connection, where the next request's bytes follow, unless it reads it or closes the connection.
 */
function connectionOpeners(ctx: CheckContext): Array<{ about: string; request: SendOptions }> {
  const unknown = String(unknownPetId(ctx.client.exchanges));
  const newPet = (label: string) => ({ name: plainName(ctx.config.runId, label), categoryId: 17, status: 'sold' });
  return [
    { about: 'a POST refused for its missing key (401), its body unread', request: { method: 'POST', path: '/pets', json: newPet('reuse 401'), auth: 'none' } },
    { about: 'a POST refused for its malformed body (400)', request: { method: 'POST', path: '/pets', body: '{"name":' } },
    { about: 'a GET of a pet that does not exist (404)', request: { path: `/pets/${unknown}` } },
    { about: 'a PATCH of a pet that does not exist (404 or 405)', request: { method: 'PATCH', path: `/pets/${unknown}`, json: { status: 'sold' } } },
    { about: 'a POST of an XML body (415 or 400)', request: { method: 'POST', path: '/pets', body: '<pet><name>x</name></pet>', headers: { 'content-type': 'application/xml' } } },
    { about: 'a POST of 1.5 MiB without a key (401 or 413), most of it unread', request: { method: 'POST', path: '/pets', json: newPet('reuse big'), padBytes: REUSE_PAD_BYTES, auth: 'none' } },
  ];
}

/** Above the 1 MiB limit of nginx and fastify and the 100 KB of Express, yet a small upload. */
const REUSE_PAD_BYTES = 1536 * 1024;

/**
 * REQ-09 for one pair: the opener, then GET /pets?limit=1 with the key on the same connection, which must be answered
 * as on any other: 200 and a JSON array. A server that closes the connection after the opener (saying so or not) gets
 * the listing on a new one, and then there is nothing to judge of its reuse.
 */
async function expectConnectionReusable(ctx: CheckContext, opener: { about: string; request: SendOptions }): Promise<void> {
  const connection = ctx.client.keptConnection();
  try {
    let first: Exchange;
    try {
      first = await ctx.client.send({ ...opener.request, connection });
    } catch (error) {
      if (!(error instanceof TransportError && closedWhileSending(error.exchange))) throw error;
      return ctx.observe(`${opener.about}: the server closed the connection while the request was sent, so the connection was not reused`);
    }
    recordIfCreated(ctx, first);
    const next = await ctx.client.send({ path: '/pets', query: { limit: '1' }, connection });
    const closed = /\bclose\b/i.test(first.response?.headers.connection ?? '');
    const retried = ctx.client.exchanges.some((exchange) => exchange.retried && exchange.seq < next.seq && exchange.seq > first.seq && exchange.request.url === next.request.url);
    if (closed || retried) return ctx.observe(`${opener.about}: the server closed the connection after it (${closed ? 'Connection: close' : 'without saying so'}), so the next request went on a new one`);
    const { status, json } = responseOf(next);
    expectThat(ctx, status === 200 && Array.isArray(json), {
      what: `GET /pets?limit=1 with the key, on the connection that carried ${opener.about}`,
      expected: '200 and a JSON array, as on a new connection', seen: String(status), body: preview(responseOf(next).rawBody), exchanges: [first, next],
    });
  } finally {
    await connection.close();
  }
}

// The probes send their own requests and read nothing another sends: they run together, REQ-08 and REQ-09 among
// them. REQ-06 reads the answer REQ-05 got, and REQ-07 every 405 of the run so far, so both wait for the others.
const TOGETHER: CheckOptions = { concurrent: true };
const WHOLE_RUN: CheckOptions = { wholeRun: true };

export default suite('requests', [
  check('REQ-01', (ctx) => probeMethods(ctx), TOGETHER),

  check('REQ-02', (ctx) => probeUnknownPath(ctx), TOGETHER),

  check('REQ-03', async (ctx) => {
    await together(ctx, ACCEPTING_JSON, async ({ about, accept }, part) => {
      // The default page: a limit would make the answer hang on how the server reads it (LIST-03..07 judge that).
      const exchange = await part.client.send({ path: '/pets', headers: { accept } });
      // The media type of the body is ERR-05's to judge, on this answer as on every other.
      expectStatus(part, exchange, [200], `GET /pets with ${about}`);
    });
  }, TOGETHER),

  check('REQ-04', async (ctx) => {
    const exchange = await ctx.client.send({ path: '/pets', headers: { accept: 'text/html' } });
    const { status, headers } = responseOf(exchange);
    ctx.observe(`GET /pets with Accept: text/html → ${status}, ${headers['content-type'] ?? 'no content type'}${status === 406 ? ' (refused as not acceptable)' : ''}`);
  }, TOGETHER),

  check('REQ-05', (ctx) => probeBigBody(ctx), TOGETHER),

  check('REQ-08', (ctx) => probeSpellings(ctx), TOGETHER),

  check('REQ-09', async (ctx) => {
    await together(ctx, connectionOpeners(ctx), (opener, part) => expectConnectionReusable(part, opener));
  }, TOGETHER),

  check('REQ-06', async (ctx) => {
    const exchange = ctx.client.exchanges.find((candidate) => candidate.rule === 'REQ-05' && (candidate.response || closedWhileSending(candidate)));
    if (!exchange) return ctx.skip('REQ-05 sent no body of 4 MiB that was answered (it did not run, or the target did not answer it)');
    if (!exchange.response) return ctx.observe(`a valid NewPet padded to 4 MiB: the server closed the connection while it was being sent (${exchange.error})`);
    const { status, headers } = responseOf(exchange);
    ctx.observe(`a valid NewPet padded to 4 MiB → ${status}, ${headers['content-type'] ?? 'no content type'}${status === 201 ? ' (taken: the server has no limit below 4 MiB)' : ''}`);
  }),

  // Every 405 of the run, whichever area was answered it: judged once they all have been.
  check('REQ-07', async (ctx) => {
    const refused = ctx.client.exchanges.filter((exchange) => exchange.response?.status === 405);
    if (refused.length === 0) ctx.skip('no request of the run was answered 405, so there is no Allow header to judge (REQ-01 reports how the methods the spec does not name were answered)');
    for (const [group, members] of groupExchanges(refused.filter(withoutAllow), ctx.config.baseUrl, false)) {
      ctx.violation({ what: group, expected: 'an Allow header listing the methods the path supports with every 405', seen: `none on ${members.length} of them`, exchanges: members.slice(0, 1) });
    }
    ctx.observe(`judged ${refused.length} 405 answer(s)`);
  }, WHOLE_RUN),
]);
