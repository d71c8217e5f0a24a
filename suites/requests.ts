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

// The probes send their own requests and read nothing another sends: they run together. REQ-06 reads the
// answer REQ-05 got, and REQ-07 every 405 of the run so far, so both wait for the others.
const TOGETHER: CheckOptions = { concurrent: true };

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

  check('REQ-06', async (ctx) => {
    const exchange = ctx.client.exchanges.find((candidate) => candidate.rule === 'REQ-05' && (candidate.response || closedWhileSending(candidate)));
    if (!exchange) return ctx.skip('REQ-05 sent no body of 4 MiB that was answered (it did not run, or the target did not answer it)');
    if (!exchange.response) return ctx.observe(`a valid NewPet padded to 4 MiB: the server closed the connection while it was being sent (${exchange.error})`);
    const { status, headers } = responseOf(exchange);
    ctx.observe(`a valid NewPet padded to 4 MiB → ${status}, ${headers['content-type'] ?? 'no content type'}${status === 201 ? ' (taken: the server has no limit below 4 MiB)' : ''}`);
  }),

  check('REQ-07', async (ctx) => {
    const refused = ctx.client.exchanges.filter((exchange) => exchange.response?.status === 405);
    if (refused.length === 0) ctx.skip('no request of the run was answered 405, so there is no Allow header to judge (REQ-01 reports how the methods the spec does not name were answered)');
    for (const [group, members] of groupExchanges(refused.filter(withoutAllow), ctx.config.baseUrl, false)) {
      ctx.violation({ what: group, expected: 'an Allow header listing the methods the path supports with every 405', seen: `none on ${members.length} of them`, exchanges: members.slice(0, 1) });
    }
    ctx.observe(`judged ${refused.length} 405 answer(s)`);
  }),
]);
