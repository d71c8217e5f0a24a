// verify re-judges a run on the recording's clock; the process around it keeps its own.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PetstoreClient } from '../../helpers/http/client.js';
import { Redactor } from '../../helpers/http/redact.js';
import { ReplaySource } from '../../helpers/http/replay.js';
import { scratchDir } from '../support/scratch.js';

const STARTED_AT_MS = Date.parse('2026-01-31T10:00:00.000Z');

function emptyRecording(): string {
  return recording([]);
}

function recording(entries: unknown[]): string {
  const dir = scratchDir('petstore-replay-');
  const harPath = join(dir, 'exchanges.har');
  writeFileSync(harPath, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '0' }, entries } }));
  return harPath;
}

const URL_OF_PETS = 'http://127.0.0.1:1/v1/pets';

/** A recorded GET /pets: answered with `status`, or failed on a connection the server had closed. */
function getPets(seq: number, answer: { status: number } | 'closed'): unknown {
  const response = answer === 'closed'
    ? { status: 0, headers: [], content: { text: '' }, _error: 'closed, on a kept-alive connection, before any byte of the answer: sent again on a new connection', _retried: true }
    : { status: answer.status, headers: [], content: { text: '[]' } };
  return { _seq: seq, startedDateTime: STARTED_AT_MS, time: 1, request: { method: 'GET', url: URL_OF_PETS, headers: [] }, response };
}

describe('a replay', () => {
  it('keeps the recording\'s clock for the run, and leaves Date.now to the process', async () => {
    const dateNow = Date.now;
    const harPath = emptyRecording();
    const replay = new ReplaySource(harPath, STARTED_AT_MS, new Redactor());
    expect(Date.now).toBe(dateNow);
    expect(Date.now()).toBeGreaterThan(STARTED_AT_MS + 1);
    expect(replay.now()).toBe(STARTED_AT_MS);
    await replay.sleep(5_000);
    expect(replay.now()).toBe(STARTED_AT_MS + 5_000);
  });
});

describe('a replay of identical requests that met closed connections', () => {
  // Two GETs in flight together both met a closed connection, then each went again: the replay need not
  // pair them as the run did, but a second attempt must never be answered with a recorded first attempt.
  it('answers a second attempt on a new connection with a recorded answer, never with a failed first attempt', () => {
    const harPath = recording([getPets(1, 'closed'), getPets(2, 'closed'), getPets(3, { status: 200 }), getPets(4, { status: 200 })]);
    const unmatched: string[] = [];
    const replay = new ReplaySource(harPath, STARTED_AT_MS, new Redactor(), (request) => unmatched.push(request));
    const request = { method: 'GET', url: URL_OF_PETS, auth: 'key' as const, headers: {} };
    expect(replay.answer(request)?.retry).toBe(true);
    expect(replay.answer(request, true)?.response?.status).toBe(200);
    expect(replay.answer(request)?.retry).toBe(true);
    expect(replay.answer(request, true)?.response?.status).toBe(200);
    expect(replay.answer(request)).toBeUndefined();
    expect(unmatched).toEqual([`GET ${URL_OF_PETS}`]);
  });
});

describe('a replay of requests that differ only in their headers', () => {
  // The key in a cookie or an X-API-Key header, Accept: text/html or none: same method, URL and body, other answers.
  it('answers each with the recorded answer to the request with the same headers, whatever the order they come in', () => {
    const sent = (seq: number, headers: Array<{ name: string; value: string }>, status: number) => ({
      _seq: seq, startedDateTime: STARTED_AT_MS, time: 1, request: { method: 'GET', url: URL_OF_PETS, headers }, response: { status, headers: [], content: { text: '[]' } },
    });
    const harPath = recording([
      sent(1, [{ name: 'accept', value: 'application/json' }, { name: 'cookie', value: 'api_key=$PETSTORE_API_KEY' }], 401),
      sent(2, [{ name: 'accept', value: 'application/json' }, { name: 'x-api-key', value: '$PETSTORE_API_KEY' }], 200),
      sent(3, [], 406),
    ]);
    const replay = new ReplaySource(harPath, STARTED_AT_MS, new Redactor(['a-key-of-sixteen-chars']));
    const request = (headers: Record<string, string>) => ({ method: 'GET', url: URL_OF_PETS, auth: 'key-in-headers' as const, headers });
    expect(replay.answer(request({}))?.response?.status).toBe(406);
    expect(replay.answer(request({ 'x-api-key': '$PETSTORE_API_KEY', accept: 'application/json' }))?.response?.status).toBe(200);
    expect(replay.answer(request({ accept: 'application/json', cookie: 'api_key=$PETSTORE_API_KEY' }))?.response?.status).toBe(401);
  });
});

/**
 * A run's schedule as the live client recorded it: each request with how many answers had come when it was
 * sent (sentAfter) and where its own answer came (seq), at most `concurrency` in flight at once.
 */
interface LiveRequest {
  marker: string;
  sentAfter: number;
  seq: number;
}

/**
 * Plays a live run: at each step a request is sent (while a slot is free) or one in flight is answered, as `choices`
 * say. Requests repeat every `distinct` (the 429 probe's GETs are all alike).
 */
function liveSchedule(count: number, concurrency: number, choices: readonly number[], distinct = count): LiveRequest[] {
  const done: LiveRequest[] = [];
  const inflight: Array<{ marker: string; sentAfter: number }> = [];
  let sent = 0;
  for (let step = 0; done.length < count; step += 1) {
    const choice = choices[step % choices.length]!;
    const canSend = sent < count && inflight.length < concurrency;
    if (canSend && (inflight.length === 0 || choice % 2 === 0)) {
      inflight.push({ marker: `r${sent % distinct}`, sentAfter: done.length });
      sent += 1;
    } else {
      const [answered] = inflight.splice(choice % inflight.length, 1);
      done.push({ ...answered!, seq: done.length + 1 });
    }
  }
  return done;
}

/** The recording of that schedule: each answer carries the Remaining the server gave it, in the order it counted them. */
function recordingOf(schedule: readonly LiveRequest[]): string {
  return recording(schedule.map(({ marker, sentAfter, seq }) => ({
    _seq: seq, _sentAfter: sentAfter, startedDateTime: new Date(STARTED_AT_MS + seq).toISOString(), time: 1,
    request: { method: 'GET', url: `${URL_OF_PETS}?limit=1&m=${marker}`, headers: [{ name: 'accept', value: 'application/json' }, { name: 'authorization', value: 'Bearer $PETSTORE_API_KEY' }] },
    response: { status: 200, headers: [{ name: 'x-ratelimit-remaining', value: String(1000 - seq) }], content: { text: '[]' } },
  })));
}

describe('a replay of requests that were in flight together', () => {
  // RATE-04 and RATE-13..15 judge which answers had come when a request was sent: the replay must hand them the
  // live run's order, whatever order its own checks send the requests in (they race ahead of the recording).
  it('gives every exchange the seq and sentAfter the live run recorded, in the recorded order, whatever order it is asked in', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
      async (count, concurrency, choices, order) => {
        const schedule = liveSchedule(count, concurrency, choices);
        const replay = new ReplaySource(recordingOf(schedule), STARTED_AT_MS, new Redactor(['a-key-of-sixteen-chars']));
        const client = new PetstoreClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'a-key-of-sixteen-chars', timeoutMs: 1000, maxResponseBytes: 65536, maxRequests: null, concurrency, rateLimitReserve: 0, replay });
        // The replay's checks send in an order of their own: every request at once, shuffled by `order`.
        const asked = schedule.map((request) => request.marker).sort((a, b) => (order[Number(a.slice(1)) % order.length]! - order[Number(b.slice(1)) % order.length]!) || a.localeCompare(b));
        await Promise.all(asked.map((marker) => client.send({ path: '/pets', query: { limit: '1', m: marker } })));
        const replayed = client.exchanges.map((exchange) => ({ marker: new URL(exchange.request.url).searchParams.get('m'), sentAfter: exchange.sentAfter, seq: exchange.seq }));
        expect(replayed).toEqual([...schedule].sort((a, b) => a.seq - b.seq));
        expect(client.replayStalls, 'times the replay let a later answer go first').toBe(0);
        await client.close();
      },
    ), { seed: 35, numRuns: 60 });
  });

  it('gives identical requests the places of the live run\'s, and holds none back, whichever of them is asked first', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
      async (count, concurrency, distinct, choices, order) => {
        const schedule = liveSchedule(count, concurrency, choices, distinct);
        const replay = new ReplaySource(recordingOf(schedule), STARTED_AT_MS, new Redactor(['a-key-of-sixteen-chars']));
        const client = new PetstoreClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'a-key-of-sixteen-chars', timeoutMs: 1000, maxResponseBytes: 65536, maxRequests: null, concurrency, rateLimitReserve: 0, replay });
        const asked = schedule.map((request, index) => ({ marker: request.marker, rank: order[index % order.length]! })).sort((a, b) => a.rank - b.rank);
        await Promise.all(asked.map(({ marker }) => client.send({ path: '/pets', query: { limit: '1', m: marker } })));
        const place = (request: { marker: string | null; sentAfter?: number; seq: number }) => `${request.seq}:${request.sentAfter}:${request.marker}`;
        expect(client.exchanges.map((exchange) => place({ marker: new URL(exchange.request.url).searchParams.get('m'), sentAfter: exchange.sentAfter, seq: exchange.seq })))
          .toEqual([...schedule].sort((a, b) => a.seq - b.seq).map(place));
        expect(client.replayStalls).toBe(0);
        await client.close();
      },
    ), { seed: 3535, numRuns: 60 });
  });
});
