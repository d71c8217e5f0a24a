// The client bounds the requests in flight (--concurrency) and chooses which waiting request goes next: a check that
// sends one request after another is not held behind a hundred bodies another check sent at once. What a real target
// 100 ms away turns into the run's length.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PetstoreClient, type ClientOptions } from '../../helpers/http/client.js';

const KEY = 'client-queue-key-8a1c';
let server: Server;
let baseUrl: string;
/** The paths in the order the server took them. */
const arrived: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    arrived.push(request.url ?? '');
    setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('[]'), 5);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function client(): PetstoreClient {
  const options: ClientOptions = { baseUrl, apiKey: KEY, timeoutMs: 5_000, maxResponseBytes: 1_048_576, maxRequests: null, concurrency: 2, rateLimitReserve: 0 };
  return new PetstoreClient(options);
}

/** Sends `count` requests of the bulk check at once, and the chain check's `steps`, each once the last was answered. */
async function bulkBesideChain(run: PetstoreClient, count: number, steps: number): Promise<void> {
  const bulk = run.forRule('FUZZ-01');
  const chain = run.forRule('LIST-02');
  const sent = Array.from({ length: count }, (_, index) => bulk.send({ path: '/pets', query: { bulk: String(index) } }));
  for (let step = 0; step < steps; step++) await chain.send({ path: '/pets', query: { chain: String(step) } });
  await Promise.all(sent);
}

describe('the client\'s queue', () => {
  it('gives a freed place to the check with the fewest requests in flight: a chain goes between the bulk\'s requests', async () => {
    arrived.length = 0;
    const run = client();
    try {
      await bulkBesideChain(run, 30, 3);
    } finally {
      await run.close();
    }
    // In the order sent, the chain would come after all thirty. Each step waits for a place: the bulk's two in flight
    // when it was sent, at most, as the place the step before freed went to the bulk while its answer was read.
    const lastStep = arrived.findIndex((path) => path.includes('chain=2'));
    expect(lastStep, arrived.join(' ')).toBeLessThanOrEqual(3 * 2 + 2);
    expect(arrived).toHaveLength(33);
  });
});
