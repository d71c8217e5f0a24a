// POST /pets (createPet) under property-based fuzzing: generated invalid bodies must get 400, generated
// valid ones 201 and an exact echo; and the stateful exploration (FUZZ-03): sequences of creates, lists and
// fetches judged answer by answer by the model of the store and the run-wide invariants. --seed replays a
// run; every failure is shrunk and can be replayed.
import type fc from 'fast-check';
import {
  allocateRuns, invalidBodies, MUTATIONS, newPet, seedFor, VALID_SHAPES, type InvalidBody, type NewPetBody,
} from '../helpers/fuzz/arbitraries.js';
import { check, suite, findingsApart, type CheckContext, type CheckOptions } from '../helpers/judge/check.js';
import { expectSchema, expectStatus, expectThat } from '../helpers/judge/expect.js';
import { sendGenerated, shrinkFirstFailure, type FuzzFailure, type Probe } from '../helpers/fuzz/property.js';
import { isJsonObject, jsonEquals, parseJson, stringifyJson } from '../helpers/json.js';
import type { Exchange } from '../helpers/http/exchange.js';
import { operationOf } from '../helpers/judge/operations.js';
import type { ViolationFacts } from '../helpers/judge/outcome.js';
import { mayRefuseNewPet, show, petFieldDifferences, type PetField } from '../helpers/fixtures/pet-fields.js';
import { petName, recordIfCreated } from '../helpers/fixtures/pets.js';
import { explore, lanesOf, type SequenceFailure } from '../helpers/explore/explore.js';
import { commandLines, replayScript } from '../helpers/explore/script.js';

// Each shrink step is one more request (and, on a server that wrongly accepts, one more pet): enough steps
// to strip a body to what matters, few enough that a badly broken server costs a bounded number.
const SHRINK_STEPS_PER_FAILURE = 25;
const SHRINK_STEPS_PER_RULE = 60;

/** What one property needs to turn its failure into a counterexample a vendor can replay. */
interface Property<T> {
  ctx: CheckContext;
  /** The option that sets how many runs this rule sends. */
  runsOption: '--fuzz-runs' | '--fuzz-valid-runs';
  /** The exact body text a value was sent as. */
  textOf(value: T): string;
  /** The named mutation or shape, as the failure shows it. */
  labelOf(value: T): string;
}

/** One kind's property (a mutation or a valid shape) with its share of the run. */
interface Kind<T> {
  property: Property<T>;
  arbitrary: fc.Arbitrary<T>;
  /** Where the kind stands in its rule's list: it picks the kind's own seed. */
  index: number;
  runs: number;
  probe: Probe<T>;
}

/**
 * Sends every kind's generated runs together, then shrinks each kind's first failure in turn within the
 * rule's shrink budget; each failure is recorded as a violation carrying its counterexample.
 */
async function fuzzKinds<T>(ctx: CheckContext, kinds: readonly Kind<T>[]): Promise<void> {
  const shrinkBudget = { left: SHRINK_STEPS_PER_RULE };
  const budgetOf = (kind: Kind<T>) => ({ seed: seedFor(ctx.config.seed, kind.index), runs: kind.runs, maxShrinks: SHRINK_STEPS_PER_FAILURE });
  const announce = () => ctx.client.announceProgress('fuzzing', ['generated body sent', 'generated bodies sent']);
  const sent = await Promise.all(kinds.map((kind) => sendGenerated(kind.arbitrary, budgetOf(kind), kind.probe, announce)));
  for (const [position, kind] of kinds.entries()) {
    const runs = sent[position]!;
    const budget = { ...runs.budget, maxShrinks: Math.min(SHRINK_STEPS_PER_FAILURE, shrinkBudget.left) };
    const failure = await shrinkFirstFailure({ ...runs, budget }, kind.probe);
    if (!failure) continue;
    shrinkBudget.left -= failure.shrinkSteps;
    ctx.violation(counterexample(kind.property, failure));
  }
}

/** The command line that replays one fuzzing rule of this run: the same seed, the same count. */
function replayLine(ctx: CheckContext, runsOption: string, runs: number): string {
  // The bundled server's port dies with the run: its replay line starts a new one instead.
  const target = ctx.config.embedded ? '' : `--base-url ${ctx.config.baseUrl} `;
  return `npx petstore-conformance ${target}--only ${ctx.rule.id} --seed ${ctx.config.seed} ${runsOption} ${runs}`;
}

/** A shrunk failure as the finding it is: the probe's own, restated with the seed and the counterexample. */
function counterexample<T>(property: Property<T>, failure: FuzzFailure<T>): ViolationFacts {
  const { ctx, runsOption } = property;
  const { seed } = ctx.config;
  const runs = runsOption === '--fuzz-runs' ? ctx.config.fuzzRuns : ctx.config.fuzzValidRuns;
  const replay = replayLine(ctx, runsOption, runs);
  const shrunk = failure.shrinkSteps === 0 ? 'not shrunk' : `shrunk in ${failure.shrinkSteps} step(s)`;
  return {
    ...failure.finding,
    note: `seed ${seed}, ${shrunk}`,
    counterexample: { seed, path: failure.path, mutation: property.labelOf(failure.value), body: property.textOf(failure.value), replay },
  };
}

/**
 * A failing sequence as a finding: the command whose answer broke a statement, the statement's own rule (which
 * fails too, through the whole-run judging), and the shrunk sequence with its replay script.
 */
function sequenceViolation(ctx: CheckContext, failure: SequenceFailure): ViolationFacts {
  const { seed, exploreRuns } = ctx.config;
  const replay = replayLine(ctx, '--explore-runs', exploreRuns);
  const last = failure.executed.at(-1)!;
  const shrunk = failure.attempts === 0 ? 'not shrunk' : `shrunk from ${failure.firstLength} to ${failure.executed.length} command(s) in ${failure.attempts} attempt(s)`;
  const also = failure.alsoBroken.length > 0 ? `; the same answer also breaks ${failure.alsoBroken.join(', ')}` : '';
  const commands = commandLines(failure.executed);
  return {
    what: `sequence ${failure.lane}, command ${failure.executed.length} (${last.command}) breaks ${failure.finding.rule}`,
    expected: failure.finding.expected,
    seen: failure.finding.seen,
    exchanges: failure.finding.exchanges,
    note: `seed ${seed}, ${shrunk}${also}`,
    counterexample: {
      seed, path: failure.path, mutation: `sequence ${failure.lane}`, body: commands.join('\n'), replay, script: replayScript(failure, seed, replay),
      breaks: [failure.finding.rule, ...failure.alsoBroken],
    },
  };
}

/**
 * A probe from a part of the check that records its findings: the part runs on a context whose findings are
 * kept apart, and the probe returns the first (each part ends at its first finding), or undefined.
 */
function probeOf<T>(ctx: CheckContext, part: (part: CheckContext, value: T) => Promise<void>): Probe<T> {
  return async (value) => {
    const apart = findingsApart(ctx);
    await part(apart.ctx, value);
    return apart.findings[0];
  };
}

/** Sends one body to createPet; a pet a server wrongly creates is still put on record. */
async function post(ctx: CheckContext, text: string) {
  const exchange = await ctx.client.send({ method: 'POST', path: '/pets', body: text });
  recordIfCreated(ctx, exchange);
  return exchange;
}

/** 400 with an Error body whose status is 400: never 2xx, never 5xx, never another 4xx such as 422. */
async function expectRejected(ctx: CheckContext, body: InvalidBody): Promise<void> {
  const exchange = await post(ctx, body.text);
  const context = `${body.mutation} (${body.detail})`;
  if (!expectStatus(ctx, exchange, [400], context)) return;
  const error = expectSchema(ctx, exchange, 'Error', context) as { status?: unknown } | undefined;
  if (!error) return;
  expectThat(ctx, jsonEquals(error.status, 400), { what: context, expected: 'an Error whose status is 400', seen: show(error.status), exchanges: [exchange] });
}

/** 201 with a Pet that carries exactly the name, categoryId and status sent (int64 compared exactly). */
async function expectEchoed(ctx: CheckContext, shape: string, pet: NewPetBody): Promise<void> {
  const exchange = await post(ctx, stringifyJson(pet));
  const context = `valid NewPet (${shape})`;
  // A limit of the server's own (unknown members, a long name, control characters, a name sent twice: generated
  // names may repeat) may refuse the body, as CREATE-03 and CREATE-17 allow too.
  const limit = mayRefuseNewPet(pet, { nameRepeated: exchange.response?.status === 400 && nameSentElsewhere(ctx, pet.name, exchange) });
  if (limit !== undefined && exchange.response?.status === 400) {
    expectSchema(ctx, exchange, 'Error', `${context}, refused for ${limit}`);
    return;
  }
  if (!expectStatus(ctx, exchange, limit ? [201, 400] : [201], context)) return;
  const created = expectSchema(ctx, exchange, 'Pet', context);
  if (created === undefined) return;
  // Without a status sent, the Pet schema alone decides: absent or a PetStatus (the spec states no default).
  const fields: PetField[] = pet.status === undefined ? ['name', 'categoryId'] : ['name', 'categoryId', 'status'];
  const differences = petFieldDifferences(pet, created, fields);
  expectThat(ctx, differences.length === 0, { what: context, expected: `the Pet to echo ${fields.join(', ')} as sent`, seen: differences.join('; '), exchanges: [exchange] });
}

/** Whether another creation of the run sent this name: a server may keep names unique and refuse the second. */
function nameSentElsewhere(ctx: CheckContext, name: string, exchange: Exchange): boolean {
  return ctx.client.exchanges.some((other) => other !== exchange && operationOf(other, ctx.config.baseUrl) === 'createPet' && sentName(other) === name);
}

function sentName(exchange: Exchange): unknown {
  try {
    const body = parseJson(exchange.request.body ?? '');
    return isJsonObject(body) ? body.name : undefined;
  } catch {
    return undefined;
  }
}

function bodies(count: number, kind: 'valid' | 'invalid'): string {
  return `${count} generated ${kind} ${count === 1 ? 'body' : 'bodies'}`;
}

/** Names of created pets carry the run's tag and f, what follows is generated: room for a short plain name. */
function namePrefix(ctx: CheckContext): string {
  return petName(ctx.config.runId, 'f');
}

// The three rules send their own bodies and judge only their own answers: they run together.
const TOGETHER: CheckOptions = { concurrent: true };
/** The areas whose answers the exploration starts from: it begins once they have ended, beside FUZZ-01 and FUZZ-02. */
const EXPLORE_KNOWS = ['listing', 'creating'] as const;

export default suite('fuzzing', [
  check('FUZZ-01', async (ctx) => {
    const { seed, fuzzRuns } = ctx.config;
    if (fuzzRuns === 0) ctx.skip('--fuzz-runs 0 sends no invalid bodies; give it a positive count');
    const runs = allocateRuns(fuzzRuns, MUTATIONS.map((mutation) => mutation.weight));
    const property: Property<InvalidBody> = {
      ctx, runsOption: '--fuzz-runs', textOf: (body) => body.text, labelOf: (body) => `${body.mutation}: ${body.detail}`,
    };
    const kinds = MUTATIONS.flatMap((mutation, index): Kind<InvalidBody>[] => runs[index] === 0 ? [] : [{
      property, arbitrary: invalidBodies(namePrefix(ctx), mutation), index, runs: runs[index]!, probe: probeOf(ctx, expectRejected),
    }]);
    await fuzzKinds(ctx, kinds);
    const tried = MUTATIONS.filter((_, index) => runs[index]! > 0).length;
    ctx.observe(`seed ${seed}: ${bodies(fuzzRuns, 'invalid')} over ${tried} of ${MUTATIONS.length} mutations (replay with --seed ${seed})`);
  }, TOGETHER),

  check('FUZZ-02', async (ctx) => {
    const { seed, fuzzValidRuns } = ctx.config;
    if (fuzzValidRuns === 0) ctx.skip('--fuzz-valid-runs 0 sends no valid bodies; give it a positive count');
    const runs = allocateRuns(fuzzValidRuns, VALID_SHAPES.map(() => 1));
    const kinds = VALID_SHAPES.flatMap((shape, index): Kind<NewPetBody>[] => runs[index] === 0 ? [] : [{
      property: {
        ctx, runsOption: '--fuzz-valid-runs', textOf: (pet) => stringifyJson(pet), labelOf: () => `valid NewPet, ${shape.shape}: ${shape.about}`,
      },
      arbitrary: newPet(namePrefix(ctx), shape),
      // Offset past the mutations, so that no valid shape shares a seed with a mutation of FUZZ-01.
      index: MUTATIONS.length + index,
      runs: runs[index]!,
      probe: probeOf(ctx, (part, pet: NewPetBody) => expectEchoed(part, shape.shape, pet)),
    }]);
    await fuzzKinds(ctx, kinds);
    ctx.observe(`seed ${seed}: ${bodies(fuzzValidRuns, 'valid')}, each creating a pet (replay with --seed ${seed})`);
  }, TOGETHER),

  // Once the listing and creating areas have ended, beside the two above: its model starts from every pet those areas
  // were shown, all of it whatever their timing. Every other answer is left out of what it knows, as it may still be
  // coming in: to its model, the pets the others create are pets of a shared store.
  check('FUZZ-03', async (ctx) => {
    const { seed, exploreRuns, readOnly } = ctx.config;
    const outcome = await explore(ctx, lanesOf(seed, exploreRuns, readOnly), EXPLORE_KNOWS);
    for (const failure of outcome.failures) ctx.violation(sequenceViolation(ctx, failure));
    if (outcome.stopped) throw outcome.stopped;
    const ran = (generated: boolean) => outcome.lanes.filter((lane) => lane.generated === generated);
    const sum = (lanes: typeof outcome.lanes, key: 'commands' | 'requests') => lanes.reduce((total, lane) => total + lane[key], 0);
    ctx.observe(`seed ${seed}: ${ran(false).length} fixed sequence(s), ${sum(ran(false), 'commands')} command(s); ${ran(true).length} generated, ${sum(ran(true), 'commands')} command(s); ${sum(outcome.lanes, 'requests')} request(s) before any shrinking${readOnly ? '; --read-only: no create was sent' : ''} (replay with --seed ${seed})`);
  }, { concurrent: true, after: EXPLORE_KNOWS }),
]);
