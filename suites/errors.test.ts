// Errors and response format, judged on every exchange the run has made so far, whichever check sent it and
// whatever its path, method or status (unknown paths and methods under the base URL included): this suite
// runs after every other but the rate limits, so it sees what the others provoked, the store model's last reads included.
import { describe } from 'vitest';
import { check, type CheckContext } from '../helpers/judge/check.js';
import { answeredSuccess, type Exchange } from '../helpers/http/exchange.js';
import { isJsonContentType, preview } from '../helpers/judge/expect.js';
import { asBigInt, isJsonObject } from '../helpers/json.js';
import { groupExchanges, operationOf } from '../helpers/judge/operations.js';
import { unknownPetId } from '../helpers/fixtures/pets.js';
import { validateSchema } from '../helpers/judge/schema.js';
import { runKey } from '../helpers/run-context.js';

/**
 * Error responses of the run, to any request under the base URL: the spec says "every error response", so a
 * framework's 404 for an unknown path, a 405, a 413 or a front proxy's refusal count as much as a documented
 * error. 429s are left out: their body is "not shown", the rate-limit suite judges them. So are answers to
 * HEAD, which carry no body by definition and may leave out the headers a body would have set (RFC 9110 §9.3.2).
 */
function errorResponses(ctx: CheckContext): Exchange[] {
  return ctx.client.exchanges.filter((exchange) => (exchange.response?.status ?? 0) >= 400 && exchange.response?.status !== 429 && exchange.request.method !== 'HEAD');
}

/** The methods the spec names: GET and POST. Any other is one a server may not implement at all. */
const NAMED_METHODS = ['GET', 'POST'];

/**
 * Whether a 5xx is RFC 9110's answer to a method the server does not implement: 501 "is the appropriate response
 * when the server does not recognize the request method" (§15.6.2), and a server that implements no DELETE
 * anywhere SHOULD send it (§9.1). For the methods the spec names it is a server error like any other.
 */
function notImplementedMethod(exchange: Exchange): boolean {
  return exchange.response?.status === 501 && !NAMED_METHODS.includes(exchange.request.method);
}

/**
 * Success responses that carry a body, to any request of the run: "Request and response bodies are
 * application/json" holds for every body, GET /store/orders included (its shape is not shown, its media type
 * is). A 204 or an empty body has no content type to judge: the status rules judge those answers.
 */
function successBodies(ctx: CheckContext): Exchange[] {
  // An exchange without a response (a transport failure) is no success: answeredSuccess says so first.
  return ctx.client.exchanges.filter((exchange) => answeredSuccess(exchange) && exchange.response!.status !== 204 && exchange.response!.rawBody.length > 0);
}

const SAMPLES = runKey<Promise<void>>('errors: samples');

/**
 * Makes sure there is something to judge when the errors area runs alone (--only errors): one request
 * for each kind of answer the run has not provoked yet, once per run. A full run has them all and sends nothing here.
 */
function ensureSamples(ctx: CheckContext): Promise<void> {
  return ctx.run.shared(SAMPLES, async () => {
    const seen = (operation: string, status: (s: number) => boolean) => ctx.client.exchanges.some((exchange) =>
      operationOf(exchange, ctx.config.baseUrl) === operation && status(exchange.response?.status ?? 0));
    if (!seen('listPets', (s) => s === 200)) await ctx.client.send({ path: '/pets', query: { limit: '1' } });
    if (!seen('listPets', (s) => s === 401)) await ctx.client.send({ path: '/pets', query: { limit: '1' }, auth: 'none' });
    if (!seen('createPet', (s) => s === 400)) await ctx.client.send({ method: 'POST', path: '/pets', json: {} });
    if (!seen('getPet', (s) => s === 404)) await ctx.client.send({ path: `/pets/${unknownPetId(ctx.client.exchanges)}` });
  });
}

/**
 * Reports, per operation and status, the responses for which `problem` says what is wrong: one
 * violation per group ("createPet 400: 25 of 25 …"), with the first offender as evidence. With nothing
 * to judge the check is skipped for `nothing`: a rule never passes on no evidence.
 */
async function judgeEach(ctx: CheckContext, exchanges: readonly Exchange[], nothing: string, expected: string, problem: (exchange: Exchange) => string | undefined): Promise<void> {
  if (exchanges.length === 0) ctx.skip(nothing);
  for (const [group, members] of groupExchanges(exchanges, ctx.config.baseUrl, true)) {
    const broken = members.filter((exchange) => problem(exchange) !== undefined);
    const first = broken[0];
    if (!first) continue;
    ctx.violation({ what: `${group}: ${broken.length} of ${members.length} response(s) break the rule`, expected, seen: problem(first)!, exchanges: [first] });
  }
  ctx.observe(`judged ${exchanges.length} response(s) of this run`);
}

// What the skips say: which answers were missing, and what would provoke them.
const NO_ERROR_RESPONSE = 'the run received no error response other than 429, so there is nothing to judge (even a request without a key, an empty createPet body and an unknown petId were answered without one)';

/** Error responses whose Error body carries an integer status: the only ones ERR-03 can compare. */
function withIntegerStatusField(exchanges: readonly Exchange[]): Exchange[] {
  return exchanges.filter((exchange) => {
    const { json } = exchange.response!;
    return isJsonObject(json) && asBigInt(json.status) !== undefined;
  });
}

function contentTypeProblem(exchange: Exchange): string | undefined {
  const type = exchange.response?.headers['content-type'];
  return isJsonContentType(type) ? undefined : `content type ${type ?? '(none)'}`;
}

describe('errors', () => {
  check('ERR-01', async (ctx) => {
    await ensureSamples(ctx);
    await judgeEach(ctx, errorResponses(ctx), NO_ERROR_RESPONSE, 'content type application/json (a charset parameter is fine)', contentTypeProblem);
  });

  check('ERR-02', async (ctx) => {
    await ensureSamples(ctx);
    await judgeEach(ctx, errorResponses(ctx), NO_ERROR_RESPONSE, 'an Error body with code, message and status', (exchange) => {
      const { json, rawBody } = exchange.response!;
      if (json === undefined) return `a body that is not JSON: ${preview(rawBody, 80)}`;
      const problems = validateSchema('Error', json);
      return problems.length === 0 ? undefined : `${problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ')} in ${preview(rawBody, 120)}`;
    });
  });

  check('ERR-03', async (ctx) => {
    await ensureSamples(ctx);
    // Only a status field that is an integer is compared: a missing or mistyped one is ERR-02's finding.
    const nothing = errorResponses(ctx).length === 0 ? NO_ERROR_RESPONSE
      : 'no error response carried an Error body with an integer status field, so there is no status to compare (ERR-02 reports the bodies)';
    await judgeEach(ctx, withIntegerStatusField(errorResponses(ctx)), nothing, 'the Error status field equal to the HTTP status', (exchange) => {
      const { json, status } = exchange.response!;
      const field = asBigInt((json as Record<string, unknown>).status)!;
      return field === BigInt(status) ? undefined : `"status": ${field} in a ${status} response`;
    });
  });

  check('ERR-04', async (ctx) => {
    await ensureSamples(ctx);
    const answered = ctx.client.exchanges.filter((exchange) => exchange.response && !notImplementedMethod(exchange));
    await judgeEach(ctx, answered, 'the run received no response at all, so there is no status to judge', 'a status below 500', (exchange) => {
      const { status, rawBody } = exchange.response!;
      return status >= 500 ? `status ${status} to ${exchange.request.body === undefined ? 'no body' : `body ${preview(exchange.request.body, 80)}`}; answered ${preview(rawBody, 80)}` : undefined;
    });
  });

  check('ERR-05', async (ctx) => {
    await ensureSamples(ctx);
    const nothing = 'no request of this run was answered with success (2xx) and a body, so there is no success body to judge; a run whose key is accepted provokes them';
    await judgeEach(ctx, successBodies(ctx), nothing, 'content type application/json (a charset parameter is fine)', contentTypeProblem);
  });

  check('ERR-06', async (ctx) => {
    await ensureSamples(ctx);
    const codes = new Map<number, Set<string>>();
    for (const exchange of errorResponses(ctx)) {
      const { json, status } = exchange.response!;
      const code = isJsonObject(json) ? json.code : undefined;
      if (typeof code === 'string') codes.set(status, (codes.get(status) ?? new Set()).add(code));
    }
    if (codes.size === 0) ctx.skip('no error response carried an Error body with a string code, so there are no codes to report (ERR-02 reports the bodies)');
    ctx.observe(`Error codes by status: ${[...codes].sort(([a], [b]) => a - b).map(([status, set]) => `${status}: ${[...set].join(', ')}`).join('; ')}`);
  });
});
