// The seams of the reference server: the named points where real stacks differ. The reference handlers call
// every decision through `ctx.seams`, so they read as the spec; a different behaviour (a defect of the
// mutation harness, a conforming variant of the gallery, or anyone's experiment) is an override of one or
// more seams, most often a wrapper around the reference's own function:
//
//   parseLimit: (raw, reference) => (raw === '0' ? { value: Number.POSITIVE_INFINITY } : reference(raw)),
//
// An override receives the seam's own arguments, then `reference` (the seam as it was before this override:
// the reference server's, or an earlier override's), then `server` (this server's context, whose `seams` are
// the composed ones, so an override that answers an error still gets every override of `error`).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PetStore, StoredPet } from './pet-store.js';
import type { Admission, FixedWindowLimiter, LimiterBehaviour } from './rate-limiter.js';
import type { ResolvedSettings } from './settings.js';

/** What every handler, hook and override of one server instance shares. */
export interface Context {
  readonly settings: ResolvedSettings;
  readonly store: PetStore;
  readonly limiter: FixedWindowLimiter;
  /** The seams as this server composes them: the reference's, wrapped by every override it was started with. */
  readonly seams: Seams;
}

/** The spec's operations, by the operationIds spec/rules.yaml uses. */
export type OperationId = 'listPets' | 'createPet' | 'getPet' | 'getStoreOrders';

/** The operations whose answers carry Pet bodies. */
export type PetOperation = 'listPets' | 'createPet' | 'getPet';

/**
 * A response as a value, so that an override can change any part of it before it is written out. The body is
 * `json` when that is set (written by the int64-safe serializer), else `text`, else there is none.
 */
export interface Answer {
  status: number;
  /** Extra response headers, names in lower case. */
  headers?: Readonly<Record<string, string>>;
  /** Defaults to the `jsonType` seam's (application/json) for a `json` body, and to no Content-Type otherwise. */
  contentType?: string;
  json?: unknown;
  text?: string;
}

/** An Answer whose body is a JSON object: what `error` builds, so its overrides can edit members. */
export type ErrorAnswer = Answer & { json: Record<string, unknown> };

/** The body of a Pet as it is about to be written: members in order, values as the serializer takes them. */
export type PetBody = Record<string, unknown>;

/** Why a parameter was refused, and the status that says so. */
export interface Refusal {
  status: 400 | 404 | 500;
  message: string;
}

/** A parameter read: its value, or why it was refused. */
export type Parsed<T> = { value: T } | Refusal;

/** A NewPet member read: its value, or what is wrong with it (a 400). */
export type Field<T> = { value: T } | { problem: string };

/** The members of a NewPet. */
export type NewPetMember = 'name' | 'categoryId' | 'status';

/** The fields of a pet to create (types looser than the spec's, for the readers that let odd values through). */
export interface NewPetFields {
  name?: string | null;
  categoryId: bigint | number | null;
  status?: string | null;
  /** An id the client chose. The reference never reads one: the service assigns every id. */
  id?: bigint;
}

/** Why a body cannot be created: the status, code and message of the answer. */
export interface NewPetFailure {
  ok: false;
  status: 400 | 500;
  code: string;
  message: string;
  /** The body is not JSON, or not an object: some frameworks answer that before the handler runs. */
  unreadable?: true;
  /** The member that was refused, when one was. */
  member?: NewPetMember;
}

export type NewPetResult = { ok: true; pet: NewPetFields } | NewPetFailure;

/** The query of listPets, read: `limit` undefined when the client gave none (the page's default applies). */
export interface ListQuery {
  limit: number | undefined;
  status: string | undefined;
}

/**
 * Every seam, in the order a request meets them. Each is one decision of the reference server; its reference
 * implementation sits beside the code that calls it (named in the comment).
 */
export interface Seams {
  // ── Routing and the way out (routes.ts, reference-server.ts) ──
  /** Whether the operation is routed at all; one that is not gets the not-found Error, as any unknown path. */
  serves: (operation: OperationId) => boolean;
  /** The answer of an operation once the gate let its request through: the whole handler. */
  respond: (operation: OperationId, request: FastifyRequest) => Promise<Answer>;
  /**
   * Every response on its way out (the gate's, errors and not-found included), its status and headers set and
   * still changeable: returns the payload to send. The reference sends it as it is.
   */
  outgoing: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown;

  // ── The gate: every request is counted, then its key is checked (gate.ts, auth.ts) ──
  /** How the limiter keeps windows. The reference: fixed windows, enforced, a new window starts afresh. */
  limiterPolicy: () => LimiterBehaviour;
  /** What a request is counted against: its valid key, or its address when it has none. */
  rateLimitBucket: (request: FastifyRequest, key: string | undefined) => string;
  /** The rate-limit headers every response carries, from what the limiter decided for its request. */
  rateLimitHeaders: (admission: Admission) => Record<string, string>;
  /** The answer to a request over the limit: 429, Retry-After and an Error. */
  tooManyRequests: (admission: Admission) => Answer;
  /** The API keys the server honours. */
  acceptedKeys: () => readonly string[];
  /** Whether an Authorization header carries an accepted key the way the spec says: `Bearer <key>`. */
  authorizes: (authorization: string | undefined) => boolean;
  /**
   * The auth step of the gate, after the rate limit: the answer a request gets instead of reaching its
   * operation, or undefined to let it through. `operation` is undefined for a path the spec does not name.
   */
  authenticate: (request: FastifyRequest, operation: OperationId | undefined) => Answer | undefined;
  /** The answer to a missing or invalid key: 401, a challenge and an Error. */
  unauthorized: (request: FastifyRequest) => Answer;

  // ── Answers and errors (responses.ts, routes.ts) ──
  /** The media type of every JSON body written without a content type of its own. */
  jsonType: () => string;
  /** The spec's Error response; every error the server answers is built here. */
  error: (status: number, code: string, message: string) => ErrorAnswer;
  /** The answer to a query or path parameter that was refused. */
  invalidParameter: (parameter: 'limit' | 'status' | 'petId', refusal: Refusal) => Answer;

  // ── listPets (listing.ts) ──
  /** `limit` from the query (a string, an array, or undefined); undefined when none was given. */
  parseLimit: (raw: unknown) => Parsed<number | undefined>;
  /** `status` from the query. */
  parseStatus: (raw: unknown) => Parsed<string | undefined>;
  /** The page: from every pet held (oldest first), those the query selects, in the order they are listed. */
  selectPage: (pets: readonly StoredPet[], query: ListQuery) => readonly StoredPet[];

  // ── Pet bodies, for all three pet operations (responses.ts) ──
  /** A pet as the named operation writes it. */
  petBody: (pet: StoredPet, operation: PetOperation) => PetBody;

  // ── createPet (new-pet.ts, creating.ts) ──
  /** The JSON value of a request body; throws a SyntaxError when it is not JSON. */
  parseBody: (text: string) => unknown;
  /** A member of a NewPet body, as the reader sees it. */
  member: (body: Record<string, unknown>, key: NewPetMember) => unknown;
  readName: (raw: unknown) => Field<string | null | undefined>;
  readCategoryId: (raw: unknown) => Field<bigint | number | null>;
  readStatus: (raw: unknown) => Field<string | null | undefined>;
  /** The whole NewPet from the body's text: the fields of the pet to create, or why it cannot be created. */
  readNewPet: (text: string) => NewPetResult;
  /** The answer to a body that is not a valid NewPet. */
  invalidNewPet: (failure: NewPetFailure, request: FastifyRequest) => Answer;
  /** The id of a pet about to be created. */
  allocateId: (fields: NewPetFields) => Promise<bigint>;
  /** Keeps a created pet (the 201 echoes the pet as created, whatever the store makes of it). */
  storePet: (pet: StoredPet) => void;

  // ── getPet (fetching.ts) ──
  /** `petId` from the path. */
  parsePetId: (raw: string) => Parsed<bigint>;
  findPet: (id: bigint) => StoredPet | undefined;
  /** The answer for a petId no pet holds. */
  petNotFound: (request: FastifyRequest) => Answer;

  // ── The requests around the operations (around.ts) ──
  /** The answer to a method a path with operations does not take; `allow` lists the ones it does. */
  otherMethod: (request: FastifyRequest, allow: string) => Answer;
  /** The answer to OPTIONS on a path with operations; `allow` lists its methods. */
  options: (request: FastifyRequest, allow: string) => Answer;
  /** The answer to a path under the base URL that names no operation. */
  notFound: (request: FastifyRequest) => Answer;
  /** The answer to a body over the size limit, once the server has read it. */
  bodyTooLarge: (request: FastifyRequest) => Answer;
}

export type SeamName = keyof Seams;

/** An override of one seam: the seam's arguments, then the seam it wraps, then the server's context. */
export type SeamOverride<K extends SeamName> = (
  ...args: [...Parameters<Seams[K]>, reference: Seams[K], server: Context]
) => ReturnType<Seams[K]>;

/** Overrides of any number of seams, applied together: what a defect or a variant is. */
export type Overrides = { readonly [K in SeamName]?: SeamOverride<K> };

// How many arguments each seam takes, checked against its signature: `reference` comes right after them.
const SEAM_ARITY: { readonly [K in SeamName]: Parameters<Seams[K]>['length'] } = {
  serves: 1, respond: 2, outgoing: 3,
  limiterPolicy: 0, rateLimitBucket: 2, rateLimitHeaders: 1, tooManyRequests: 1,
  acceptedKeys: 0, authorizes: 1, authenticate: 2, unauthorized: 1,
  jsonType: 0, error: 3, invalidParameter: 2,
  parseLimit: 1, parseStatus: 1, selectPage: 2,
  petBody: 2,
  parseBody: 1, member: 2, readName: 1, readCategoryId: 1, readStatus: 1, readNewPet: 1, invalidNewPet: 2, allocateId: 1, storePet: 1,
  parsePetId: 1, findPet: 1, petNotFound: 1,
  otherMethod: 2, options: 2, notFound: 1, bodyTooLarge: 1,
};

/**
 * The seams with every override applied, the first of the list innermost. An override is called with
 * exactly the seam's own number of arguments before `reference` and `server`, whatever its caller passed.
 */
export function composeSeams(reference: Seams, overrides: readonly Overrides[], server: Context): Seams {
  const composed: Record<string, (...args: unknown[]) => unknown> = { ...(reference as unknown as Record<string, (...args: unknown[]) => unknown>) };
  for (const override of overrides) {
    for (const [name, wrap] of Object.entries(override) as Array<[SeamName, ((...args: unknown[]) => unknown) | undefined]>) {
      if (wrap === undefined) continue;
      if (!(name in SEAM_ARITY)) throw new Error(`no seam named ${name}`);
      const inner = composed[name]!;
      const arity = SEAM_ARITY[name];
      composed[name] = (...args) => wrap(...Array.from({ length: arity }, (_, index) => args[index]), inner, server);
    }
  }
  return composed as unknown as Seams;
}

/** Whether a parameter read was refused. */
export function isRefusal<T>(parsed: Parsed<T>): parsed is Refusal {
  return !('value' in parsed);
}

/**
 * A `petBody` override that changes the Pet body one operation writes, the others left as the reference
 * writes them: `petBody: onPetBody('getPet', (body) => ({ ...body, id: String(body.id) }))`.
 */
export function onPetBody(operation: PetOperation, change: (body: PetBody, pet: StoredPet) => PetBody): SeamOverride<'petBody'> {
  return (pet, written, reference) => (written === operation ? change(reference(pet, written), pet) : reference(pet, written));
}

/** The body without one member. */
export function without(body: PetBody, member: string): PetBody {
  const { [member]: _left, ...rest } = body;
  return rest;
}

/**
 * A `respond` override that changes the answer of one operation, whatever it is (check `answer.status`
 * for the successes only): `respond: onAnswer('listPets', (answer) => ({ ...answer, contentType: 'text/plain' }))`.
 */
export function onAnswer(operation: OperationId, change: (answer: Answer, request: FastifyRequest, server: Context) => Answer): SeamOverride<'respond'> {
  return async (answered, request, reference, server) => {
    const answer = await reference(answered, request);
    return answered === operation ? change(answer, request, server) : answer;
  };
}

/** A `respond` override that answers one operation its own way, the reference handler never running. */
export function insteadOf(operation: OperationId, answer: (request: FastifyRequest, server: Context) => Answer | Promise<Answer>): SeamOverride<'respond'> {
  return async (answered, request, reference, server) => (answered === operation ? answer(request, server) : reference(answered, request));
}
