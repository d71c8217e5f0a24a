// How the stateful exploration (FUZZ-03) judges one answer the moment it comes: by the run-wide invariants
// (helpers/judge/invariants.ts), by what the command itself may expect of the operation it called, and by
// the statements of the model of the store (helpers/model/statements.ts) on everything the run has seen so
// far. Each finding names the rule whose statement it breaks; the whole-run checks judge the same answer
// again at the end with the same definitions, so a defect fails both FUZZ-03 and that rule.
import type { Exchange } from '../http/exchange.js';
import { petFieldDifferences, show, type PetField } from '../fixtures/pet-fields.js';
import { asBigInt, isJsonObject, type Json } from '../json.js';
import { invariantFindings } from '../judge/invariants.js';
import { preview } from '../judge/expect.js';
import { validateSchema } from '../judge/schema.js';
import { modelFindings } from '../model/statements.js';
import type { StoreModel } from '../model/store-model.js';
import type { NewPetBody } from '../fuzz/arbitraries.js';

/** What a command may expect of the operation one of its requests called. */
export type Expectation =
  | { operation: 'createPet'; sent: NewPetBody }
  | { operation: 'listPets' }
  /** `known`: the pet was created or listed by the same sequence, so it exists (though a read may lag the run's own write). */
  | { operation: 'getPet'; known: boolean };

/** A statement one answer broke, with the rule that owns it. */
export interface AnswerFinding {
  rule: string;
  expected: string;
  seen: string;
  exchanges: Exchange[];
}

/**
 * Everything one answer breaks, in the order a reader fixes it: the run-wide invariants first (a 5xx, a body
 * that is not JSON), then the operation's own promise, then the model of the store. Nothing when it keeps them all.
 */
export function judgeAnswer(exchange: Exchange, expectation: Expectation, model: StoreModel): AnswerFinding[] {
  const invariants = invariantFindings(exchange).map(({ rule, expected, seen }) => ({ rule, expected, seen, exchanges: [exchange] }));
  const operation = operationFindings(exchange, expectation, model).map((finding) => ({ ...finding, exchanges: finding.exchanges ?? [exchange] }));
  const statements = modelFindings(model, exchange).map((finding) => ({ rule: finding.rule, expected: finding.expected, seen: `${finding.kind}: ${finding.example}`, exchanges: finding.exchanges }));
  return [...invariants, ...operation, ...statements];
}

type OperationFinding = Omit<AnswerFinding, 'exchanges'> & { exchanges?: Exchange[] };

function operationFindings(exchange: Exchange, expectation: Expectation, model: StoreModel): OperationFinding[] {
  if (!exchange.response) return [];
  switch (expectation.operation) {
    case 'createPet': return creationFindings(exchange, expectation.sent, model);
    case 'listPets': return listFindings(exchange);
    case 'getPet': return fetchFindings(exchange, expectation.known);
  }
}

/**
 * A valid NewPet is answered 201 with a Pet that echoes it and has an id of its own; or 400 with an Error, since a
 * server may refuse some names (no rule forbids a length or a character set, and a repeated name is a name).
 */
function creationFindings(exchange: Exchange, sent: NewPetBody, model: StoreModel): OperationFinding[] {
  const { status, json, rawBody } = exchange.response!;
  if (status === 400) return [];
  if (status !== 201) {
    return [{ rule: 'CREATE-01', expected: 'status 201 for a valid NewPet (or 400 with an Error, for a name the server refuses)', seen: `${status}: ${preview(rawBody, 120)}` }];
  }
  const problems = validateSchema('Pet', json);
  if (problems.length > 0) return [{ rule: 'CREATE-02', expected: 'a valid Pet in the 201 body', seen: `${problems.slice(0, 3).map((p) => `${p.path || '/'} ${p.message}`).join('; ')} in ${preview(rawBody, 120)}` }];
  const findings: OperationFinding[] = [];
  // Without a status sent, the Pet schema alone decides: absent or a PetStatus (the spec states no default).
  const fields: PetField[] = sent.status === undefined ? ['name', 'categoryId'] : ['name', 'categoryId', 'status'];
  const differences = petFieldDifferences(sent, json, fields);
  if (differences.length > 0) findings.push({ rule: 'CREATE-03', expected: `the 201 to echo ${fields.join(', ')} as sent`, seen: differences.join('; ') });
  const id = String(asBigInt((json as Record<string, Json>).id));
  const earlier = model.writes.find((write) => write.id === id && write.exchange !== exchange);
  if (earlier) findings.push({ rule: 'CREATE-04', expected: 'a different id for every created pet', seen: `id ${id} given again (request #${earlier.exchange.seq} was answered with it)`, exchanges: [earlier.exchange, exchange] });
  return findings;
}

function listFindings(exchange: Exchange): OperationFinding[] {
  const { status, json, rawBody } = exchange.response!;
  const problems = status === 200 ? validateSchema('PetList', json) : [];
  if (status === 200 && problems.length === 0) return [];
  const seen = status !== 200 ? `${status}: ${preview(rawBody, 120)}` : `${problems.slice(0, 3).map((p) => `${p.path || '/'} ${p.message}`).join('; ')} in ${preview(rawBody, 120)}`;
  return [{ rule: 'LIST-01', expected: '200 and a JSON array of valid Pet objects', seen }];
}

/**
 * A pet that exists is answered 200 and a Pet; one that does not, 404 (its Error is ERR-02's). Which one an id
 * names is the model's to judge (CONS-02, CONS-09): on a shared store, an id the run never saw may be a pet,
 * and a pet the run created may not be readable yet (--read-lag).
 */
function fetchFindings(exchange: Exchange, known: boolean): OperationFinding[] {
  const { status, json, rawBody } = exchange.response!;
  if (status === 404 || (status === 200 && validateSchema('Pet', json).length === 0)) return [];
  if (status >= 500) return []; // ERR-04's, judged first
  const seen = status === 200 ? `200 with a body that is no Pet: ${preview(rawBody, 120)}` : `${status}: ${preview(rawBody, 120)}`;
  return known
    ? [{ rule: 'FETCH-01', expected: '200 and the pet, for a pet the sequence created or listed (or 404 while its write may still lag)', seen }]
    : [{ rule: 'FETCH-02', expected: '404 and an Error for an int64 id no pet has (or 200 and the pet, when one has it)', seen }];
}

/** The body a command sent, for its description: the members in order, int64 exact. */
export function showBody(sent: Readonly<Record<string, unknown>>): string {
  return `{${Object.entries(sent).filter(([, value]) => value !== undefined).map(([key, value]) => `${key}: ${show(value)}`).join(', ')}}`;
}

/** Whether an answer is a created Pet with an integer id, and which. */
export function createdId(exchange: Exchange): string | undefined {
  const body = exchange.response?.json;
  if (exchange.response?.status !== 201 || !isJsonObject(body)) return undefined;
  const id = asBigInt(body.id);
  return id === undefined ? undefined : String(id);
}
