// The model of the store the consistency rules judge: what it takes from each answer, and what it concludes.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../helpers/http/exchange.js';
import { parseJson, stringifyJson } from '../../helpers/json.js';
import { pathTemplate } from '../../helpers/judge/operations.js';
import { itemsById, samePet, StoreModel } from '../../helpers/model/store-model.js';
import { CONS_05, CONS_09, CONS_10, CONS_11, MODEL_STATEMENTS } from '../../helpers/model/statements.js';

const BASE = 'http://127.0.0.1:9/v1';
const T0 = Date.parse('2026-01-01T00:00:00Z');

/** One recorded exchange: answered in the order given (seq), each sent after the ones before it answered. */
function exchange(seq: number, method: string, path: string, status: number, body: unknown, sent?: unknown, atMs = T0 + seq * 10, sentAfter = seq - 1): Exchange {
  const text = stringifyJson(body);
  return {
    seq, sentAfter, startedAt: new Date(atMs).toISOString(), durationMs: 5,
    request: { method, url: `${BASE}${path}`, headers: {}, auth: 'key', ...(sent === undefined ? {} : { body: stringifyJson(sent) }) },
    response: { status, headers: { 'content-type': 'application/json' }, rawBody: text, json: parseJson(text), truncated: false },
  };
}

const pet = (id: number | bigint, status?: string, name = `pet ${id}`) => ({ id, name, categoryId: 1, ...(status ? { status } : {}) });

describe('the store model', () => {
  it('holds each view of a pet by exact id, ids above 2^53 included', () => {
    const big = 2n ** 53n + 1n;
    const model = StoreModel.of([
      exchange(1, 'POST', '/pets', 201, pet(big, 'sold'), { name: `pet ${big}`, categoryId: 1, status: 'sold' }),
      exchange(2, 'GET', `/pets/${big}`, 200, pet(big, 'sold')),
      exchange(3, 'GET', '/pets?status=sold', 200, [pet(big, 'sold')]),
    ], BASE, 5_000);
    expect(model.views.get(String(big))?.map((view) => view.source)).toEqual(['created', 'fetched', 'listed']);
    expect(model.writeOf(String(big))?.sent.status).toBe('sold');
    expect(model.fetches[0]).toMatchObject({ asked: big, answered: big });
  });

  it('sets no expectation from a body the spec does not define, and names no pet by a petId that is not canonical', () => {
    const model = StoreModel.of([
      exchange(1, 'POST', '/pets', 201, pet(1), { name: 7, categoryId: 1 }),
      exchange(2, 'POST', '/pets', 201, pet(2, 'sold'), { name: 'x', categoryId: 1, status: 'SOLD' }),
      exchange(3, 'GET', '/pets/01', 200, pet(1)),
    ], BASE, 0);
    expect(model.writes).toEqual([]);
    expect(model.fetches).toEqual([]);
  });

  it('reads the limit a page was asked for, 20 without one, and none where the spec defines none', () => {
    const model = StoreModel.of([
      exchange(1, 'GET', '/pets', 200, []),
      exchange(2, 'GET', '/pets?limit=7&status=pending', 200, []),
      exchange(3, 'GET', '/pets?limit=0', 200, []),
      exchange(4, 'GET', '/pets?limit=10abc', 200, []),
      exchange(5, 'GET', '/pets?limit=5&limit=6', 200, []),
      exchange(6, 'GET', '/pets?status=PENDING', 200, []),
    ], BASE, 0);
    expect(model.pages.map((page) => [page.limit, page.status, page.unknownFilter])).toEqual([
      [20, undefined, false], [7, 'pending', false], [undefined, undefined, false], [undefined, undefined, false], [undefined, undefined, false], [20, undefined, true],
    ]);
  });

  it('counts a pet visible to a page once an earlier read showed it, or --read-lag after its 201', () => {
    const write = exchange(1, 'POST', '/pets', 201, pet(1, 'sold'), { name: 'pet 1', categoryId: 1, status: 'sold' });
    const soon = exchange(2, 'GET', '/pets?status=sold', 200, []);
    const late = exchange(3, 'GET', '/pets?status=sold', 200, [pet(1, 'sold')], undefined, T0 + 6_000);
    // Sent while the first page was in flight: that page's answer proves nothing to it.
    const alongside = exchange(4, 'GET', '/pets?status=sold', 200, [], undefined, T0 + 30, 1);
    const model = StoreModel.of([write, soon, late, alongside], BASE, 5_000);
    expect(model.visibleBefore('1', soon)).toBe(false);
    expect(model.visibleBefore('1', late)).toBe(true);
    expect(model.visibleBefore('1', alongside)).toBe(false);
    expect(model.matchingBefore(model.pages[1]!)).toEqual(['1']);
  });

  it('knows a pet\'s status from its write, or from every read that shows one agreeing', () => {
    const model = StoreModel.of([
      exchange(1, 'GET', '/pets', 200, [pet(1, 'sold'), pet(2, 'pending'), pet(3)]),
      exchange(2, 'GET', '/pets?limit=100', 200, [pet(1, 'sold'), pet(2, 'available'), pet(3)]),
    ], BASE, 0);
    expect([model.statusOf('1'), model.statusOf('2'), model.statusOf('3')]).toEqual(['sold', undefined, undefined]);
  });

  it('tells a repeated row from two pets sharing an id', () => {
    const model = StoreModel.of([
      exchange(1, 'GET', '/pets', 200, [pet(1, 'sold'), { ...pet(1, 'sold'), extra: true }, pet(2, 'sold', 'a'), pet(2, 'sold', 'b')]),
    ], BASE, 0);
    const byId = itemsById(model.pages[0]!);
    expect(samePet(byId.get('1')![0]!, byId.get('1')![1]!)).toBe(true);
    expect([...model.idsSharedOnAPage()]).toEqual(['2']);
  });

  it('names the ids two writes of the run were answered with', () => {
    const sent = { name: 'x', categoryId: 1 };
    const model = StoreModel.of([exchange(1, 'POST', '/pets', 201, pet(5), sent), exchange(2, 'POST', '/pets', 201, pet(5), sent)], BASE, 0);
    expect([...model.idsOfSeveralWrites()]).toEqual(['5']);
    expect(model.writeOf('5')).toBeUndefined();
  });

  it('sets aside a pet the run sent a method the spec does not name that could change it, and no other', () => {
    const sent = (id: number) => ({ name: `pet ${id}`, categoryId: 1, status: 'sold' });
    const model = StoreModel.of([
      exchange(1, 'POST', '/pets', 201, pet(1, 'sold'), sent(1)),
      exchange(2, 'POST', '/pets', 201, pet(2, 'sold'), sent(2)),
      exchange(3, 'HEAD', '/pets/2', 200, ''),
      exchange(4, 'DELETE', '/pets/1', 204, ''),
      exchange(5, 'GET', '/pets?status=sold', 200, [pet(2, 'sold')]),
    ], BASE, 0);
    // A server may implement DELETE (an extension): pet 1 missing from the page is no finding, and nothing is expected of it.
    expect([...model.setAside]).toEqual(['1']);
    expect(model.writes.map((write) => write.id)).toEqual(['2']);
    expect([...model.views.keys()]).toEqual(['2']);
    expect(model.matchingBefore(model.pages[0]!)).toEqual(['2']);
  });

  it('extended answer by answer, is the model built afresh from all of them, a pet set aside late included', () => {
    const sent = (id: number) => ({ name: `pet ${id}`, categoryId: 1, status: 'sold' });
    const run = [
      exchange(1, 'POST', '/pets', 201, pet(1, 'sold'), sent(1)),
      exchange(2, 'GET', '/pets/1', 200, pet(1, 'sold')),
      exchange(3, 'POST', '/pets', 201, pet(2, 'sold'), sent(2)),
      exchange(4, 'GET', '/pets?status=sold', 200, [pet(1, 'sold'), pet(2, 'sold')]),
      exchange(5, 'GET', '/pets/3', 404, { code: 404, message: 'not found' }),
      // Sets pet 1 aside for what came before it as well.
      exchange(6, 'PUT', '/pets/1', 200, pet(1, 'sold'), sent(1)),
      exchange(7, 'GET', '/pets', 200, [pet(2, 'sold')]),
    ];
    const afresh = (count: number) => StoreModel.of(run.slice(0, count), BASE, 0);
    let extended = StoreModel.of([], BASE, 0);
    for (let count = 1; count <= run.length; count++) {
      const before = extended;
      extended = extended.extendedWith(run.slice(0, count));
      expect(extended).toEqual(afresh(count));
      // A model built afresh leaves the one it replaces as it was.
      if (extended !== before) expect(before).toEqual(afresh(count - 1));
    }
    expect([...extended.setAside]).toEqual(['1']);
    expect([...extended.views.keys()]).toEqual(['2']);
    // A sequence that does not continue the model's is modelled afresh.
    expect(extended.extendedWith(run.slice(2))).toEqual(StoreModel.of(run.slice(2), BASE, 0));
  });
});

describe('the statements of the model', () => {
  it('judge every answer of the run, or only the one asked about, with one definition', () => {
    const model = StoreModel.of([
      exchange(1, 'GET', '/pets?status=sold', 200, [pet(1, 'sold'), pet(2)]),
      exchange(2, 'GET', '/pets?status=pending', 200, [pet(3, 'pending')]),
      exchange(3, 'GET', '/pets?status=pending', 200, [pet(4, 'sold')]),
    ], BASE, 0);
    expect(CONS_05.findings(model).map((finding) => finding.exchanges[0]!.seq)).toEqual([1, 3]);
    expect(CONS_05.findings(model, model.pages[1]!.exchange)).toEqual([]);
    expect(CONS_05.findings(model, model.pages[2]!.exchange).map((finding) => finding.example)).toEqual([expect.stringMatching(/id 4 with status "sold"/)]);
    expect(MODEL_STATEMENTS.map((statement) => statement.rule)).toEqual(['CONS-01', 'CONS-02', 'CONS-03', 'CONS-04', 'CONS-05', 'CONS-06', 'CONS-07', 'CONS-08', 'CONS-09', 'CONS-10', 'CONS-11']);
  });

  it('CONS-10 holds every read to the Pet schema, filtered pages and GETs alike, and lets a valid pet with extra members pass', () => {
    const model = StoreModel.of([
      exchange(1, 'GET', '/pets', 200, [pet(1, 'sold'), { ...pet(2), tags: ['x'] }]),
      exchange(2, 'GET', '/pets?status=sold', 200, [{ ...pet(1, 'sold'), categoryId: '1' }]),
      exchange(3, 'GET', '/pets/1', 200, { ...pet(1, 'sold'), id: '1' }),
      exchange(4, 'GET', '/pets/2', 200, null),
      // A pet the run sent PATCH to is set aside: a server may implement it, so nothing is expected of its reads.
      exchange(5, 'PATCH', '/pets/9', 200, pet(9)),
      exchange(6, 'GET', '/pets/9', 200, { ...pet(9), categoryId: 'nine' }),
    ], BASE, 0);
    expect(CONS_10.findings(model).map((finding) => [finding.exchanges[0]!.seq, finding.kind])).toEqual([
      [2, 'a filtered page lists an invalid Pet'],
      [3, 'GET /pets/{petId} shows an invalid Pet'],
      [4, 'GET /pets/{petId} shows an invalid Pet'],
    ]);
    expect(CONS_10.findings(model, model.pages[0]!.exchange)).toEqual([]);
  });

  it('CONS-09 holds a 404 against a pet a read had shown, or the run created past --read-lag, and not before', () => {
    const notFound = (seq: number, atMs?: number, auth: 'key' | 'none' = 'key') => {
      const miss = exchange(seq, 'GET', '/pets/1', 404, { code: 'not_found', message: 'no pet', status: 404 }, undefined, atMs);
      return { ...miss, request: { ...miss.request, auth } };
    };
    const write = exchange(1, 'POST', '/pets', 201, pet(1), { name: 'pet 1', categoryId: 1 });
    const seq = (model: StoreModel) => CONS_09.findings(model).map((finding) => finding.exchanges.at(-1)!.seq);
    // Within --read-lag of its 201 and never read: a replica may not have it yet.
    expect(seq(StoreModel.of([write, notFound(2)], BASE, 5_000))).toEqual([]);
    expect(seq(StoreModel.of([write, notFound(2, T0 + 6_000)], BASE, 5_000))).toEqual([2]);
    // Listed first: what one read showed, later reads show; a 404 to a request without the key says nothing.
    const listed = exchange(2, 'GET', '/pets', 200, [pet(1)]);
    expect(seq(StoreModel.of([write, listed, notFound(3), notFound(4, undefined, 'none')], BASE, 5_000))).toEqual([3]);
  });
});

describe('CONS-11', () => {
  const refused = (seq: number, status: number, name: string, path = '/pets') => {
    const sent = exchange(seq, 'POST', path, status, { code: 'refused', message: 'no', status }, { name, categoryId: 1, status: 'sold' });
    return { ...sent, request: { ...sent.request, auth: status === 401 ? 'none' as const : 'key' as const } };
  };

  it('finds a pet sent only in refused POSTs on a later page, whatever path the POST went to, and names the refusal', () => {
    const model = StoreModel.of([
      refused(1, 401, 'PCa1b2c3 auth none'),
      refused(2, 400, 'PCa1b2c3 auth slash', '/pets/'),
      exchange(3, 'GET', '/pets?status=sold', 200, [pet(7, 'sold', 'PCa1b2c3 auth none'), pet(8, 'sold', 'PCa1b2c3 auth slash'), pet(9, 'sold')]),
    ], BASE, 0);
    expect(CONS_11.findings(model).map((finding) => [finding.exchanges.map((e) => e.seq), finding.kind])).toEqual([
      [[1, 3], 'a pet sent in a request answered 401 is stored'],
      [[2, 3], 'a pet sent in a request answered 400 is stored'],
    ]);
    expect(CONS_11.findings(model)[0]!.example).toBe('item 0 of the page ?status=sold shows "PCa1b2c3 auth none", sent only in POST /v1/pets, which was answered 401');
  });

  it('finds nothing for a name another POST was created with, got no answer to, or answered 5xx', () => {
    const created = exchange(2, 'POST', '/pets', 201, pet(7, 'sold', 'rex'), { name: 'rex', categoryId: 1, status: 'sold' });
    const failed = { ...refused(3, 401, 'fido'), response: undefined, error: 'connection reset' };
    const model = StoreModel.of([
      refused(1, 400, 'rex'), created, failed, refused(4, 401, 'fido'), refused(5, 503, 'max'), refused(6, 401, 'max'),
      exchange(7, 'GET', '/pets', 200, [pet(7, 'sold', 'rex'), pet(8, 'sold', 'fido'), pet(9, 'sold', 'max')]),
    ], BASE, 0);
    expect(CONS_11.findings(model)).toEqual([]);
  });
});

describe('pathTemplate', () => {
  const at = (method: string, path: string) => pathTemplate(exchange(1, method, path, 405, {}), BASE);

  it('groups the answers to one unknown path or method whatever id they carry', () => {
    expect(at('DELETE', '/pets/42')).toBe('/pets/{petId}');
    expect(at('GET', '/pets/42/photos')).toBe('/pets/{n}/photos');
    expect(at('GET', '/nothing-here')).toBe('/nothing-here');
  });
});
