// A curl line the reports print reproduces its request: run as a reader runs it, in a shell with the key in
// $PETSTORE_API_KEY, it gets the status the run got. The mutation harness runs every line each failing run prints
// against the defect server that produced it (tests/mutation/defect-runs.ts); here, one line of each kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PetstoreClient, type SendOptions } from '../../helpers/http/client.js';
import { curlFor, type Exchange } from '../../helpers/http/exchange.js';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';
import { runLines } from '../support/reproduce.js';

const KEY = 'test-key-4f9a1c';

/** A request of every shape a report prints: each method, each way of carrying (or breaking) the key, a padded body. */
const REQUESTS: ReadonlyArray<SendOptions> = [
  { method: 'HEAD', path: '/pets' },
  { method: 'HEAD', path: '/pets/1' },
  { method: 'OPTIONS', path: '/pets' },
  { path: '/pets', query: { limit: '1' } },
  { path: '/pets', query: 'limit=&status=sold' },
  { path: '/pets', auth: 'none' },
  { path: '/pets', auth: 'key-case-swapped' },
  { path: '/pets', auth: 'key-minus-char' },
  { path: '/pets', auth: 'key-plus-char' },
  { path: '/pets', auth: 'basic' },
  { path: '/pets', auth: 'bearer-no-space' },
  { path: '/pets', auth: 'lowercase-bearer' },
  { path: '/pets', auth: 'key-elsewhere' },
  { path: '/pets', headers: { accept: null } },
  { method: 'POST', path: '/pets', json: { name: "it's \"quoted\" $HOME `x`", categoryId: 1 } },
  { method: 'POST', path: '/pets', body: '{"name": 42' },
  { method: 'POST', path: '/pets', json: { name: 'padded', categoryId: 2 }, padBytes: 2 * 1024 * 1024 },
  { method: 'PUT', path: '/pets/1', json: { name: 'x', categoryId: 1 } },
  { method: 'DELETE', path: '/pets/1' },
];

describe('the curl line of a request', () => {
  let server: RunningReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ apiKeys: [KEY], preload: 3 });
  });
  afterAll(() => server.close());

  it('runs, and gets back the status the client got, for every method and every way of carrying the key', async () => {
    const client = new PetstoreClient({ baseUrl: server.url, apiKey: KEY, timeoutMs: 10_000, maxResponseBytes: 1_048_576, maxRequests: null, concurrency: 1, rateLimitReserve: 0, onWait: () => {} });
    const exchanges: Exchange[] = [];
    for (const request of REQUESTS) exchanges.push(await client.send(request));
    await client.close();
    const lines = exchanges.map((exchange) => curlFor(exchange.request));
    const got = await runLines(lines, KEY);
    expect(lines.map((line, index) => `${got[index]!.join(', ')} ← ${line.slice(0, 60)}`)).toEqual(lines.map((line, index) => `${exchanges[index]!.response!.status} ← ${line.slice(0, 60)}`));
  }, 120_000);
});
