// A server that answers and then resets the connection, without Connection: close (Fastify's answer to headers too
// large: a 431, then the socket destroyed with the request's rest unread). undici waits a turn of the event loop before
// it reuses a kept-alive connection; a reset that comes in that turn fails the requests waiting for it, although not a
// byte of them left. Each is sent on a new connection: how the client queued its requests is no fault of the target.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PetstoreClient } from '../../helpers/http/client.js';

const KEY = 'reset-before-sent-key-51d2';
const REQUESTS = 60;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((socket: Socket) => {
    socket.on('data', () => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n[]');
      // The reset a moment after the answer: the client has read it, and may have queued the next request.
      setTimeout(() => socket.resetAndDestroy(), 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('a request a connection\'s reset failed, before it was sent or before any byte of its answer, goes again on a new connection', async () => {
  const client = new PetstoreClient({ baseUrl, apiKey: KEY, timeoutMs: 5_000, maxResponseBytes: 1_048_576, maxRequests: null, concurrency: 2, rateLimitReserve: 0 });
  try {
    const rule = client.forRule('LIST-01');
    const answers = await Promise.all(Array.from({ length: REQUESTS }, (_, index) => rule.send({ path: '/pets', query: { n: String(index) } })));
    expect(answers.map((exchange) => exchange.response?.status ?? exchange.error)).toEqual(Array(REQUESTS).fill(200));
    const failed = client.exchanges.filter((exchange) => exchange.error);
    // Each failed attempt says which it met, and is followed by the same request's answer.
    for (const attempt of failed) {
      expect(attempt).toMatchObject({ retried: true, error: expect.stringMatching(/^connection reset by the server, (before the request was sent: sent|on a kept-alive connection, before any byte of the answer: sent again) on a new connection$/) });
    }
    expect(client.exchanges).toHaveLength(REQUESTS + failed.length);
  } finally {
    await client.close();
  }
});
