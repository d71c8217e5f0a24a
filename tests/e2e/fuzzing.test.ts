// The fuzzing rules (FUZZ-01, FUZZ-02): the arbitraries stay true to the NewPet schema, every fuzz defect that
// says which kind of body it mishandles is caught whatever the seed, the conforming server passes at 1× and 10× the
// default run count, failures carry a replayable counterexample, and one --seed sends the same bodies.
//
// The CLI tests run the built dist/:  npm run build && npx vitest run tests/e2e/fuzzing.test.ts
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import {
  allocateRuns, invalidBodies, MUTATIONS, newPet, VALID_SHAPES, type InvalidBody, type NewPetBody,
} from '../../helpers/fuzz/arbitraries.js';
import { jsonEquals, parseJson, stringifyJson, type Json } from '../../helpers/json.js';
import type { Counterexample, ViolationFacts } from '../../helpers/judge/outcome.js';
import { petFieldDifferences } from '../../helpers/fixtures/pet-fields.js';
import { validateSchema } from '../../helpers/judge/schema.js';
import { DEFAULT_OPTIONS } from '../../cli/resolve-options.js';
import { generatedValues, sendGenerated, shrinkFirstFailure, type FuzzBudget, type Probe } from '../../helpers/fuzz/property.js';
import type { Report } from '../../cli/reports/report.js';
import { defectById, DEFECTS, type DefectId } from '../defects/catalog.js';
import { createReferenceApp } from '../../server/reference-server.js';
import { withSwitches } from '../support/switches.js';
import { ruleIds } from '../support/cli.js';
import { certifyInProcess, runInProcess } from '../support/in-process.js';
import { withChildSlot } from '../support/harness.js';
import { runTag } from '../../helpers/fixtures/names.js';

/** The runs sent together, then the first failure shrunk, as the fuzzing checks compose the two. */
async function fuzzForViolation<T>(arbitrary: fc.Arbitrary<T>, budget: FuzzBudget, probe: Probe<T>) {
  return shrinkFirstFailure(await sendGenerated(arbitrary, budget, probe), probe);
}

const PREFIX = 'conformance-test-fuzz-';
const KEY = 'fuzz-test-key-7d1e';
// In-process injections are not the subject here: a limit no test reaches keeps pacing out of the way.
const NO_LIMIT = { rateLimit: { limit: 1_000_000_000, windowMs: 60_000 } };
const FUZZ_RULES = ['FUZZ-01', 'FUZZ-02'];
// A CLI test first waits for one of the machine-wide child slots (shared with the mutation harness and
// the gallery), then runs for seconds: the timeout covers the wait.
const CLI_TEST_TIMEOUT_MS = 10 * 60_000;
// What these runs prove is the fuzzing the CLI's run does, not its process: they run in this one, and
// write report.json alone, the one report read.
const RUN = { timeoutMs: 120_000 };
// The body fuzzing alone: the stateful exploration (FUZZ-03) has its own file, tests/e2e/exploration.test.ts.
const FUZZING = ['--only', 'FUZZ-01,FUZZ-02', '--reporter', 'json'];

/** Each fuzz defect's mutation (FUZZ-01) or valid shape (FUZZ-02) every body of which it mishandles, where its catalog entry names one. */
const TRIGGERS = DEFECTS.flatMap(({ id }) => {
  const { mutation, shape } = defectById(id).mishandlesEvery ?? {};
  return [...(mutation ? [{ defect: id, mutation }] : []), ...(shape ? [{ defect: id, shape }] : [])];
});

function mutationNamed(name: string) {
  const found = MUTATIONS.find((mutation) => mutation.name === name);
  if (!found) throw new Error(`no mutation ${name}`);
  return found;
}

function shapeNamed(name: string) {
  const found = VALID_SHAPES.find((shape) => shape.shape === name);
  if (!found) throw new Error(`no valid shape ${name}`);
  return found;
}

/** Bodies as many different seeds would start a run with: one value per seed, as a one-run property sends. */
function acrossSeeds<T>(arbitrary: fc.Arbitrary<T>, seeds: number): T[] {
  return Array.from({ length: seeds }, (_, seed) => fc.sample(arbitrary, { seed: seed * 7919 + 1, numRuns: 1 })[0]!);
}

function tryParse(text: string): { json?: Json } {
  try {
    return { json: parseJson(text) };
  } catch {
    return {};
  }
}

/** The reference server in-process (fastify inject): thousands of bodies in a second, no port. */
async function inject(app: FastifyInstance, text: string): Promise<{ status: number; json?: Json }> {
  const response = await app.inject({
    method: 'POST', url: '/v1/pets', payload: text,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  });
  return { status: response.statusCode, ...tryParse(response.body) };
}

function answeredAsFuzz01Requires(answer: { status: number; json?: Json }): boolean {
  return answer.status === 400 && validateSchema('Error', answer.json).length === 0 && jsonEquals((answer.json as { status?: Json }).status, 400);
}

/**
 * Whether FUZZ-02 may pass this answer in some run: as it requires, or a 400 Error, which the check excuses when the
 * server may refuse the body for a limit of its own (mayRefuseNewPet): a long name, control characters, or a name
 * another body of the run was sent with, and generated names may repeat. A refusal is never a catch every seed makes.
 */
function mayPassFuzz02(pet: NewPetBody, answer: { status: number; json?: Json }): boolean {
  const refusedWithError = answer.status === 400 && validateSchema('Error', answer.json).length === 0;
  return refusedWithError || answeredAsFuzz02Requires(pet, answer);
}

function answeredAsFuzz02Requires(pet: NewPetBody, answer: { status: number; json?: Json }): boolean {
  const fields = pet.status === undefined ? ['name', 'categoryId'] as const : ['name', 'categoryId', 'status'] as const;
  return answer.status === 201 && validateSchema('Pet', answer.json).length === 0 && petFieldDifferences(pet, answer.json, [...fields]).length === 0;
}

describe('the arbitraries', () => {
  it('generate only valid NewPets, by spec/openapi.yaml, every name starting with the run prefix', () => {
    for (const shape of VALID_SHAPES) {
      for (const pet of fc.sample(newPet(PREFIX, shape), { seed: 11, numRuns: 300 })) {
        const sent = parseJson(stringifyJson(pet));
        expect(validateSchema('NewPet', sent), `${shape.shape}: ${stringifyJson(pet)}`).toEqual([]);
        expect(pet.name.startsWith(PREFIX)).toBe(true);
      }
    }
  });

  it('generate only bodies that are not a valid NewPet: not JSON, or failing the schema', () => {
    for (const mutation of MUTATIONS) {
      for (const body of fc.sample(invalidBodies(PREFIX, mutation), { seed: 12, numRuns: 300 })) {
        const { json } = tryParse(body.text);
        if (json !== undefined) expect(validateSchema('NewPet', json), `${mutation.name}: ${body.text}`).not.toEqual([]);
      }
    }
  });

  it('keep categoryId exact beyond 2^53 and name the shape whose values no double holds', () => {
    for (const pet of fc.sample(newPet(PREFIX, shapeNamed('int64-beyond-double')), { seed: 13, numRuns: 200 })) {
      expect(BigInt(Number(pet.categoryId))).not.toBe(pet.categoryId);
      expect(stringifyJson(pet)).toContain(`"categoryId":${pet.categoryId}`);
    }
  });

  it('give every mutation and every valid shape a run at the default counts, and spend exactly the count', () => {
    const invalid = allocateRuns(DEFAULT_OPTIONS.fuzzRuns, MUTATIONS.map((mutation) => mutation.weight));
    const valid = allocateRuns(DEFAULT_OPTIONS.fuzzValidRuns, VALID_SHAPES.map(() => 1));
    expect(invalid.every((runs) => runs >= 1)).toBe(true);
    expect(valid.every((runs) => runs >= 1)).toBe(true);
    for (const total of [0, 1, 5, 13, 14, 100, 1000, 1001]) {
      expect(allocateRuns(total, MUTATIONS.map((mutation) => mutation.weight)).reduce((a, b) => a + b, 0)).toBe(total);
    }
  });

  it('are deterministic: one seed gives the same bodies, another seed others', () => {
    const sample = (seed: number) => MUTATIONS.map((mutation) => fc.sample(invalidBodies(PREFIX, mutation), { seed, numRuns: 5 }));
    expect(sample(42)).toEqual(sample(42));
    expect(sample(42)).not.toEqual(sample(43));
  });
});

describe('the reference server in-process, against thousands of generated bodies', () => {
  it('answers every invalid body 400 with an Error whose status is 400, and every valid one 201 with an exact echo', async () => {
    const app = createReferenceApp({ apiKeys: [KEY], ...NO_LIMIT });
    for (const mutation of MUTATIONS) {
      for (const body of fc.sample(invalidBodies(PREFIX, mutation), { seed: 21, numRuns: 200 })) {
        const answer = await inject(app, body.text);
        expect(answeredAsFuzz01Requires(answer), `${body.mutation} (${body.detail}): ${body.text} → ${answer.status}`).toBe(true);
      }
    }
    for (const shape of VALID_SHAPES) {
      for (const pet of fc.sample(newPet(PREFIX, shape), { seed: 22, numRuns: 100 })) {
        const answer = await inject(app, stringifyJson(pet));
        expect(answeredAsFuzz02Requires(pet, answer), `${shape.shape}: ${stringifyJson(pet)} → ${answer.status} ${stringifyJson(answer.json ?? null)}`).toBe(true);
      }
    }
    await app.close();
  });

  // Every mutation and shape gets at least one run at the default counts (tested above), so a defect that
  // mishandles every body of one kind is caught by any seed: that is what these cases prove, over 300 seeds.
  for (const { defect, mutation, shape } of TRIGGERS) {
    it(`${defect} mishandles every ${mutation ? `${mutation} body` : `valid ${shape} body`}, whatever the seed`, async () => {
      const app = createReferenceApp(withSwitches({ apiKeys: [KEY], defects: [defect], ...NO_LIMIT }));
      if (mutation) {
        for (const body of acrossSeeds<InvalidBody>(invalidBodies(PREFIX, mutationNamed(mutation)), 300)) {
          const answer = await inject(app, body.text);
          expect(answeredAsFuzz01Requires(answer), `${defect} answered ${body.detail} as required: ${body.text}`).toBe(false);
        }
      } else {
        for (const pet of acrossSeeds(newPet(PREFIX, shapeNamed(shape!)), 300)) {
          const answer = await inject(app, stringifyJson(pet));
          expect(mayPassFuzz02(pet, answer), `${defect} answered ${stringifyJson(pet)} as FUZZ-02 may pass: ${answer.status}`).toBe(false);
        }
      }
      await app.close();
    });
  }
});

/** The FUZZ rules a report shows failed, and their counterexamples. */
function fuzzFailures(report: Report | undefined): { failed: string[]; counterexamples: Array<Counterexample & { rule: string; seen?: string }> } {
  const rules = (report?.rules ?? []).filter((rule) => FUZZ_RULES.includes(rule.id));
  return {
    failed: rules.filter((rule) => rule.status === 'failed').map((rule) => rule.id).sort(),
    counterexamples: rules.flatMap((rule) => rule.evidence.flatMap((evidence) => (evidence.counterexample ? [{ rule: rule.id, seen: evidence.seen, ...evidence.counterexample }] : []))),
  };
}

describe('the CLI, fuzzing the reference server', () => {
  it('passes the conforming server at the default run counts, with the seed printed and in report.json', async () => {
    const run = await withChildSlot(() => certifyInProcess({}, FUZZING, RUN));
    expect(run.code, run.stdout).toBe(0);
    expect(ruleIds(run.report, 'passed')).toEqual(FUZZ_RULES);
    const seed = run.report!.options.seed as number;
    expect(Number.isInteger(seed)).toBe(true);
    expect(run.stdout).toContain(`seed ${seed}`);
    const fuzz01 = run.report!.rules.find((rule) => rule.id === 'FUZZ-01')!;
    expect(fuzz01.requests).toBe(DEFAULT_OPTIONS.fuzzRuns);
  }, CLI_TEST_TIMEOUT_MS);

  it('passes the conforming server at ten times the default run counts', async () => {
    const runs = ['--fuzz-runs', String(10 * DEFAULT_OPTIONS.fuzzRuns), '--fuzz-valid-runs', String(10 * DEFAULT_OPTIONS.fuzzValidRuns)];
    const run = await withChildSlot(() => certifyInProcess(NO_LIMIT, [...FUZZING, ...runs], RUN));
    expect(run.code, run.stdout).toBe(0);
    expect(ruleIds(run.report, 'passed')).toEqual(FUZZ_RULES);
    expect(run.report!.created.count).toBe(10 * DEFAULT_OPTIONS.fuzzValidRuns);
  }, CLI_TEST_TIMEOUT_MS);

  it('skips FUZZ-01 and FUZZ-02 with --read-only, which sends no POST, and creates nothing', async () => {
    const run = await withChildSlot(() => certifyInProcess({}, [...FUZZING, '--read-only'], RUN));
    const status = (id: string) => run.report?.rules.find((rule) => rule.id === id)?.status;
    expect([status('FUZZ-01'), status('FUZZ-02')]).toEqual(['skipped', 'skipped']);
    expect(run.report!.created.count).toBe(0);
  }, CLI_TEST_TIMEOUT_MS);
  // Each defect a fuzzing rule names is caught, with a counterexample replayable under the run's seed, by the
  // mutation harness (tests/mutation/defect-runs.ts), whatever seed it draws.
});

/** A reference server that keeps every createPet body it receives, in order. */
function recordingServer(defects: DefectId[]) {
  const bodies: string[] = [];
  let app: FastifyInstance;
  let url = '';
  beforeAll(async () => {
    app = createReferenceApp(withSwitches({ apiKeys: [KEY], defects, ...NO_LIMIT }));
    app.addHook('preHandler', async (request) => {
      if (request.method === 'POST') bodies.push(String(request.body ?? ''));
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => app.close());
  return {
    /** Runs a certification and returns the bodies it sent, with the run's tag (part of every name) made neutral. */
    async run(args: string[]): Promise<{ bodies: string[]; report?: Report }> {
      const from = bodies.length;
      const run = await withChildSlot(() => runInProcess(['--base-url', url, ...args, '--reporter', 'json'], KEY, RUN));
      const tag = runTag(run.report?.runId ?? 'no-report');
      return { bodies: bodies.slice(from).map((body) => body.replaceAll(tag, '<tag>')), report: run.report };
    },
  };
}

describe('runs sent together', () => {
  const arbitrary = fc.integer({ min: 0, max: 10_000 });
  const probe = async (value: number): Promise<ViolationFacts | undefined> => {
    // Answers arrive out of order, as from a target far away.
    await new Promise((resolve) => setTimeout(resolve, value % 7));
    return value > 3_000 ? { what: String(value), expected: 'at most 3000', seen: 'too large' } : undefined;
  };

  it('are the values a one-at-a-time property run tries, in its order', async () => {
    const tried: number[] = [];
    await fc.check(fc.asyncProperty(arbitrary, async (value) => {
      tried.push(value);
      return true;
    }), { seed: 99, numRuns: 40 });
    expect(generatedValues(arbitrary, 99, 40)).toEqual(tried);
  });

  it('shrink to the counterexample a one-at-a-time run finds, and send every run once', async () => {
    const sent: number[] = [];
    const failure = await fuzzForViolation(arbitrary, { seed: 7, runs: 40, maxShrinks: 1_000 }, async (value) => {
      sent.push(value);
      return probe(value);
    });
    const sequential = await fc.check(fc.asyncProperty(arbitrary, async (value) => (await probe(value)) === undefined), { seed: 7, numRuns: 40 });
    expect(failure?.value).toBe(3_001);
    expect(failure?.value).toBe(sequential.counterexample?.[0]);
    expect(failure?.path).toBe(sequential.counterexamplePath);
    expect([...sent.slice(0, 40)].sort()).toEqual([...generatedValues(arbitrary, 7, 40)].sort());
  });
});

describe('a shrink budget', () => {
  // A long string shrinks through a deep tree: walking the whole of it after the budget is spent cost seconds.
  const arbitrary = fc.string({ minLength: 200, maxLength: 300 });
  const probe = async (value: string): Promise<ViolationFacts | undefined> => {
    return value.length > 10 ? { what: `${value.length} characters`, expected: 'at most 10', seen: 'more' } : undefined;
  };

  it('ends shrinking at the step it allows, with the counterexample a run stopped there holds, and no request more', async () => {
    const sent: string[] = [];
    const failure = await fuzzForViolation(arbitrary, { seed: 5, runs: 10, maxShrinks: 3 }, async (value) => {
      sent.push(value);
      return probe(value);
    });
    // What a one-at-a-time run holds once it lets every candidate after the third step pass.
    let steps = 0;
    const stoppedThere = await fc.check(fc.asyncProperty(arbitrary, async (value) => {
      if (steps === 0) {
        steps = 1;
        return (await probe(value)) === undefined;
      }
      if (steps > 3) return true;
      steps += 1;
      return (await probe(value)) === undefined;
    }), { seed: 5, numRuns: 10 });
    expect(failure?.shrinkSteps).toBe(3);
    expect(sent).toHaveLength(10 + 3);
    expect(failure?.value).toBe(stoppedThere.counterexample?.[0]);
    expect(failure?.path).toBe(stoppedThere.counterexamplePath);
  });
});

describe('replaying a seed', () => {
  // A defect, so that shrinking (whose steps depend on the answers) is part of what must repeat.
  const server = recordingServer(['create-status-unchecked']);

  // Bodies go out together and arrive in any order: what must repeat is the multiset, so they are compared sorted.
  const sorted = (bodies: string[]) => [...bodies].sort();
  const neutral = (text: string, report?: Report) => text.replaceAll(runTag(report?.runId ?? 'no-report'), '<tag>');

  it('sends the same bodies for the same --seed, other bodies for another, and the replay line finds the same counterexample', async () => {
    const first = await server.run(['--only', 'fuzzing', '--seed', '1234']);
    const second = await server.run(['--only', 'fuzzing', '--seed', '1234']);
    const other = await server.run(['--only', 'fuzzing', '--seed', '1235']);
    expect(first.bodies.length).toBeGreaterThan(DEFAULT_OPTIONS.fuzzRuns);
    expect(sorted(second.bodies)).toEqual(sorted(first.bodies));
    expect(sorted(other.bodies)).not.toEqual(sorted(first.bodies));
    expect(neutral(fuzzFailures(second.report).counterexamples[0]!.body, second.report)).toBe(neutral(fuzzFailures(first.report).counterexamples[0]!.body, first.report));

    const [example] = fuzzFailures(first.report).counterexamples;
    expect(example?.replay).toBeDefined();
    const replayArgs = example!.replay.split(' ').slice(2);
    const replayed = await server.run(replayArgs);
    const [again] = fuzzFailures(replayed.report).counterexamples;
    expect(neutral(again!.body, replayed.report)).toBe(neutral(example!.body, first.report));
  }, CLI_TEST_TIMEOUT_MS);

  it('sends the same bodies and shrinks to the same counterexample one request at a time as with several in flight', async () => {
    const together = await server.run(['--only', 'fuzzing', '--seed', '4321']);
    const oneByOne = await server.run(['--only', 'fuzzing', '--seed', '4321', '--concurrency', '1']);
    expect(sorted(oneByOne.bodies)).toEqual(sorted(together.bodies));
    // Shrinking takes one answer at a time, in either run: it ends on the same body.
    const failure = (run: { report?: Report }) => fuzzFailures(run.report).counterexamples.map((example) => ({ ...example, body: neutral(example.body, run.report) }));
    expect(failure(oneByOne).map(({ rule, mutation, body, seed }) => ({ rule, mutation, body, seed })))
      .toEqual(failure(together).map(({ rule, mutation, body, seed }) => ({ rule, mutation, body, seed })));
    expect(failure(together).length).toBeGreaterThan(0);
  }, CLI_TEST_TIMEOUT_MS);
});
