// A model of the store, one object per run: everything the target showed of its pets (each 201, each GET,
// every list page) and what the run wrote, built from the run's exchanges when the run is judged. The
// consistency suite judges it on all the evidence at once, so a page is judged with what later pages proved.
import { answeredSuccess, type Exchange } from '../http/exchange.js';
import { answeredAt } from '../fixtures/read-after-write.js';
import { asBigInt, isJsonObject, parseJson, type Json } from '../json.js';
import { operationOf } from '../judge/operations.js';
import { INT64, PAGE_SIZE, PET_STATUSES } from '../spec/facts.js';

type JsonObject = Record<string, Json>;

/** One answer that showed a pet: its 201, a GET /pets/{petId}, or an item of a page. */
export interface PetView {
  id: string;
  source: 'created' | 'fetched' | 'listed';
  fields: JsonObject;
  exchange: Exchange;
}

/** A body a read of the run showed as a pet: a 200 to GET /pets/{petId}, or one item of a 200 page, whatever its shape. */
export interface ShownPet {
  source: 'fetched' | 'listed';
  body: Json;
  exchange: Exchange;
  /** The item's place on its page. */
  index?: number;
}

/** A valid NewPet the run sent and the target created (2xx with an integer id). */
export interface PetWrite {
  id: string;
  sent: JsonObject;
  exchange: Exchange;
}

/** A 200 page of GET /pets. `limit` is undefined when the query's limit is not one the spec defines. */
export interface ListedPage {
  exchange: Exchange;
  limit?: number;
  /** The PetStatus filtered for; undefined without a filter. */
  status?: string;
  /** Whether the query carried a status the spec does not define (nothing about it is judged). */
  unknownFilter: boolean;
  items: readonly Json[];
}

/** A 200 answer to GET /pets/{petId} for an integer petId (in `fetches`), or a 404 to one (in `misses`). */
export interface Fetch {
  asked: bigint;
  answered?: bigint;
  exchange: Exchange;
}

/** Methods the spec does not name that could change a pet, were a server to implement them. */
const CHANGING_METHODS: ReadonlySet<string> = new Set(['PUT', 'PATCH', 'POST', 'DELETE']);

export class StoreModel {
  readonly writes: PetWrite[] = [];
  readonly views = new Map<string, PetView[]>();
  readonly pages: ListedPage[] = [];
  readonly fetches: Fetch[] = [];
  /** Every body a read showed as a pet, valid or not (views keep only those with an integer id); set-aside pets left out. */
  readonly shown: ShownPet[] = [];
  /** 404s to GET /pets/{petId} with the key, for an integer petId: "the animal does not exist". */
  readonly misses: Fetch[] = [];
  /**
   * Pets the run sent PUT, PATCH, POST or DELETE to (the requests area does, to a pet it created for them): a
   * server may implement those methods as extensions, so nothing is expected of such a pet, before or after.
   */
  readonly setAside = new Set<string>();
  /**
   * The names sent in POSTs the target refused (a 4xx, 429 included), each with its first refusal: a pet with one of
   * these names on a later page or GET was stored though refused (CONS-11). Names a POST was accepted with, or one that
   * got no answer or a 5xx (which may have stored it), are in `maybeStored` and never judged so.
   */
  readonly refusedNames = new Map<string, Exchange>();
  readonly maybeStored = new Set<string>();
  /** Reads (a GET's body, a page's item) that showed a pet set aside: left out of the views, and counted so a reason can say so. */
  asideReads = 0;
  /** Every 2xx to a create, by the id it answered, set aside or not: an id answered to several is CREATE-04's finding. */
  readonly creationsById = new Map<string, number>();

  /** The exchanges recorded so far, in order: a model extended with more must be given these first. */
  private recorded: readonly Exchange[] = [];
  /** The path of the base URL, without its trailing slash: what a request's path starts with. */
  private readonly basePath: string;

  private constructor(private readonly baseUrl: string, private readonly readLagMs: number) {
    this.basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  }

  /** The model of one run: every exchange of it, in the order they were answered. */
  static of(exchanges: readonly Exchange[], baseUrl: string, readLagMs: number): StoreModel {
    return new StoreModel(baseUrl, readLagMs).extendedWith(exchanges);
  }

  /**
   * The model of `exchanges`, which continue what this model was built from: this model, with what came since
   * recorded, so that a caller judging answer by answer (the exploration) does not rebuild it from the start each
   * time. A pet set aside by one of the new exchanges is set aside for what came before it too, and so is a
   * sequence that does not continue this one: either way a new model is built afresh, and this one is left as it was.
   */
  extendedWith(exchanges: readonly Exchange[]): StoreModel {
    const continues = this.recorded.every((exchange, index) => exchanges[index] === exchange);
    if (!continues) return StoreModel.of(exchanges, this.baseUrl, this.readLagMs);
    const added = exchanges.slice(this.recorded.length);
    const setAside = added.map((exchange) => this.setAsideBy(exchange)).filter((id) => id !== undefined);
    if (this.recorded.length > 0 && setAside.some((id) => !this.setAside.has(id))) return StoreModel.of(exchanges, this.baseUrl, this.readLagMs);
    for (const id of setAside) this.setAside.add(id);
    for (const exchange of added) this.record(exchange, operationOf(exchange, this.baseUrl));
    this.recorded = [...exchanges];
    return this;
  }

  /** The pet an exchange sets aside: a method the spec does not name, sent to /pets/{petId} with an integer id. */
  private setAsideBy(exchange: Exchange): string | undefined {
    if (!CHANGING_METHODS.has(exchange.request.method)) return undefined;
    const match = /^\/pets\/(-?[0-9]+)$/.exec(new URL(exchange.request.url).pathname.slice(this.basePath.length));
    return match ? String(BigInt(match[1]!)) : undefined;
  }

  private record(exchange: Exchange, operation: string | undefined): void {
    if (exchange.request.method === 'POST') this.recordWriteOfName(exchange);
    const body = exchange.response?.json;
    if (operation === 'createPet' && answeredSuccess(exchange) && isJsonObject(body)) this.recordCreation(exchange, body);
    if (operation === 'getPet' && exchange.response?.status === 200 && body !== undefined) {
      // Whatever its shape (null or an array too): a 200 to GET /pets/{petId} showed a pet, rightly or not.
      this.addShown({ source: 'fetched', body, exchange });
      if (isJsonObject(body)) this.recordFetch(exchange, body);
    }
    // A 404 to another credential says nothing of the pet: a server may hide what a key it refused asks for.
    if (operation === 'getPet' && exchange.response?.status === 404 && exchange.request.auth === 'key') this.recordMiss(exchange);
    if (operation === 'listPets' && exchange.response?.status === 200 && Array.isArray(body)) this.recordPage(exchange, body);
  }

  /** Whatever path it went to (a spelling of /pets too): the names a POST sent, by whether the target refused it. */
  private recordWriteOfName(exchange: Exchange): void {
    const status = exchange.response?.status;
    const refused = status !== undefined && status >= 400 && status < 500;
    for (const name of sentNames(exchange)) {
      if (!refused) this.maybeStored.add(name);
      else if (!this.refusedNames.has(name)) this.refusedNames.set(name, exchange);
    }
  }

  private recordCreation(exchange: Exchange, body: JsonObject): void {
    const id = idOf(body);
    if (id === undefined) return;
    this.creationsById.set(id, (this.creationsById.get(id) ?? 0) + 1);
    this.addView({ id, source: 'created', fields: body, exchange });
    const sent = sentNewPet(exchange);
    if (sent && !this.setAside.has(id)) this.writes.push({ id, sent, exchange });
  }

  private recordFetch(exchange: Exchange, body: JsonObject): void {
    const asked = askedPetId(exchange);
    if (asked === undefined) return;
    const answered = asBigInt(body.id);
    this.fetches.push({ asked, answered, exchange });
    if (answered !== undefined) this.addView({ id: String(answered), source: 'fetched', fields: body, exchange });
  }

  private recordMiss(exchange: Exchange): void {
    const asked = askedPetId(exchange);
    // A pet set aside may have been deleted by a method the server implements as an extension: its 404 is no miss.
    if (asked !== undefined && !this.setAside.has(String(asked))) this.misses.push({ asked, exchange });
  }

  private recordPage(exchange: Exchange, items: readonly Json[]): void {
    const query = new URL(exchange.request.url).searchParams;
    const limits = query.getAll('limit');
    const statuses = query.getAll('status');
    const limit = limits.length === 0 ? PAGE_SIZE.default : limits.length === 1 ? definedLimit(limits[0]!) : undefined;
    const status = statuses.length === 1 && PET_STATUSES.includes(statuses[0]!) ? statuses[0] : undefined;
    const unknownFilter = statuses.length > 0 && status === undefined;
    this.pages.push({ exchange, limit, status, unknownFilter, items });
    items.forEach((item, index) => this.addShown({ source: 'listed', body: item, exchange, index }));
    for (const item of items) {
      const id = isJsonObject(item) ? idOf(item) : undefined;
      if (id !== undefined) this.addView({ id, source: 'listed', fields: item as JsonObject, exchange });
    }
  }

  private addView(view: PetView): void {
    if (this.setAside.has(view.id)) {
      if (view.source !== 'created') this.asideReads += 1;
      return;
    }
    this.views.set(view.id, [...(this.views.get(view.id) ?? []), view]);
  }

  private addShown(pet: ShownPet): void {
    const id = isJsonObject(pet.body) ? idOf(pet.body) : undefined;
    if (id !== undefined && this.setAside.has(id)) return;
    this.shown.push(pet);
  }

  /**
   * Why reads were left out of the model, when some were: the pets set aside, what set them aside, and the rule
   * that judges the cause when a set-aside id was given to several created pets (so the pet sent PUT and DELETE
   * stood for all of them). Undefined when no read showed a pet set aside.
   */
  asideReason(): string | undefined {
    if (this.asideReads === 0) return undefined;
    const ids = [...this.setAside];
    const shared = ids.filter((id) => (this.creationsById.get(id) ?? 0) > 1);
    const cause = shared.length > 0
      ? `; the target gave ${shared.length === 1 ? `that id to ${this.creationsById.get(shared[0]!)} created pets` : `those ids to several created pets (${shared.map((id) => `${id}: ${this.creationsById.get(id)}`).join(', ')})`}, so every pet under ${shared.length === 1 ? 'it' : 'them'} was set aside with it (one id for several pets: CREATE-04 judges that)`
      : '';
    const methods = [...new Set(this.recorded.filter((exchange) => this.setAsideBy(exchange) !== undefined).map((exchange) => exchange.request.method))].join(', ');
    return `the run's reads showed ${this.asideReads} pet(s) under ${ids.length === 1 ? 'an id' : 'ids'} set aside (${ids.join(', ')}): the run sent ${methods} to ${ids.length === 1 ? 'it' : 'them'} (REQ-01), methods the spec does not name and a server may implement, so nothing is expected of ${ids.length === 1 ? 'it' : 'them'}${cause}`;
  }

  /** The ids two or more of the run's writes were answered with: CREATE-04's finding, not one pet seen twice. */
  idsOfSeveralWrites(): Set<string> {
    const counts = new Map<string, number>();
    for (const write of this.writes) counts.set(write.id, (counts.get(write.id) ?? 0) + 1);
    return new Set([...counts].filter(([, count]) => count > 1).map(([id]) => id));
  }

  /** The ids one page lists for two different pets (CONS-08's finding). */
  idsSharedOnAPage(): Set<string> {
    const shared = new Set<string>();
    for (const page of this.pages) {
      for (const [id, items] of itemsById(page)) if (items.some((item) => !samePet(item, items[0]!))) shared.add(id);
    }
    return shared;
  }

  /** The write of a pet, when exactly one write of the run was answered with its id. */
  writeOf(id: string): PetWrite | undefined {
    const writes = this.writes.filter((write) => write.id === id);
    return writes.length === 1 ? writes[0] : undefined;
  }

  /**
   * The status a pet is known to hold: the one the run wrote, else the one every view that shows a status
   * agrees on. Undefined when none is shown or the views disagree (CONS-01's finding).
   */
  statusOf(id: string): string | undefined {
    const written = this.writeOf(id)?.sent.status;
    if (typeof written === 'string') return written;
    const shown = new Set((this.views.get(id) ?? []).map((view) => view.fields.status).filter((status) => typeof status === 'string'));
    return shown.size === 1 ? ([...shown][0] as string) : undefined;
  }

  /**
   * Whether a pet was visible to a read sent as `page` was: an earlier answer listed or served it (a read
   * proves it is stored; the run's checks already read as if what a read showed stays readable), or the run
   * created it more than --read-lag before, the longest a replica may lag the run's own writes.
   */
  visibleBefore(id: string, page: Exchange): boolean {
    return this.shownBefore(id, page) !== undefined;
  }

  /** The view that made a pet visible to a read sent as `read` was (see visibleBefore), or undefined. */
  shownBefore(id: string, read: Exchange): PetView | undefined {
    const sentAfter = read.sentAfter ?? read.seq - 1;
    const views = this.views.get(id) ?? [];
    const sentAt = Date.parse(read.startedAt);
    return views.find((view) => view.source !== 'created' && view.exchange.seq <= sentAfter)
      ?? views.find((view) => view.source === 'created' && answeredAt(view.exchange) + this.readLagMs <= sentAt);
  }

  /** The pets visible when `page` was sent that match its filter (any pet for an unfiltered page). */
  matchingBefore(page: ListedPage): string[] {
    return [...this.views.keys()].filter((id) => (page.status === undefined || this.statusOf(id) === page.status) && this.visibleBefore(id, page.exchange));
  }
}

/** The petId a GET /pets/{petId} asked for, when it is a canonical integer: "012" or "+5" may or may not name pet 12 (the spec does not say). */
function askedPetId(exchange: Exchange): bigint | undefined {
  const segment = decodeURIComponent(new URL(exchange.request.url).pathname.split('/').at(-1) ?? '');
  return /^-?(0|[1-9][0-9]*)$/.test(segment) ? BigInt(segment) : undefined;
}

/** A page's items by id (items without an integer id left out: LIST-01 judges their shape). */
export function itemsById(page: ListedPage): Map<string, JsonObject[]> {
  const byId = new Map<string, JsonObject[]>();
  for (const item of page.items) {
    const id = isJsonObject(item) ? idOf(item) : undefined;
    if (id !== undefined) byId.set(id, [...(byId.get(id) ?? []), item as JsonObject]);
  }
  return byId;
}

/** Two items are the same pet when every field the spec names agrees (extra members are the server's own). */
export function samePet(a: JsonObject, b: JsonObject): boolean {
  return (['name', 'categoryId', 'status'] as const).every((field) => sameValue(a[field], b[field]));
}

function sameValue(a: Json | undefined, b: Json | undefined): boolean {
  const [x, y] = [asBigInt(a), asBigInt(b)];
  if (x !== undefined || y !== undefined) return x === y;
  return a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

/** The id of a Pet body as exact text, when it is an integer. */
export function idOf(body: JsonObject): string | undefined {
  const id = asBigInt(body.id);
  return id === undefined ? undefined : String(id);
}

/** A limit the spec defines (an integer from 1 to 100, written plainly), else undefined: nothing about the page size is judged. */
function definedLimit(raw: string): number | undefined {
  if (!/^[1-9][0-9]*$/.test(raw)) return undefined;
  const limit = Number(raw);
  return limit >= PAGE_SIZE.min && limit <= PAGE_SIZE.max ? limit : undefined;
}

/**
 * The NewPet a creation sent, when it is one the spec defines: a string name, an integer categoryId, a
 * PetStatus or no status. An invalid body a server accepted sets no expectation (FUZZ-01 and CREATE-08..13 judge it).
 */
/**
 * The names a request's body sent: of a JSON object with a string name, valid NewPet or not, or of each such object in a
 * JSON array (a server that takes an array body may store its members).
 */
function sentNames(exchange: Exchange): string[] {
  let sent: Json;
  try {
    sent = parseJson(exchange.request.body ?? '');
  } catch {
    return [];
  }
  return (Array.isArray(sent) ? sent : [sent]).flatMap((item) => (isJsonObject(item) && typeof item.name === 'string' ? [item.name] : []));
}

function sentNewPet(exchange: Exchange): JsonObject | undefined {
  let sent: Json;
  try {
    sent = parseJson(exchange.request.body ?? '');
  } catch {
    return undefined;
  }
  const categoryId = isJsonObject(sent) ? asBigInt(sent.categoryId) : undefined;
  if (!isJsonObject(sent) || typeof sent.name !== 'string' || categoryId === undefined || categoryId < INT64.min || categoryId > INT64.max) return undefined;
  if (sent.status !== undefined && !PET_STATUSES.includes(sent.status as string)) return undefined;
  return sent;
}
