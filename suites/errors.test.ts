// Errors and response format, judged on every exchange the run has made so far: this suite runs after
// every other but the rate limits, so it sees what listing, creating, fetching, auth and fuzzing provoked.
import { describe } from 'vitest';
import { check, type CheckContext } from '../helpers/check.js';
import { answeredSuccess, describeExchange, type Exchange } from '../helpers/exchange.js';
import { expectThat, isJsonContentType, preview } from '../helpers/expect.js';
import { asBigInt, isJsonObject } from '../helpers/json.js';
import { groupExchanges, operationOf, PET_OPERATIONS } from '../helpers/operations.js';
import { unknownPetId } from '../helpers/pets.js';
import { validateSchema } from '../helpers/schema.js';

/** Error responses of the run. 429s are left out: their body is "not shown", the rate-limit suite judges them. */
function errorResponses(ctx: CheckContext): Exchange[] {
  return ctx.client.exchanges.filter((exchange) => (exchange.response?.status ?? 0) >= 400 && exchange.response?.status !== 429);
}

/** Success responses of the pet operations (the store's body is not shown, so it is not judged). */
function petSuccesses(ctx: CheckContext): Exchange[] {
  return ctx.client.exchanges.filter((exchange) => {
    const operation = operationOf(exchange, ctx.config.baseUrl);
    return answeredSuccess(exchange) && operation !== undefined && PET_OPERATIONS.includes(operation);
  });
}

let sampling: Promise<void> | undefined;

/**
 * Makes sure there is something to judge when the errors area runs alone (--only errors): one request
 * for each kind of answer the run has not provoked yet. A full run has them all and sends nothing here.
 */
function ensureSamples(ctx: CheckContext): Promise<void> {
  sampling ??= (async () => {
    const seen = (operation: string, status: (s: number) => boolean) => ctx.client.exchanges.some((exchange) =>
      operationOf(exchange, ctx.config.baseUrl) === operation && status(exchange.response?.status ?? 0));
    if (!seen('listPets', (s) => s === 200)) await ctx.client.send({ path: '/pets', query: { limit: '1' } });
    if (!seen('listPets', (s) => s === 401)) await ctx.client.send({ path: '/pets', query: { limit: '1' }, auth: 'none' });
    if (!seen('createPet', (s) => s === 400)) await ctx.client.send({ method: 'POST', path: '/pets', json: {} });
    if (!seen('getPet', (s) => s === 404)) await ctx.client.send({ path: `/pets/${unknownPetId(ctx.client.exchanges)}` });
  })();
  return sampling;
}

/**
 * Reports, per operation and status, the responses for which `problem` says what is wrong: one
 * violation per group ("createPet 400: 25 of 25 …"), with the first offender as evidence.
 */
async function judgeEach(ctx: CheckContext, exchanges: readonly Exchange[], expected: string, problem: (exchange: Exchange) => string | undefined): Promise<void> {
  for (const [group, members] of groupExchanges(exchanges, ctx.config.baseUrl, true)) {
    const broken = members.filter((exchange) => problem(exchange) !== undefined);
    const first = broken[0];
    if (!first) continue;
    await ctx.softly(() => expectThat(false, `${group}: ${broken.length} of ${members.length} response(s) break the rule; expected ${expected}, saw ${problem(first)} (${describeExchange(first)})`, {
      expected, seen: problem(first), exchanges: [first],
    }));
  }
  ctx.observe(`judged ${exchanges.length} response(s) of this run`);
}

function contentTypeProblem(exchange: Exchange): string | undefined {
  const type = exchange.response?.headers['content-type'];
  return isJsonContentType(type) ? undefined : `content type ${type ?? '(none)'}`;
}

describe('errors', () => {
  check('ERR-01', async (ctx) => {
    await ensureSamples(ctx);
    await judgeEach(ctx, errorResponses(ctx), 'content type application/json (a charset parameter is fine)', contentTypeProblem);
  });

  check('ERR-02', async (ctx) => {
    await ensureSamples(ctx);
    await judgeEach(ctx, errorResponses(ctx), 'an Error body with code, message and status', (exchange) => {
      const { json, rawBody } = exchange.response!;
      if (json === undefined) return `a body that is not JSON: ${preview(rawBody, 80)}`;
      const problems = validateSchema('Error', json);
      return problems.length === 0 ? undefined : `${problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ')} in ${preview(rawBody, 120)}`;
    });
  });

  check('ERR-03', async (ctx) => {
    await ensureSamples(ctx);
    // Only a status field that is an integer is compared: a missing or mistyped one is ERR-02's finding.
    await judgeEach(ctx, errorResponses(ctx), 'the Error status field equal to the HTTP status', (exchange) => {
      const { json, status } = exchange.response!;
      const field = isJsonObject(json) ? asBigInt(json.status) : undefined;
      return field === undefined || field === BigInt(status) ? undefined : `"status": ${field} in a ${status} response`;
    });
  });

  check('ERR-04', async (ctx) => {
    await ensureSamples(ctx);
    const answered = ctx.client.exchanges.filter((exchange) => exchange.response);
    await judgeEach(ctx, answered, 'a status below 500', (exchange) => {
      const { status, rawBody } = exchange.response!;
      return status >= 500 ? `status ${status} to ${exchange.request.body === undefined ? 'no body' : `body ${preview(exchange.request.body, 80)}`}; answered ${preview(rawBody, 80)}` : undefined;
    });
  });

  check('ERR-05', async (ctx) => {
    await ensureSamples(ctx);
    await judgeEach(ctx, petSuccesses(ctx), 'content type application/json (a charset parameter is fine)', contentTypeProblem);
  });

  check('ERR-06', async (ctx) => {
    await ensureSamples(ctx);
    const codes = new Map<number, Set<string>>();
    for (const exchange of errorResponses(ctx)) {
      const { json, status } = exchange.response!;
      const code = isJsonObject(json) ? json.code : undefined;
      if (typeof code === 'string') codes.set(status, (codes.get(status) ?? new Set()).add(code));
    }
    ctx.observe(codes.size === 0
      ? 'no Error code seen'
      : `Error codes by status: ${[...codes].sort(([a], [b]) => a - b).map(([status, set]) => `${status}: ${[...set].join(', ')}`).join('; ')}`);
  });
});
