// POST /pets (createPet): what a 201 carries, int64 exactness, and the table of invalid bodies.
import { describe } from 'vitest';
import { check, type CheckContext } from '../helpers/check.js';
import { skipIfGetPetRemoved } from '../helpers/deprecation.js';
import { answeredSuccess, describeExchange, type Exchange } from '../helpers/exchange.js';
import { expectError, expectSchema, expectStatus, expectThat, preview, responseOf } from '../helpers/expect.js';
import { isJsonObject, type Json } from '../helpers/json.js';
import { operationOf } from '../helpers/operations.js';
import { petFieldDifferences, show, type PetField } from '../helpers/pet-fields.js';
import { petName, recordIfCreated, SetupError, STATUSES } from '../helpers/pets.js';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * The pets CREATE-01..07 share, each created once per run on first use. The int64 edges need a pet
 * each (one categoryId per pet); the basic pet keeps a small categoryId so that a server with a narrow
 * integer fails CREATE-03 alone, and the pet without status is apart so that its status is judged by
 * CREATE-06 alone. Statuses differ so that every PetStatus is echoed once.
 */
const NEW_PETS = {
  basic: (runId: string) => ({ name: petName(runId, 'basic'), categoryId: 1, status: 'available' }),
  above2p53: (runId: string) => ({ name: petName(runId, 'category-2p53-plus-1'), categoryId: 2n ** 53n + 1n, status: 'pending' }),
  // Non-ASCII in one name: a server that re-encodes text does not echo it exactly.
  int64Max: (runId: string) => ({ name: petName(runId, 'category-int64-max-ünï'), categoryId: INT64_MAX, status: 'sold' }),
  int64Min: (runId: string) => ({ name: petName(runId, 'category-int64-min'), categoryId: INT64_MIN, status: 'available' }),
  withoutStatus: (runId: string) => ({ name: petName(runId, 'without-status'), categoryId: 2 }),
} satisfies Record<string, (runId: string) => Record<string, Json>>;
type NewPetLabel = keyof typeof NEW_PETS;
const ECHO_PETS: readonly NewPetLabel[] = ['basic', 'above2p53', 'int64Max', 'int64Min'];

interface Creation {
  sent: Record<string, Json>;
  exchange: Exchange;
}

const creations = new Map<NewPetLabel, Promise<Creation>>();

/** The shared pet of that label: created by the first check that needs it, reused by the others. */
function creation(ctx: CheckContext, label: NewPetLabel): Promise<Creation> {
  let pending = creations.get(label);
  if (!pending) {
    pending = (async () => {
      const sent = NEW_PETS[label](ctx.config.runId);
      const exchange = await ctx.client.send({ method: 'POST', path: '/pets', json: sent });
      recordIfCreated(ctx, exchange);
      return { sent, exchange };
    })();
    creations.set(label, pending);
  }
  return pending;
}

function wasCreated({ exchange }: Creation): boolean {
  return answeredSuccess(exchange);
}

/** A refused creation leaves a rule about the created pet unjudgeable: errored, not failed. */
function requireCreated(created: Creation): void {
  if (!wasCreated(created)) throw new SetupError(`setup could not create a pet to judge: ${describeExchange(created.exchange)}`, created.exchange);
}

/** The object a creation the server accepted answered with; anything else is a violation of the rule at hand. */
function createdBody(created: Creation): Record<string, Json> {
  requireCreated(created);
  const { json, rawBody } = responseOf(created.exchange);
  expectThat(isJsonObject(json), `expected the created Pet as a JSON object, saw ${preview(rawBody, 120)} (${describeExchange(created.exchange)})`, {
    expected: 'a Pet', seen: preview(rawBody), exchanges: [created.exchange],
  });
  return json;
}

/** The id a creation answered, when it is an integer: the only handle on the pet for GET /pets/{petId}. */
function createdId(created: Creation): number | bigint | undefined {
  if (!wasCreated(created)) return undefined;
  const id = (responseOf(created.exchange).json as Record<string, Json> | undefined)?.id;
  return (typeof id === 'number' && Number.isInteger(id)) || typeof id === 'bigint' ? id : undefined;
}

/**
 * Fails when a pet this suite created came back without an integer id: the id is the only handle on a
 * created pet, so without it neither uniqueness (CREATE-04) nor fetching back (CREATE-05) can hold.
 */
async function expectIdsReturned(ctx: CheckContext): Promise<void> {
  const created = await Promise.all([...creations.values()]);
  const idless = created.filter((one) => wasCreated(one) && createdId(one) === undefined);
  expectThat(idless.length === 0, `${idless.length} created pet(s) came back without an integer id, so the server gives no handle on them (${idless.map((one) => describeExchange(one.exchange)).join(', ')})`, {
    expected: 'an integer id in every 201 body', seen: `${preview(responseOf(idless[0]?.exchange ?? created[0]!.exchange).rawBody)}`, exchanges: idless.slice(0, 1).map((one) => one.exchange),
  });
}

/** The fields of a NewPet that was sent, to compare what comes back against. */
function sentFields(sent: Record<string, Json>): PetField[] {
  return (['name', 'categoryId', 'status'] as const).filter((field) => field in sent);
}

interface InvalidBody {
  /** What is wrong with it, as the report names the case. */
  name: string;
  /** Serialized losslessly, unless `raw` gives the exact text. */
  json?: Json;
  raw?: string;
}

/**
 * The invalid bodies, by rule. Each carries an otherwise valid, recognisable name where it has one,
 * so that a defective server that accepts it leaves a pet the vendor can find.
 */
function invalidBodies(runId: string): Record<'CREATE-08' | 'CREATE-09' | 'CREATE-10' | 'CREATE-11' | 'CREATE-12' | 'CREATE-13', InvalidBody[]> {
  const name = (label: string) => petName(runId, `invalid-${label}`);
  return {
    'CREATE-08': [
      { name: 'missing name', json: { categoryId: 1, status: 'available' } },
      { name: 'missing categoryId', json: { name: name('missing-categoryId'), status: 'available' } },
      { name: 'empty object', json: {} },
    ],
    'CREATE-09': [
      { name: 'name is a number', json: { name: 42, categoryId: 1 } },
      { name: 'categoryId is a string', json: { name: name('categoryId-string'), categoryId: '7' } },
      { name: 'status is a number', json: { name: name('status-number'), categoryId: 1, status: 1 } },
      { name: 'name is null', json: { name: null, categoryId: 1 } },
      { name: 'categoryId is null', json: { name: name('categoryId-null'), categoryId: null } },
      { name: 'status is null', json: { name: name('status-null'), categoryId: 1, status: null } },
    ],
    // 7.0 and 1e2 are left out on purpose: JSON Schema counts them as integers, so a server may accept them.
    'CREATE-10': [
      { name: 'fractional categoryId 1.5', json: { name: name('categoryId-fraction'), categoryId: 1.5 } },
      { name: 'categoryId 2^63 (one above int64)', json: { name: name('categoryId-2p63'), categoryId: 2n ** 63n } },
      { name: 'categoryId -2^63-1 (one below int64)', json: { name: name('categoryId-below-int64'), categoryId: INT64_MIN - 1n } },
    ],
    'CREATE-11': [
      { name: 'status "Available" (wrong case)', json: { name: name('status-case'), categoryId: 1, status: 'Available' } },
      { name: 'status "adopted" (not a PetStatus)', json: { name: name('status-unknown'), categoryId: 1, status: 'adopted' } },
    ],
    'CREATE-12': [
      { name: 'an array holding a valid NewPet', json: [{ name: name('array-body'), categoryId: 1 }] },
      { name: 'a JSON string', json: 'pet' },
      { name: 'a JSON number', json: 42 },
      { name: 'JSON null', raw: 'null' },
    ],
    'CREATE-13': [
      { name: 'truncated JSON', raw: `{"name":"${name('truncated')}","categoryId":1` },
      { name: 'an empty body', raw: '' },
    ],
  };
}

/** Sends every invalid body of one rule; each must get 400 with an Error body, and every miss is reported. */
async function expectAllRejected(ctx: CheckContext, rule: keyof ReturnType<typeof invalidBodies>): Promise<void> {
  for (const invalid of invalidBodies(ctx.config.runId)[rule]) {
    await ctx.softly(async () => {
      const exchange = await ctx.client.send({
        method: 'POST',
        path: '/pets',
        ...(invalid.raw !== undefined ? { body: invalid.raw } : { json: invalid.json }),
      });
      recordIfCreated(ctx, exchange);
      expectError(exchange, 400, invalid.name);
    });
  }
}

describe('creating', () => {
  check('CREATE-01', async (ctx) => {
    expectStatus((await creation(ctx, 'basic')).exchange, [201]);
  });

  check('CREATE-02', async (ctx) => {
    const created = await creation(ctx, 'basic');
    requireCreated(created);
    expectSchema(created.exchange, 'Pet');
  });

  check('CREATE-03', async (ctx) => {
    for (const label of ECHO_PETS) {
      await ctx.softly(async () => {
        const created = await creation(ctx, label);
        const { sent, exchange } = created;
        expectThat(wasCreated(created), `${label}: expected the pet to be created (categoryId ${show(sent.categoryId)} is a valid int64), saw ${describeExchange(exchange)}`, {
          expected: 'status 201 with the pet', seen: `status ${responseOf(exchange).status}`, exchanges: [exchange],
        });
        const differences = petFieldDifferences(sent, responseOf(exchange).json, sentFields(sent));
        expectThat(differences.length === 0, `${label}: the 201 body does not echo what was sent: ${differences.join('; ')}`, {
          expected: `name, categoryId and status as sent: ${show(sent)}`, seen: responseOf(exchange).rawBody, exchanges: [exchange],
        });
      });
    }
  });

  check('CREATE-04', async (ctx) => {
    for (const label of Object.keys(NEW_PETS) as NewPetLabel[]) await creation(ctx, label);
    // Every pet the run created so far counts, list fixtures included: a collision anywhere breaks the rule.
    const byId = new Map<string, Exchange[]>();
    for (const exchange of ctx.client.exchanges) {
      if (operationOf(exchange, ctx.config.baseUrl) !== 'createPet' || !answeredSuccess(exchange)) continue;
      const id = (exchange.response?.json as Record<string, Json> | undefined)?.id;
      if (typeof id !== 'number' && typeof id !== 'bigint') continue;
      byId.set(String(id), [...(byId.get(String(id)) ?? []), exchange]);
    }
    const total = [...byId.values()].reduce((sum, list) => sum + list.length, 0);
    await expectIdsReturned(ctx);
    if (total < 2) throw new SetupError(`fewer than two creations answered with an integer id (${total}), so ids cannot be compared`);
    for (const [id, exchanges] of byId) {
      await ctx.softly(() => expectThat(exchanges.length === 1, `expected a different id for every created pet, saw id ${id} given to ${exchanges.length} pets`, {
        expected: 'unique ids', seen: `id ${id} ${exchanges.length} times`, exchanges: exchanges.slice(0, 2),
      }));
    }
    ctx.observe(`${total} created pets, ${byId.size} distinct ids`);
  });

  check('CREATE-05', async (ctx) => {
    skipIfGetPetRemoved(ctx);
    const labels = [...ECHO_PETS, 'withoutStatus'] as const;
    const all = await Promise.all(labels.map((label) => creation(ctx, label)));
    await expectIdsReturned(ctx);
    if (!all.some(wasCreated)) throw new SetupError('no pet could be created to fetch back', all[0]?.exchange);
    for (const [index, created] of all.entries()) {
      const label = labels[index]!;
      const id = createdId(created);
      if (id === undefined) continue;
      await ctx.softly(async () => {
        const exchange = await ctx.client.send({ path: `/pets/${id}` });
        expectStatus(exchange, [200], `${label} (id ${id})`);
        // Compared with what was sent, not with the 201 body, so that a value the server changed on the
        // way in shows here too; a status the server chose is compared with the one it answered first.
        const expected = { ...created.sent, id, status: created.sent.status ?? createdBody(created).status };
        const differences = petFieldDifferences(expected, responseOf(exchange).json, ['id', 'name', 'categoryId', 'status']);
        expectThat(differences.length === 0, `${label}: GET /pets/${id} does not serve the pet as created: ${differences.join('; ')}`, {
          expected: show(expected), seen: responseOf(exchange).rawBody, exchanges: [exchange, created.exchange],
        });
      });
    }
  });

  check('CREATE-06', async (ctx) => {
    const created = await creation(ctx, 'withoutStatus');
    expectThat(wasCreated(created), `expected a NewPet without status to be created (status is optional), saw ${describeExchange(created.exchange)}`, {
      expected: 'status 201', seen: `status ${responseOf(created.exchange).status}`, exchanges: [created.exchange],
    });
    const status = createdBody(created).status;
    expectThat(status === undefined || (STATUSES as readonly Json[]).includes(status), `expected no status or one of ${STATUSES.join(', ')} for a pet created without status, saw ${show(status)}`, {
      expected: `no status, or one of ${STATUSES.join(', ')}`, seen: `status ${show(status)}`, exchanges: [created.exchange],
    });
  });

  check('CREATE-07', async (ctx) => {
    const created = await creation(ctx, 'withoutStatus');
    if (!wasCreated(created)) return ctx.observe(`a pet without status was not created: ${describeExchange(created.exchange)}`);
    const status = createdBody(created).status;
    ctx.observe(status === undefined ? 'a pet created without status comes back without status' : `a pet created without status comes back with status ${show(status)}`);
  });

  check('CREATE-08', (ctx) => expectAllRejected(ctx, 'CREATE-08'));
  check('CREATE-09', (ctx) => expectAllRejected(ctx, 'CREATE-09'));
  check('CREATE-10', (ctx) => expectAllRejected(ctx, 'CREATE-10'));
  check('CREATE-11', (ctx) => expectAllRejected(ctx, 'CREATE-11'));
  check('CREATE-12', (ctx) => expectAllRejected(ctx, 'CREATE-12'));
  check('CREATE-13', (ctx) => expectAllRejected(ctx, 'CREATE-13'));
});
