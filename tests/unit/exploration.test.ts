// The stateful exploration (FUZZ-03) without a server: how one answer is judged, how a fixed sequence shrinks,
// what the fixed sequences cover whatever the seed, and how a failure reads as a replay script.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../helpers/http/exchange.js';
import { parseJson, stringifyJson } from '../../helpers/json.js';
import { judgeAnswer, type Expectation } from '../../helpers/explore/judge.js';
import { CreatePet, CreateTogether, FetchPet, FIXED_SEQUENCES, GENERATED_COMMANDS, ListPets, NAME_POOL, type ExploreModel } from '../../helpers/explore/commands.js';
import { withoutRuns, type SequenceFailure } from '../../helpers/explore/explore.js';
import { commandLines, curlLine, replayScript } from '../../helpers/explore/script.js';
import { StoreModel } from '../../helpers/model/store-model.js';
import { EXCHANGE_INVARIANTS, invariantFindings } from '../../helpers/judge/invariants.js';
import { getRule } from '../../helpers/spec/catalog.js';
import { PAGE_SIZE, PET_STATUSES } from '../../helpers/spec/facts.js';

const BASE = 'http://127.0.0.1:9/v1';
const T0 = Date.parse('2026-01-01T00:00:00Z');
const RATE_HEADERS = { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '200', 'x-ratelimit-reset': String(T0 / 1000 + 30) };

/** One recorded exchange with the key, answered in seq order, each sent after the one before it was answered. */
function exchange(seq: number, method: string, path: string, status: number, body: unknown, sent?: unknown): Exchange {
  const text = stringifyJson(body);
  return {
    seq, sentAfter: seq - 1, startedAt: new Date(T0 + seq * 10).toISOString(), durationMs: 5,
    request: { method, url: `${BASE}${path}`, headers: { authorization: 'Bearer $PETSTORE_API_KEY' }, auth: 'key', ...(sent === undefined ? {} : { body: stringifyJson(sent) }) },
    response: { status, headers: { 'content-type': 'application/json', date: new Date(T0 + seq * 10).toUTCString(), ...RATE_HEADERS }, rawBody: text, json: parseJson(text), truncated: false },
  };
}

const newPet = (name: string, status?: string) => ({ name, categoryId: 7n, ...(status ? { status } : {}) });
const pet = (id: number, name: string, status?: string) => ({ id, ...newPet(name, status) });

/** What judgeAnswer finds on the last of `exchanges`, with the model of all of them. */
function rulesBroken(exchanges: readonly Exchange[], expect: Expectation): string[] {
  const model = StoreModel.of(exchanges, BASE, 5_000);
  return judgeAnswer(exchanges.at(-1)!, expect, model).map((finding) => finding.rule);
}

describe('one answer of the exploration, judged as it comes', () => {
  it('accepts a 201 that echoes the NewPet, and a 400 Error for a name the server refuses', () => {
    const sent = newPet('rex', 'sold');
    expect(rulesBroken([exchange(1, 'POST', '/pets', 201, pet(1, 'rex', 'sold'), sent)], { operation: 'createPet', sent })).toEqual([]);
    const refused = exchange(1, 'POST', '/pets', 400, { code: 'taken', message: 'name has already been taken', status: 400 }, sent);
    expect(rulesBroken([refused], { operation: 'createPet', sent })).toEqual([]);
  });

  it('names CREATE-01 for a valid NewPet answered 409, CREATE-03 for an echo that differs, CREATE-04 for an id given twice', () => {
    const sent = newPet('rex', 'sold');
    const conflict = exchange(1, 'POST', '/pets', 409, { code: 'conflict', message: 'exists', status: 409 }, sent);
    expect(rulesBroken([conflict], { operation: 'createPet', sent })).toEqual(['CREATE-01']);
    const first = exchange(1, 'POST', '/pets', 201, pet(1, 'rex', 'sold'), sent);
    const again = newPet('rex', 'pending');
    // find_or_create_by: the earlier pet, unchanged and under its own id.
    expect(rulesBroken([first, exchange(2, 'POST', '/pets', 201, pet(1, 'rex', 'sold'), again)], { operation: 'createPet', sent: again })).toEqual(['CREATE-03', 'CREATE-04']);
  });

  it('puts the run-wide invariants first: a 500 is ERR-04 before it is CREATE-01', () => {
    const sent = newPet('rex');
    const crashed = exchange(1, 'POST', '/pets', 500, { code: 'internal', message: 'IntegrityError', status: 500 }, sent);
    expect(rulesBroken([crashed], { operation: 'createPet', sent })).toEqual(['ERR-04', 'CREATE-01']);
    expect(invariantFindings(crashed).map((finding) => finding.rule)).toEqual(['ERR-04']);
  });

  it('holds a page to the model: CONS-06 for a pet of the run a read had shown, missing from a page with room', () => {
    const sent = newPet('rex', 'sold');
    const history = [exchange(1, 'POST', '/pets', 201, pet(1, 'rex', 'sold'), sent), exchange(2, 'GET', '/pets/1', 200, pet(1, 'rex', 'sold'))];
    expect(rulesBroken([...history, exchange(3, 'GET', '/pets?status=sold&limit=100', 200, [pet(9, 'other', 'sold')])], { operation: 'listPets' })).toEqual(['CONS-06']);
    expect(rulesBroken([...history, exchange(3, 'GET', '/pets?status=sold&limit=100', 200, [pet(1, 'rex', 'sold')])], { operation: 'listPets' })).toEqual([]);
  });

  it('tolerates a 404 for a pet of the run no read has shown yet (--read-lag), and names CONS-09 once a read had shown it', () => {
    const sent = newPet('rex');
    const write = exchange(1, 'POST', '/pets', 201, pet(1, 'rex'), sent);
    const notFound = (seq: number) => exchange(seq, 'GET', '/pets/1', 404, { code: 'not_found', message: 'no pet', status: 404 });
    expect(rulesBroken([write, notFound(2)], { operation: 'getPet', known: true })).toEqual([]);
    expect(rulesBroken([write, exchange(2, 'GET', '/pets/1', 200, pet(1, 'rex')), notFound(3)], { operation: 'getPet', known: true })).toEqual(['CONS-09']);
  });

  it('takes a 200 or a 404 for an edge id, and names FETCH-02 and CONS-10 for a 200 that is no Pet', () => {
    expect(rulesBroken([exchange(1, 'GET', '/pets/0', 200, pet(0, 'zero'))], { operation: 'getPet', known: false })).toEqual([]);
    expect(rulesBroken([exchange(1, 'GET', '/pets/-9223372036854775808', 200, {})], { operation: 'getPet', known: false })).toEqual(['FETCH-02', 'CONS-10']);
  });
});

describe('the invariants one exchange is judged by', () => {
  it('are each owned by one MUST rule of the area that judges them over the whole run', () => {
    const owners = EXCHANGE_INVARIANTS.map((invariant) => getRule(invariant.rule));
    expect(new Set(owners.map((rule) => rule.id)).size).toBe(owners.length);
    expect(owners.filter((rule) => rule.level !== 'MUST' || !['errors', 'ratelimit'].includes(rule.area)).map((rule) => rule.id)).toEqual([]);
  });

  it('hold on an answer that keeps them all, and each names what it saw on one that does not', () => {
    expect(invariantFindings(exchange(1, 'GET', '/pets', 200, []))).toEqual([]);
    const bare = exchange(1, 'GET', '/pets/9', 404, 'no such pet');
    const broken = { ...bare, response: { ...bare.response!, headers: { 'content-type': 'text/plain' }, json: undefined } };
    expect(invariantFindings(broken).map((finding) => `${finding.rule}: ${finding.seen}`)).toEqual([
      'ERR-01: content type text/plain',
      expect.stringMatching(/^ERR-02: a body that is not JSON/),
      'RATE-01: no X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    ]);
  });
});

describe('a page the sequence lists', () => {
  it('adds the int64 ids it shows, exact, to the pets a later fetch may read; not a fractional id, a string or one it created', async () => {
    const page = [{ id: 2n ** 53n + 1n, name: 'a' }, { id: 5, name: 'b' }, { id: 1.5, name: 'c' }, { id: '6', name: 'd' }, { name: 'e' }, { id: 7, name: 'own' }];
    const target = {
      namePrefix: 'p', broken: false,
      leastHeldStatus: () => 'sold',
      edgeId: () => undefined,
      perform: async () => [exchange(1, 'GET', '/pets?limit=100', 200, page)],
    };
    const model: ExploreModel = { created: [{ label: 'own', id: '7', sent: newPet('own') }], listed: [], budget: { requests: 10, pets: 3, whenSpent: 'skip' }, fetchesAllowed: true, ended: false };
    await new ListPets({ limit: 100 }).run(model, target);
    expect(model.listed).toEqual([String(2n ** 53n + 1n), '5']);
  });
});

describe('a fixed sequence shrinks', () => {
  it('by leaving out runs of commands, halves first, never the last command', () => {
    expect(withoutRuns(1)).toEqual([]);
    expect(withoutRuns(5)).toEqual([[2, 3, 4], [0, 1, 4], [1, 2, 3, 4], [0, 2, 3, 4], [0, 1, 3, 4], [0, 1, 2, 4]]);
    for (const candidate of withoutRuns(7)) expect(candidate.at(-1)).toBe(6);
  });
});

describe('the fixed sequences', () => {
  const commands = FIXED_SEQUENCES.flatMap((sequence) => sequence.commands());
  const creates = [...commands.filter((command) => command instanceof CreatePet).map((command) => (command as CreatePet).spec),
    ...commands.filter((command) => command instanceof CreateTogether).flatMap((command) => (command as CreateTogether).specs)];

  it('cover every class the generated commands draw from, so that no verdict hangs on a seed', () => {
    expect(creates.some((spec) => spec.status === undefined) && creates.some((spec) => spec.status !== undefined)).toBe(true);
    const poolNames = creates.flatMap((spec) => ('pool' in spec.name ? [spec.name.pool] : []));
    expect(poolNames.length).toBeGreaterThan(new Set(poolNames).size);
    expect(commands.some((command) => command instanceof CreateTogether)).toBe(true);
    const limits = commands.filter((command) => command instanceof ListPets).map((command) => (command as ListPets).spec.limit);
    expect(limits).toEqual(expect.arrayContaining([undefined, PAGE_SIZE.min, PAGE_SIZE.max]));
    const targets = commands.filter((command) => command instanceof FetchPet).map((command) => Object.keys((command as FetchPet).target)[0]);
    expect(new Set(targets)).toEqual(new Set(['label', 'known', 'edge']));
  });

  it('repeat a name only within a sequence: every create takes its name from the pool of the attempt', () => {
    expect(creates.every((spec) => 'pool' in spec.name && spec.name.pool < NAME_POOL.length)).toBe(true);
  });
});

describe('the generated commands', () => {
  it('draw names that repeat, every limit class, every status class and every kind of fetch', () => {
    const drawn = fc.sample(fc.oneof(...GENERATED_COMMANDS), { seed: 5, numRuns: 400 }).map(String);
    expect(drawn.filter((line) => line.includes(`name "${NAME_POOL[0]}"`)).length).toBeGreaterThan(20);
    for (const limit of ['with no limit', 'limit 1,', 'limit 100,']) expect(drawn.some((line) => line.includes(limit))).toBe(true);
    for (const status of PET_STATUSES) expect(drawn.some((line) => line.includes(`filtered by status ${status}`))).toBe(true);
    expect(drawn.some((line) => line.startsWith('create together'))).toBe(true);
    expect(drawn.some((line) => line.includes('the int64-min id'))).toBe(true);
  });
});

describe('a failing sequence, as the report prints it', () => {
  const write = exchange(1, 'POST', '/pets', 201, pet(56, 'rex', 'sold'), newPet('rex', 'sold'));
  const together = [exchange(2, 'POST', '/pets', 201, pet(57, 'fido'), newPet('fido')), exchange(3, 'POST', '/pets', 500, { code: 'x', message: 'y', status: 500 }, newPet('fido'))];
  const failure: SequenceFailure = {
    lane: 'repeated-name', about: 'a name written twice', seed: -12, path: '0:2',
    finding: { rule: 'ERR-04', expected: 'a status below 500', seen: 'status 500', exchanges: [together[1]!] }, alsoBroken: ['CREATE-01'],
    executed: [{ command: 'create a: name "rex"', exchanges: [write] }, { command: 'create together [c; d]', exchanges: together }],
    firstLength: 5, attempts: 3,
  };

  it('numbers the commands with what each was answered', () => {
    expect(commandLines(failure.executed)).toEqual(['1. create a: name "rex" → 201 id 56', '2. create together [c; d] → 201 id 57, 500']);
  });

  it('gives one curl line per command, requests in flight together joined by &, the key left as $PETSTORE_API_KEY', () => {
    const script = replayScript(failure, 4242, 'npx petstore-conformance --only FUZZ-03 --seed 4242');
    const curls = script.split('\n').filter((line) => line.startsWith('curl '));
    expect(curls).toHaveLength(2);
    expect(curls[1]).toBe(curlLine(together));
    expect(curls[1]).toMatch(/^curl .* & curl .* & wait$/);
    expect(script).toContain('seed 4242');
    expect(script).toContain('--only FUZZ-03 --seed 4242');
    expect(script).toContain('breaks ERR-04');
    expect(curls.every((line) => line.includes('"Authorization: Bearer $PETSTORE_API_KEY"'))).toBe(true);
  });
});
