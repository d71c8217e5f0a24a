import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse as parseYaml } from 'yaml';
import { jsonEquals, parseJson, stringifyJson, type Json } from '../../helpers/json.js';
import { packagePath } from '../../helpers/package-root.js';
import { DEFECTS } from '../defects/catalog.js';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import { withSwitches, type SwitchedServerOptions } from '../support/switches.js';
import { VARIANTS } from '../variants/catalog.js';

interface Exchange {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed losslessly; undefined when the body is not JSON. */
  body: Json | undefined;
}

interface CallInit {
  method?: string;
  /** The Authorization header; undefined sends the server's key as Bearer, null sends none. */
  auth?: string | null;
  body?: string;
}

// One request path for the whole file, so every test reads the raw text and the lossless parse alike.
async function call(server: RunningReferenceServer, path: string, init: CallInit = {}): Promise<Exchange> {
  const headers: Record<string, string> = {};
  const auth = init.auth === undefined ? `Bearer ${server.apiKey}` : init.auth;
  if (auth !== null) headers.authorization = auth;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, { method: init.method ?? 'GET', headers, body: init.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: tryParse(text) };
}

function tryParse(text: string): Json | undefined {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

function post(server: RunningReferenceServer, body: unknown, auth?: string | null): Promise<Exchange> {
  return call(server, '/pets', { method: 'POST', body: typeof body === 'string' ? body : stringifyJson(body), auth });
}

function expectError(exchange: Exchange, status: number): void {
  expect(exchange.status).toBe(status);
  expect(exchange.headers.get('content-type')).toBe('application/json');
  expect(exchange.body).toMatchObject({ code: expect.any(String), message: expect.any(String), status });
}

function asArray(exchange: Exchange): Array<Record<string, Json>> {
  expect(Array.isArray(exchange.body)).toBe(true);
  return exchange.body as Array<Record<string, Json>>;
}

function withServer(options: SwitchedServerOptions): { server: () => RunningReferenceServer } {
  let running: RunningReferenceServer | undefined;
  beforeAll(async () => {
    running = await startReferenceServer(withSwitches(options));
  });
  afterAll(async () => {
    await running?.close();
  });
  return { server: () => running! };
}

const OPERATIONS = [
  { name: 'listPets', method: 'GET', path: '/pets' },
  { name: 'createPet', method: 'POST', path: '/pets' },
  { name: 'getPet', method: 'GET', path: '/pets/1' },
  { name: 'getStoreOrders', method: 'GET', path: '/store/orders' },
] as const;
const VALID_PET = { name: 'Rex', categoryId: 2 };

describe('the conforming reference server', () => {
  const { server } = withServer({ preload: 25 });

  it('listens on loopback under /v1 with the default key', () => {
    expect(server().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server().apiKey).toBe('reference-key');
  });

  describe('authentication', () => {
    const rejected: Array<[string, string | null]> = [
      ['no Authorization header', null],
      ['Bearer with an empty token', 'Bearer '],
      ['an unknown key', 'Bearer not-a-key'],
      ['the key under Basic', `Basic ${Buffer.from('reference-key:').toString('base64')}`],
      ['the key as Basic token', 'Basic reference-key'],
      ['the bare key', 'reference-key'],
    ];
    for (const operation of OPERATIONS) {
      for (const [label, auth] of rejected) {
        it(`answers ${operation.name} with ${label} with 401, an Error and a challenge`, async () => {
          const body = operation.method === 'POST' ? stringifyJson(VALID_PET) : undefined;
          const exchange = await call(server(), operation.path, { method: operation.method, auth, body });
          expectError(exchange, 401);
          expect(exchange.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
        });
      }
    }

    it('accepts the scheme name in any case', async () => {
      for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
        expect((await call(server(), '/pets', { auth: `${scheme} reference-key` })).status).toBe(200);
      }
    });

    it('checks the key before the body and before the lookup', async () => {
      expectError(await post(server(), '{not json', null), 401);
      expectError(await call(server(), '/pets/999999', { auth: null }), 401);
      expectError(await call(server(), '/no/such/route', { auth: null }), 401);
    });
  });

  describe('createPet', () => {
    it('answers 201 and echoes an int64 categoryId exactly', async () => {
      const exchange = await post(server(), '{"name":"Big","categoryId":9223372036854775807,"status":"sold"}');
      expect(exchange.status).toBe(201);
      expect(exchange.headers.get('content-type')).toBe('application/json');
      expect(exchange.text).toMatch(/^\{"id":\d+,"name":"Big","categoryId":9223372036854775807,"status":"sold"\}$/);
      const id = (exchange.body as Record<string, Json>).id;
      const fetched = await call(server(), `/pets/${String(id)}`);
      expect(fetched.status).toBe(200);
      expect(fetched.text).toBe(exchange.text);
    });

    it('echoes the smallest int64 and an empty name, and ignores extra fields', async () => {
      const exchange = await post(server(), '{"name":"","categoryId":-9223372036854775808,"colour":"red"}');
      expect(exchange.status).toBe(201);
      expect(exchange.text).toMatch(/^\{"id":\d+,"name":"","categoryId":-9223372036854775808\}$/);
    });

    it('leaves status out when none was sent', async () => {
      const exchange = await post(server(), VALID_PET);
      expect(exchange.status).toBe(201);
      expect(Object.keys(exchange.body as object)).toEqual(['id', 'name', 'categoryId']);
    });

    it('assigns sequential ids', async () => {
      const first = (await post(server(), VALID_PET)).body as Record<string, Json>;
      const second = (await post(server(), VALID_PET)).body as Record<string, Json>;
      expect(BigInt(second.id as number) - BigInt(first.id as number)).toBe(1n);
    });

    const invalidBodies: Array<[string, string | undefined]> = [
      ['no body', undefined],
      ['an empty body', ''],
      ['malformed JSON', '{"name":"Rex",'],
      ['an array', '[{"name":"Rex","categoryId":2}]'],
      ['a string', '"Rex"'],
      ['a number', '7'],
      ['null', 'null'],
      ['no name', '{"categoryId":2}'],
      ['no categoryId', '{"name":"Rex"}'],
      ['name null', '{"name":null,"categoryId":2}'],
      ['name a number', '{"name":7,"categoryId":2}'],
      ['categoryId null', '{"name":"Rex","categoryId":null}'],
      ['categoryId a string', '{"name":"Rex","categoryId":"2"}'],
      ['categoryId fractional', '{"name":"Rex","categoryId":2.5}'],
      ['categoryId with a fraction literal', '{"name":"Rex","categoryId":2.0}'],
      ['categoryId with an exponent', '{"name":"Rex","categoryId":2e0}'],
      ['categoryId above int64', '{"name":"Rex","categoryId":9223372036854775808}'],
      ['categoryId below int64', '{"name":"Rex","categoryId":-9223372036854775809}'],
      ['status null', '{"name":"Rex","categoryId":2,"status":null}'],
      ['status unknown', '{"name":"Rex","categoryId":2,"status":"lost"}'],
      ['status in another case', '{"name":"Rex","categoryId":2,"status":"Available"}'],
      ['duplicate keys', '{"name":"Rex","name":"Max","categoryId":2}'],
    ];
    for (const [label, body] of invalidBodies) {
      it(`answers ${label} with 400 and an Error`, async () => {
        expectError(await call(server(), '/pets', { method: 'POST', body }), 400);
      });
    }
  });

  describe('listPets', () => {
    it('answers 20 pets oldest first when no limit is given', async () => {
      const pets = asArray(await call(server(), '/pets'));
      expect(pets).toHaveLength(20);
      expect(pets.map((pet) => pet.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it('honours limit 1 and 100', async () => {
      expect(asArray(await call(server(), '/pets?limit=1'))).toHaveLength(1);
      const all = asArray(await call(server(), '/pets?limit=100'));
      expect(all.length).toBeGreaterThan(25);
      expect(all.length).toBeLessThanOrEqual(100);
    });

    for (const limit of ['0', '101', '-1', 'abc', '1.5', '', '1e1']) {
      it(`answers limit=${limit} with 400 and an Error`, async () => {
        expectError(await call(server(), `/pets?limit=${limit}`), 400);
      });
    }

    it('filters by each status', async () => {
      for (const status of ['available', 'pending', 'sold']) {
        const pets = asArray(await call(server(), `/pets?status=${status}&limit=100`));
        expect(pets.length).toBeGreaterThan(0);
        expect(pets.every((pet) => pet.status === status)).toBe(true);
      }
    });

    it('applies limit and status together', async () => {
      const pets = asArray(await call(server(), '/pets?status=pending&limit=2'));
      expect(pets.map((pet) => pet.status)).toEqual(['pending', 'pending']);
    });

    it('answers an unknown status with 400', async () => {
      expectError(await call(server(), '/pets?status=lost'), 400);
    });
  });

  describe('getPet', () => {
    it('answers an existing pet with 200', async () => {
      const exchange = await call(server(), '/pets/1');
      expect(exchange.status).toBe(200);
      expect(jsonEquals(exchange.body, { id: 1, name: 'Pet 1', categoryId: 1, status: 'available' })).toBe(true);
    });

    it('answers an unknown pet with 404 and an Error', async () => {
      expectError(await call(server(), '/pets/9223372036854775807'), 404);
    });

    for (const petId of ['abc', '12abc', '1.5', '9223372036854775808', '%20']) {
      it(`answers petId ${petId} with 400 and an Error`, async () => {
        expectError(await call(server(), `/pets/${petId}`), 400);
      });
    }
  });

  it('serves GET /store/orders with 200 []', async () => {
    const exchange = await call(server(), '/store/orders');
    expect(exchange.status).toBe(200);
    expect(exchange.body).toEqual([]);
  });

  it('answers a URL fastify cannot decode with its own gate and a 400 Error', async () => {
    const bad = await call(server(), '/pets/%zz');
    expectError(bad, 400);
    expect(bad.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expectError(await call(server(), '/pets/%zz', { auth: null }), 401);
  });

  it('answers an unknown route with 404 and an Error, and a method a path lacks with 405, Allow and an Error', async () => {
    expectError(await call(server(), '/nowhere'), 404);
    const deleted = await call(server(), '/pets', { method: 'DELETE' });
    expectError(deleted, 405);
    expect(deleted.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    expect((await call(server(), '/pets/1', { method: 'PUT', body: '{}' })).headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('answers OPTIONS with 204 and Allow, and HEAD as GET without the body', async () => {
    const options = await call(server(), '/store/orders', { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow'), options.text]).toEqual([204, 'GET, HEAD, OPTIONS', '']);
    const head = await call(server(), '/pets?limit=1', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), head.text]).toEqual([200, 'application/json', '']);
  });

  it('takes application/json in any spelling, and answers a body over 1 MiB with 413 and an Error once it has read it', async () => {
    const body = stringifyJson({ name: 'Spelled', categoryId: 1 });
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const response = await fetch(`${server().url}/pets`, { method: 'POST', body, headers: { authorization: `Bearer ${server().apiKey}`, 'content-type': type } });
      expect(response.status).toBe(201);
    }
    const padded = `{${' '.repeat(2 * 1024 * 1024)}"name":"Padded","categoryId":1}`;
    expectError(await post(server(), padded), 413);
  });

  it('sends the rate-limit headers on a 401 and a 404, counting per credential', async () => {
    const unauthorized = await call(server(), '/pets', { auth: null });
    const first = await call(server(), '/nowhere');
    const second = await call(server(), '/nowhere');
    for (const exchange of [unauthorized, first, second]) {
      expect(exchange.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(exchange.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      const reset = Number(exchange.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThan(Date.now() / 1000);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    }
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    expect(server().stats().byKey['reference-key']).toBeGreaterThan(0);
    expect(Object.keys(server().stats().byKey).some((bucket) => bucket.startsWith('anon:'))).toBe(true);
  });
});

describe('rate limiting', () => {
  describe('with a tiny limit', () => {
    const { server } = withServer({ rateLimit: { limit: 3, windowMs: 1000 } });

    it('answers the request over the limit with 429, Retry-After and Remaining 0, then recovers', async () => {
      const remaining = [];
      for (let i = 0; i < 3; i++) remaining.push((await call(server(), '/pets')).headers.get('x-ratelimit-remaining'));
      expect(remaining).toEqual(['2', '1', '0']);
      const limited = await call(server(), '/pets');
      expectError(limited, 429);
      expect(limited.body).toMatchObject({ code: 'rate_limited' });
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(server().stats().unplanned429).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      expect((await call(server(), '/pets')).status).toBe(200);
    });

  });

  describe('stats', () => {
    const { server } = withServer({ rateLimit: { limit: 2, windowMs: 60_000 } });

    it('count every request, and every 429 after the first of a window as unplanned', async () => {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(server(), '/store/orders')).status);
      expect(statuses).toEqual([200, 200, 429, 429]);
      expect(server().stats()).toEqual({ requests: 4, byKey: { 'reference-key': 4 }, bannedKeys: [], unplanned429: 1 });
    });
  });

  describe('with the retry-after-http-date variant', () => {
    const { server } = withServer({ rateLimit: { limit: 1, windowMs: 5000 }, variants: ['retry-after-http-date'] });

    it('sends Retry-After as an HTTP-date at the end of the window', async () => {
      await call(server(), '/pets');
      const limited = await call(server(), '/pets');
      expect(limited.status).toBe(429);
      const value = limited.headers.get('retry-after') ?? '';
      expect(value).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      expect(Date.parse(value) / 1000).toBe(Number(limited.headers.get('x-ratelimit-reset')));
    });
  });

  describe('with the ban-after-429 variant', () => {
    const { server } = withServer({ apiKeys: ['key-a', 'key-b'], rateLimit: { limit: 1, windowMs: 60_000 }, variants: ['ban-after-429'] });

    it('bans a key that keeps sending while it is answered 429, and only that key', async () => {
      expect((await call(server(), '/pets')).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await call(server(), '/pets')).status).toBe(429);
      const banned = await call(server(), '/pets');
      expectError(banned, 403);
      expect(banned.body).toMatchObject({ code: 'banned' });
      expect(server().stats().bannedKeys).toEqual(['key-a']);
      expect((await call(server(), '/pets', { auth: 'Bearer key-b' })).status).toBe(200);
    });
  });
});

describe('conforming variants', () => {
  it('charset: every JSON response carries charset=utf-8', async () => {
    const server = await startReferenceServer(withSwitches({ variants: ['charset'] }));
    try {
      for (const exchange of [await call(server, '/pets'), await call(server, '/pets', { auth: null }), await call(server, '/x')]) {
        expect(exchange.headers.get('content-type')).toBe('application/json; charset=utf-8');
      }
    } finally {
      await server.close();
    }
  });

  it('extra-fields and default-status: a created pet gains createdAt, tags and status available', async () => {
    const server = await startReferenceServer(withSwitches({ variants: ['extra-fields', 'default-status'] }));
    try {
      const created = await post(server, VALID_PET);
      expect(created.body).toMatchObject({ ...VALID_PET, status: 'available', createdAt: expect.any(String), tags: [] });
    } finally {
      await server.close();
    }
  });

  it('newest-first and clamp-limit: lists newest first and clamps an out-of-range limit', async () => {
    const server = await startReferenceServer(withSwitches({ preload: 120, variants: ['newest-first', 'clamp-limit'] }));
    try {
      expect(asArray(await call(server, '/pets?limit=1'))[0]?.id).toBe(120);
      expect(asArray(await call(server, '/pets?limit=0'))).toHaveLength(1);
      expect(asArray(await call(server, '/pets?limit=1000'))).toHaveLength(100);
      expectError(await call(server, '/pets?limit=abc'), 400);
    } finally {
      await server.close();
    }
  });

  it('ids-above-2p53: ids start at 2^53+11 and survive exactly', async () => {
    const server = await startReferenceServer(withSwitches({ variants: ['ids-above-2p53'] }));
    try {
      const created = await post(server, VALID_PET);
      expect(created.text).toMatch(/^\{"id":9007199254741003,/);
      expect((await call(server, '/pets/9007199254741003')).text).toBe(created.text);
      expectError(await call(server, '/pets/9007199254741002'), 404);
    } finally {
      await server.close();
    }
  });

  it('deprecation-headers: getPet announces deprecation, sunset and successor', async () => {
    const server = await startReferenceServer(withSwitches({ preload: 1, variants: ['deprecation-headers'] }));
    try {
      const exchange = await call(server, '/pets/1');
      expect(exchange.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(exchange.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(exchange.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
    } finally {
      await server.close();
    }
  });

  it('free-plan and slow: the limit is 60 and every response takes 200 ms', async () => {
    const server = await startReferenceServer(withSwitches({ variants: ['free-plan', 'slow'] }));
    try {
      const started = performance.now();
      const exchange = await call(server, '/pets');
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
      expect(exchange.headers.get('x-ratelimit-limit')).toBe('60');
    } finally {
      await server.close();
    }
  });

  it('an explicit option wins over a variant setting', async () => {
    const server = await startReferenceServer(withSwitches({ variants: ['free-plan'], rateLimit: { limit: 5, windowMs: 1000 } }));
    try {
      expect((await call(server, '/pets')).headers.get('x-ratelimit-limit')).toBe('5');
    } finally {
      await server.close();
    }
  });
});

describe('defect switches', () => {
  async function withDefect<T>(options: SwitchedServerOptions, run: (server: RunningReferenceServer) => Promise<T>): Promise<T> {
    const server = await startReferenceServer(withSwitches(options));
    try {
      return await run(server);
    } finally {
      await server.close();
    }
  }

  it('list-default-limit-10 answers 10 pets without limit', () =>
    withDefect({ preload: 25, defects: ['list-default-limit-10'] }, async (server) => {
      expect(asArray(await call(server, '/pets'))).toHaveLength(10);
      expect(asArray(await call(server, '/pets?limit=20'))).toHaveLength(20);
    }));

  it('list-limit-unbounded serves 150 preloaded pets at limit=1000', () =>
    withDefect({ defects: ['list-limit-unbounded'] }, async (server) => {
      expect(asArray(await call(server, '/pets?limit=1000'))).toHaveLength(150);
    }));

  it('create-categoryid-double changes a categoryId above 2^53', () =>
    withDefect({ defects: ['create-categoryid-double'] }, async (server) => {
      const created = await post(server, '{"name":"Big","categoryId":9007199254740993}');
      expect(created.status).toBe(201);
      expect(created.text).toContain('"categoryId":9007199254740992');
    }));

  it('create-422 answers an invalid body with 422', () =>
    withDefect({ defects: ['create-422'] }, async (server) => {
      expectError(await post(server, '{"name":"Rex"}'), 422);
    }));

  it('fetch-parseint-petid serves /pets/12abc as pet 12', () =>
    withDefect({ defects: ['fetch-parseint-petid'] }, async (server) => {
      expect((await call(server, '/pets/12abc')).body).toMatchObject({ id: 12 });
    }));

  it('fetch-id-lossy-double misses a pet whose id a double cannot hold', () =>
    withDefect({ defects: ['fetch-id-lossy-double'] }, async (server) => {
      const created = await post(server, VALID_PET);
      expect(created.text).toMatch(/^\{"id":9007199254740993,/);
      expectError(await call(server, '/pets/9007199254740993'), 404);
    }));

  it('auth-scheme-case-sensitive rejects "bearer"', () =>
    withDefect({ defects: ['auth-scheme-case-sensitive'] }, async (server) => {
      expectError(await call(server, '/pets', { auth: `bearer ${server.apiKey}` }), 401);
      expect((await call(server, '/pets')).status).toBe(200);
    }));

  it('auth-after-validation answers an invalid body without key with 400', () =>
    withDefect({ defects: ['auth-after-validation'] }, async (server) => {
      expectError(await post(server, '{}', null), 400);
      expectError(await post(server, VALID_PET, null), 401);
    }));

  it('errors-text-plain sends errors as text/plain', () =>
    withDefect({ defects: ['errors-text-plain'] }, async (server) => {
      const exchange = await call(server, '/nowhere');
      expect(exchange.status).toBe(404);
      expect(exchange.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(exchange.body).toMatchObject({ status: 404 });
    }));

  it('rate-reset-delta-seconds sends seconds until the reset', () =>
    withDefect({ defects: ['rate-reset-delta-seconds'] }, async (server) => {
      expect((await call(server, '/pets')).headers.get('x-ratelimit-reset')).toBe('60');
    }));

  it('rate-window-never-resets keeps refusing after Retry-After', () =>
    withDefect({ defects: ['rate-window-never-resets'], rateLimit: { limit: 1, windowMs: 500 } }, async (server) => {
      await call(server, '/pets');
      expect((await call(server, '/pets')).status).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await call(server, '/pets')).status).toBe(429);
    }));

  it('base-path-api serves under /api', () =>
    withDefect({ defects: ['base-path-api'] }, async (server) => {
      expect(server.url).toMatch(/\/api$/);
      expect((await call(server, '/pets')).status).toBe(200);
    }));

  it('store-orders-missing answers GET /store/orders with 404', () =>
    withDefect({ defects: ['store-orders-missing'] }, async (server) => {
      expectError(await call(server, '/store/orders'), 404);
    }));
});

describe('the defect and variant catalogs', () => {
  const rules = (parseYaml(readFileSync(packagePath('spec', 'rules.yaml'), 'utf8')) as { rules: Array<{ id: string }> }).rules;
  const ruleIds = new Set(rules.map((rule) => rule.id));

  it('use unique ids', () => {
    const ids = [...DEFECTS.map((d) => d.id), ...VARIANTS.map((v) => v.id)];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('name only rules that exist in spec/rules.yaml, at least one per defect', () => {
    for (const defect of DEFECTS) {
      expect(defect.rules.length, defect.id).toBeGreaterThan(0);
      for (const rule of defect.rules) expect(ruleIds.has(rule), `${defect.id} → ${rule}`).toBe(true);
    }
  });

  it('let every defect and variant start a server', async () => {
    for (const entry of [...DEFECTS.map((d) => ({ defects: [d.id] })), ...VARIANTS.map((v) => ({ variants: [v.id] }))]) {
      const server = await startReferenceServer(withSwitches(entry));
      expect((await call(server, '/pets', { auth: null })).status).toBeGreaterThanOrEqual(200);
      await server.close();
    }
  });
});

// The README sends a reader to `npm run serve` to try a client or the suite by hand: what it prints is all
// they get, so it must carry the address and the key that work.
describe('npm run serve', () => {
  it('is the server\'s command line, which prints the address, the default key and the command that certifies it', async () => {
    const scripts = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.serve).toBe('tsx tests/support/serve.ts');
    const child = spawn(process.execPath, [packagePath('node_modules', 'tsx', 'dist', 'cli.mjs'), packagePath('tests', 'support', 'serve.ts'), '--variant', 'newest-first'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const lines: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) if (lines.push(line) === 3) break;
      const url = /^Reference Pet Store listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(lines[0] ?? '')?.[1];
      expect(url, lines.join('\n')).toBeDefined();
      expect(lines.slice(1)).toEqual([
        'API key: reference-key (sent as "Authorization: Bearer reference-key")',
        `Certify it: PETSTORE_API_KEY=reference-key npx petstore-conformance --base-url ${url}`,
      ]);
      const answer = await fetch(`${url}/pets?limit=1`, { headers: { authorization: 'Bearer reference-key' } });
      expect(answer.status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 30_000);
});
