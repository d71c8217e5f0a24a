// Authentication: HTTP bearer on every operation; a missing or invalid key gets 401 with an Error body.
import { describe } from 'vitest';
import { check, type CheckContext } from '../helpers/check.js';
import type { SendOptions } from '../helpers/client.js';
import { describeExchange, type AuthMode } from '../helpers/exchange.js';
import { expectError, expectStatus, expectThat, responseOf } from '../helpers/expect.js';
import { groupExchanges, type OperationId } from '../helpers/operations.js';
import { petName, petsKnownToExist, recordIfCreated, unknownPetId } from '../helpers/pets.js';

/** How each broken credential reads in a message. */
const BROKEN_AUTH: Record<Exclude<AuthMode, 'key' | 'lowercase-bearer'>, string> = {
  none: 'no Authorization header',
  'empty-bearer': '"Bearer" with an empty token',
  'unknown-key': 'a key no server issued',
  basic: 'the key under the Basic scheme',
  bare: 'the bare key without a scheme',
};
type BrokenAuth = keyof typeof BROKEN_AUTH;

/**
 * Each operation as a request that succeeds with the key, so that only the credential decides the
 * answer: an existing pet for getPet, a valid NewPet (named, in case a server wrongly accepts it) for createPet.
 */
async function requests(ctx: CheckContext, label: string): Promise<Record<OperationId, SendOptions>> {
  const pets = await petsKnownToExist(ctx, { create: false });
  return {
    listPets: { path: '/pets', query: { limit: '1' } },
    createPet: { method: 'POST', path: '/pets', json: { name: petName(ctx.config.runId, `auth-${label}`), categoryId: 1 } },
    getPet: { path: `/pets/${pets[0]?.id ?? 1}` },
    getStoreOrders: { path: '/store/orders' },
  };
}

/** Sends every operation with one broken credential; each must get 401 with an Error body. */
async function expectRefusedEverywhere(ctx: CheckContext, auth: BrokenAuth): Promise<void> {
  for (const [operation, request] of Object.entries(await requests(ctx, auth))) {
    await ctx.softly(async () => {
      const exchange = await ctx.client.send({ ...request, auth });
      recordIfCreated(ctx, exchange);
      expectError(exchange, 401, `${operation} with ${BROKEN_AUTH[auth]}`);
    });
  }
}

describe('auth', () => {
  check('AUTH-01', (ctx) => expectRefusedEverywhere(ctx, 'none'));
  check('AUTH-02', (ctx) => expectRefusedEverywhere(ctx, 'empty-bearer'));
  check('AUTH-03', (ctx) => expectRefusedEverywhere(ctx, 'unknown-key'));
  check('AUTH-04', (ctx) => expectRefusedEverywhere(ctx, 'basic'));
  check('AUTH-05', (ctx) => expectRefusedEverywhere(ctx, 'bare'));

  check('AUTH-06', async (ctx) => {
    const { listPets, getPet, getStoreOrders } = await requests(ctx, 'key');
    for (const [operation, request] of Object.entries({ listPets, getPet, getStoreOrders })) {
      await ctx.softly(async () => {
        const exchange = await ctx.client.send(request);
        const status = responseOf(exchange).status;
        // 403 is not counted against the rule: key scopes are "not shown", so a key may lawfully lack one.
        if (status === 403) ctx.observe(`${operation} answered 403 to the key: it may lack a scope (${describeExchange(exchange)})`);
        expectThat(status !== 401, `${operation}: expected the key sent as "Authorization: Bearer <key>" to be accepted, saw ${describeExchange(exchange)}`, {
          expected: 'any status but 401', seen: `status ${status}; body ${responseOf(exchange).rawBody}`, exchanges: [exchange],
        });
      });
    }
  });

  check('AUTH-07', async (ctx) => {
    // An invalid body and an unknown pet: a server that validates or looks up first answers 400 or 404.
    const unknownPet = unknownPetId(ctx.client.exchanges);
    for (const auth of ['none', 'unknown-key'] as const) {
      await ctx.softly(async () => {
        const exchange = await ctx.client.send({ method: 'POST', path: '/pets', json: {}, auth });
        expectStatus(exchange, [401], `createPet with an invalid body and ${BROKEN_AUTH[auth]}`);
      });
      await ctx.softly(async () => {
        const exchange = await ctx.client.send({ path: `/pets/${unknownPet}`, auth });
        expectStatus(exchange, [401], `getPet of a pet that does not exist with ${BROKEN_AUTH[auth]}`);
      });
    }
  });

  check('AUTH-08', async (ctx) => {
    let unauthorized = ctx.client.exchanges.filter((exchange) => exchange.response?.status === 401);
    if (unauthorized.length === 0) unauthorized = [await ctx.client.send({ path: '/pets', query: { limit: '1' }, auth: 'none' })];
    const unchallenged = unauthorized.filter((exchange) => exchange.response?.status === 401 && !exchange.response.headers['www-authenticate']?.trim());
    for (const [operation, exchanges] of groupExchanges(unchallenged, ctx.config.baseUrl, false)) {
      await ctx.softly(() => expectThat(false, `${operation}: expected a WWW-Authenticate challenge with every 401, saw none on ${exchanges.length} of them (${describeExchange(exchanges[0]!)})`, {
        expected: 'WWW-Authenticate: Bearer …', seen: 'no WWW-Authenticate header', exchanges: exchanges.slice(0, 1),
      }));
    }
  });

  check('AUTH-09', async (ctx) => {
    const exchange = await ctx.client.send({ path: '/pets', query: { limit: '1' }, auth: 'lowercase-bearer' });
    expectStatus(exchange, [200], 'the key sent as "bearer <key>"');
  });
});
