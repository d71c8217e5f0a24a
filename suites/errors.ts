// Errors and response format, judged on every exchange the run has made so far, whichever check sent it and
// whatever its path, method or status (unknown paths and methods under the base URL included): this suite
// runs after every other but the rate limits, so it sees what the others provoked, the store model's last reads included.
import { check, suite, type CheckContext } from '../helpers/judge/check.js';
import type { Exchange } from '../helpers/http/exchange.js';
import { isJsonObject } from '../helpers/json.js';
import { groupExchanges, operationOf } from '../helpers/judge/operations.js';
import { unknownPetId } from '../helpers/fixtures/pets.js';
import { ERR_01, ERR_02, ERR_03, ERR_04, ERR_05, isErrorResponse, type Invariant } from '../helpers/judge/invariants.js';
import { runKey } from '../helpers/run-context.js';

/** Error responses of the run, to any request under the base URL (see isErrorResponse: 429s are the rate-limit suite's). */
function errorResponses(ctx: CheckContext): Exchange[] {
  return ctx.client.exchanges.filter(isErrorResponse);
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
    // --read-only sends no POST: the errors judged are those the reads provoked.
    if (!ctx.config.readOnly && !seen('createPet', (s) => s === 400)) await ctx.client.send({ method: 'POST', path: '/pets', json: {} });
    if (!seen('getPet', (s) => s === 404)) await ctx.client.send({ path: `/pets/${unknownPetId(ctx.client.exchanges)}` });
  });
}

/**
 * Reports, per operation and status, the responses of `exchanges` that break the invariant: one violation
 * per group ("createPet 400: 25 of 25 …"), with the first offender as evidence. The invariant is the one
 * definition the stateful exploration judges each answer by too. With nothing it applies to, the check is
 * skipped for `nothing`: a rule never passes on no evidence.
 */
async function judgeEach(ctx: CheckContext, rule: Invariant, exchanges: readonly Exchange[], nothing: string): Promise<void> {
  const judged = exchanges.filter((exchange) => rule.appliesTo(exchange));
  if (judged.length === 0) ctx.skip(nothing);
  for (const [group, members] of groupExchanges(judged, ctx.config.baseUrl, true)) {
    const broken = members.filter((exchange) => rule.problem(exchange) !== undefined);
    const first = broken[0];
    if (!first) continue;
    ctx.violation({ what: `${group}: ${broken.length} of ${members.length} response(s) break the rule`, expected: rule.expected, seen: rule.problem(first)!, exchanges: [first] });
  }
  ctx.observe(`judged ${judged.length} response(s) of this run`);
}

// What the skips say: which answers were missing, and what would provoke them.
const NO_ERROR_RESPONSE = 'the run received no error response other than 429, so there is nothing to judge (even a request without a key, an empty createPet body and an unknown petId were answered without one)';

export default suite('errors', [
  check('ERR-01', async (ctx) => {
    await ensureSamples(ctx);
    await judgeEach(ctx, ERR_01, ctx.client.exchanges, NO_ERROR_RESPONSE);
  }),

  check('ERR-02', async (ctx) => {
    await ensureSamples(ctx);
    await judgeEach(ctx, ERR_02, ctx.client.exchanges, NO_ERROR_RESPONSE);
  }),

  check('ERR-03', async (ctx) => {
    await ensureSamples(ctx);
    // Only a status field that is an integer is compared: a missing or mistyped one is ERR-02's finding.
    const nothing = errorResponses(ctx).length === 0 ? NO_ERROR_RESPONSE
      : 'no error response carried an Error body with an integer status field, so there is no status to compare (ERR-02 reports the bodies)';
    await judgeEach(ctx, ERR_03, ctx.client.exchanges, nothing);
  }),

  check('ERR-04', async (ctx) => {
    await ensureSamples(ctx);
    await judgeEach(ctx, ERR_04, ctx.client.exchanges, 'the run received no response at all, so there is no status to judge');
  }),

  check('ERR-05', async (ctx) => {
    await ensureSamples(ctx);
    const nothing = 'no request of this run was answered with success (2xx) and a body, so there is no success body to judge; a run whose key is accepted provokes them';
    await judgeEach(ctx, ERR_05, ctx.client.exchanges, nothing);
  }),

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
  }),
], { wholeRun: true });
