// An oracle for the reasons a run gives when it judges nothing: every skip (and not-applicable) reason states facts
// about the run ("no 200 to GET /pets/{petId}", "46 POSTs answered 201", "--read-only"), and each fact this file knows
// is checked against the run's own exchanges.har and options. A reason that says "the run read no pet" while the HAR
// holds fourteen 200s to GET /pets/{petId} is a false message, and fails whichever test applies the oracle.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry, Har } from 'har-format';
import type { Report } from '../../cli/reports/report.js';
import { asBigInt, isJsonObject, parseJson, parseOwnJson, type Json } from '../../helpers/json.js';
import { validateSchema } from '../../helpers/judge/schema.js';
import { getRule } from '../../helpers/spec/catalog.js';
import { AREA_ORDER, PAGE_SIZE, PET_STATUSES } from '../../helpers/spec/facts.js';
import { SUITES } from '../../suites/index.js';

/** One exchange of the HAR, read as the claims need it. */
interface Seen {
  seq: number;
  /** How many answers had come when it was sent. */
  sentAfter: number;
  method: string;
  /** The path under the base URL: `/pets`, `/pets/12`, `/store/orders`. */
  path: string;
  query: URLSearchParams;
  status: number;
  headers: Record<string, string>;
  json?: Json;
  /** The rule whose check sent it, from the HAR entry's comment. */
  rule?: string;
  withKey: boolean;
}

interface Evidence {
  seen: Seen[];
  report: Report;
}

/** A fact a reason may state, and whether the run's evidence bears it out: a problem, or undefined when it holds. */
interface Claim {
  name: string;
  pattern: RegExp;
  holds: (evidence: Evidence, match: RegExpExecArray) => string | undefined;
}

const isList = (seen: Seen) => seen.method === 'GET' && seen.path === '/pets';
const isFetch = (seen: Seen) => seen.method === 'GET' && /^\/pets\/[^/]+$/.test(seen.path);
const isCreate = (seen: Seen) => seen.method === 'POST' && seen.path === '/pets';
const succeeded = (seen: Seen) => seen.status >= 200 && seen.status <= 299;
const count = (what: string, items: readonly unknown[]) => `the HAR holds ${items.length} ${what}`;
const none = (what: string, items: readonly unknown[]) => (items.length === 0 ? undefined : count(what, items));
const probe = (seen: Seen) => /^RATE-(0[7-9]|1[0-2])$/.test(seen.rule ?? '');
/** A claim that a request to `path` with the key was answered `status`: undefined when the HAR holds one, else what it lacks. */
const answeredWithKey = (e: Evidence, path: string, status: string) => (e.seen.some((s) => s.path === path && s.withKey && s.status === Number(status)) ? undefined : `the HAR holds no ${status} to GET ${path} with the key`);

/** Distinct pet ids the target showed (200 pages and 201 bodies), each with the last status shown: as knownPets reads them. */
function shownPets(evidence: Evidence): Map<string, string | undefined> {
  const pets = new Map<string, string | undefined>();
  for (const seen of evidence.seen) {
    const listed = isList(seen) && seen.status === 200;
    if (!listed && !(isCreate(seen) && seen.status === 201)) continue;
    for (const item of Array.isArray(seen.json) ? seen.json : [seen.json]) {
      const id = isJsonObject(item) ? asBigInt(item.id) : undefined;
      if (id === undefined) continue;
      const status = (item as Record<string, Json>).status;
      pets.set(String(id), typeof status === 'string' ? status : pets.get(String(id)));
    }
  }
  return pets;
}

/** The ids the run's creates were answered with. */
function createdIds(evidence: Evidence): Set<string> {
  return new Set(evidence.seen.filter((s) => isCreate(s) && succeeded(s) && isJsonObject(s.json)).flatMap((s) => {
    const id = asBigInt((s.json as Record<string, Json>).id);
    return id === undefined ? [] : [String(id)];
  }));
}

/** The pets the run sent a method the spec does not name (PUT, PATCH, POST, DELETE): nothing is expected of them. */
function setAsideIds(evidence: Evidence): Set<string> {
  return new Set(evidence.seen.filter((s) => ['PUT', 'PATCH', 'POST', 'DELETE'].includes(s.method)).flatMap((s) => {
    const id = /^\/pets\/(-?\d+)$/.exec(s.path)?.[1];
    return id === undefined ? [] : [String(BigInt(id))];
  }));
}

function ruleStatus(evidence: Evidence, id: string): string | undefined {
  return evidence.report.rules.find((rule) => rule.id === id)?.status;
}

/** The rule a reason names as the one that judges the cause must have found it: failed, or not run at all. */
function causeJudged(id: string): Claim['holds'] {
  return (evidence) => {
    const status = ruleStatus(evidence, id);
    return status === 'failed' || status === undefined || (status === 'skipped' && /--only|--skip/.test(evidence.report.rules.find((rule) => rule.id === id)?.message ?? '')) ? undefined : `${id} is ${status}, not failed`;
  };
}

const CLAIMS: readonly Claim[] = [
  { name: 'no 200 to GET /pets/{petId}', pattern: /no 200 to GET \/pets\/\{petId\}/, holds: (e) => none('200s to GET /pets/{petId}', e.seen.filter((s) => isFetch(s) && s.status === 200)) },
  { name: 'no item on a 200 page', pattern: /no item on a 200 page/, holds: (e) => none('200 pages with items', e.seen.filter((s) => isList(s) && s.status === 200 && Array.isArray(s.json) && s.json.length > 0)) },
  { name: 'no 200 page', pattern: /the run received no 200 page of GET \/pets(?! for)/, holds: (e) => none('200 pages', e.seen.filter((s) => isList(s) && s.status === 200 && Array.isArray(s.json))) },
  {
    name: 'no GET answered 200 with an integer id', pattern: /no GET \/pets\/\{petId\} of the run answered 200 with an integer id/,
    holds: (e) => none('200s to GET /pets/{petId} with an integer id', e.seen.filter((s) => isFetch(s) && s.status === 200 && isJsonObject(s.json) && asBigInt(s.json.id) !== undefined)),
  },
  { name: 'no 429 to the key', pattern: /no request with the key was answered 429/, holds: (e) => none('429s to the key', e.seen.filter((s) => s.withKey && s.status === 429)) },
  { name: 'no 401', pattern: /the target answered no request with 401/, holds: (e) => none('401s', e.seen.filter((s) => s.status === 401)) },
  { name: 'no 405', pattern: /no request of the run was answered 405/, holds: (e) => none('405s', e.seen.filter((s) => s.status === 405)) },
  { name: 'no create sent', pattern: /the run sent no create/, holds: (e) => none('POST /pets', e.seen.filter(isCreate)) },
  {
    name: 'every create refused', pattern: /every creat(?:e|ion) (?:of the run )?was refused(?: \((\d+) POST)?/,
    holds: (e, [, posts]) => {
      const creates = e.seen.filter(isCreate);
      if (posts !== undefined && creates.length !== Number(posts)) return count('POST /pets', creates);
      return none('POST /pets answered with a success', creates.filter(succeeded));
    },
  },
  {
    name: 'POSTs answered 201', pattern: /the run created (\d+) pets \((\d+) POSTs answered 201\)/,
    holds: (e, [, , answered]) => {
      const created = e.seen.filter((s) => s.method === 'POST' && s.status === 201);
      return created.length === Number(answered) ? undefined : count('POSTs answered 201', created);
    },
  },
  { name: 'distinct ids shown', pattern: /show only (\d+) distinct pet id/, holds: (e, [, ids]) => (shownPets(e).size === Number(ids) ? undefined : `the HAR shows ${shownPets(e).size} distinct pet ids`) },
  { name: 'pets shown', pattern: /the target has shown only (\d+) pet\(s\)/, holds: (e, [, pets]) => (shownPets(e).size === Number(pets) ? undefined : `the HAR shows ${shownPets(e).size} distinct pet ids`) },
  { name: 'no pet shown', pattern: /the target has shown no pet\b(?! with)/, holds: (e) => (shownPets(e).size === 0 ? undefined : `the HAR shows ${shownPets(e).size} distinct pet ids`) },
  {
    name: 'pets shown by status', pattern: /\((\d+) available, (\d+) pending, (\d+) sold\)/,
    holds: (e, match) => {
      const statuses = [...shownPets(e).values()];
      const shown = PET_STATUSES.map((status) => statuses.filter((held) => held === status).length);
      return PET_STATUSES.every((_, index) => shown[index] === Number(match[index + 1])) ? undefined : `the HAR shows ${shown.map((n, index) => `${n} ${PET_STATUSES[index]}`).join(', ')}`;
    },
  },
  {
    name: 'no pet with a status shown', pattern: /the target has shown no pet with a status/,
    holds: (e) => none('pets shown with a status', [...shownPets(e).values()].filter((status) => status !== undefined && PET_STATUSES.includes(status))),
  },
  {
    name: 'filtered pages empty', pattern: /every filtered page was empty|no page filtered by available, pending, sold held a pet/,
    holds: (e) => none('filtered 200 pages with items', e.seen.filter((s) => isList(s) && s.status === 200 && PET_STATUSES.includes(s.query.get('status') ?? '') && Array.isArray(s.json) && s.json.length > 0)),
  },
  {
    name: 'the target lists no pet', pattern: /the target lists no pet\b/,
    holds: (e) => none('200 pages with items', e.seen.filter((s) => isList(s) && s.status === 200 && Array.isArray(s.json) && s.json.length > 0)),
  },
  {
    name: 'the target lists no valid Pet', pattern: /the target lists no valid Pet/,
    holds: (e) => none('listed valid Pets', e.seen.filter((s) => isList(s) && s.status === 200 && Array.isArray(s.json)).flatMap((s) => (s.json as Json[]).filter((item) => validateSchema('Pet', item).length === 0))),
  },
  {
    name: 'no Error with a string code', pattern: /no error response carried an Error body with a string code/,
    holds: (e) => none('error bodies with a string code', e.seen.filter((s) => s.status >= 400 && s.status !== 429 && isJsonObject(s.json) && typeof s.json.code === 'string')),
  },
  {
    name: 'no response carried a header', pattern: /no response carried (X-RateLimit-\w+)(?: and (X-RateLimit-\w+))?,/,
    holds: (e, [, first, second]) => {
      const names = [first!, second].filter((name): name is string => name !== undefined).map((name) => name.toLowerCase());
      return none(`responses before the probe carrying ${names.join(' and ')}`, e.seen.filter((s) => !probe(s) && s.status > 0 && names.every((name) => s.headers[name] !== undefined)));
    },
  },
  {
    name: 'the store orders answer', pattern: /GET \/store\/orders with the key was answered (\d+)/,
    holds: (e, [, status]) => answeredWithKey(e, '/store/orders', status!),
  },
  {
    name: 'the key listed pets, and the route beside the orders', pattern: /with the key, GET \/pets was answered (\d+) and GET (\/store\/[a-z-]+) (\d+)/,
    holds: (e, [, listing, path, beside]) => answeredWithKey(e, '/pets', listing!) ?? answeredWithKey(e, path!, beside!),
  },
  {
    name: 'no create answered an id', pattern: /no creation of this run answered an id/,
    holds: (e) => none('creates answered with an id', e.seen.filter((s) => isCreate(s) && succeeded(s) && isJsonObject(s.json) && s.json.id !== undefined && s.json.id !== null)),
  },
  {
    name: 'a page with room lists none of the run\'s pets', pattern: /none of the (\d+) pet\(s\) this run created is listed, though GET \/pets(\?\S+) had room \((\d+) pets\)/,
    holds: (e, [, , query, size]) => {
      const created = createdIds(e);
      const pages = e.seen.filter((s) => isList(s) && `?${s.query.toString()}` === query && Array.isArray(s.json) && s.json.length === Number(size));
      if (pages.length === 0) return `the HAR holds no GET /pets${query} answered with ${size} pets`;
      return pages.some((s) => (s.json as Json[]).some((item) => isJsonObject(item) && created.has(String(item.id)))) ? `a GET /pets${query} lists a pet of the run` : undefined;
    },
  },
  {
    name: 'full pages of other pets', pattern: /every page that could list a pet of this run came back full of other pets, the same ones each time it was read \(([^)]*)\)/,
    holds: (e, [, pages]) => {
      const created = createdIds(e);
      for (const [, query] of pages!.matchAll(/GET \/pets(\?[^:]+): \d+ pets/g)) {
        const reads = e.seen.filter((s) => isList(s) && `?${s.query.toString()}` === query && s.status === 200);
        if (reads.length < 2) return `GET /pets${query} was read ${reads.length} time(s)`;
        if (reads.some((s) => !Array.isArray(s.json) || s.json.length < PAGE_SIZE.max)) return `a GET /pets${query} came back with fewer than ${PAGE_SIZE.max} pets`;
        if (reads.some((s) => (s.json as Json[]).some((item) => isJsonObject(item) && created.has(String(item.id))))) return `a GET /pets${query} lists a pet of the run`;
      }
      return undefined;
    },
  },
  {
    name: 'at least a page under every filter', pattern: /the target has shown at least (\d+) pets under every filter a pet of this run could be listed under \(([^)]*)\)/,
    holds: (e, [, least, counts]) => {
      const pets = shownPets(e);
      for (const [, , status] of counts!.matchAll(/(\d+) (in all|available|pending|sold)/g)) {
        const shown = status === 'in all' ? pets.size : [...pets.values()].filter((held) => held === status).length;
        const fullPage = e.seen.some((s) => isList(s) && s.status === 200 && (status === 'in all' ? !s.query.has('status') : s.query.get('status') === status) && Array.isArray(s.json) && s.json.length >= Number(least));
        if (shown < Number(least) && !fullPage) return `the HAR shows ${shown} pets ${status}, and no full page of them`;
      }
      return undefined;
    },
  },
  {
    name: 'no pet read twice', pattern: /no pet was read twice, or read after the run wrote it/,
    holds: (e) => {
      const aside = setAsideIds(e);
      const reads = new Map<string, number>();
      for (const s of e.seen.filter((candidate) => candidate.status === 200 && (isList(candidate) || isFetch(candidate)))) {
        for (const item of Array.isArray(s.json) ? s.json : [s.json]) {
          const id = isJsonObject(item) ? asBigInt(item.id) : undefined;
          if (id !== undefined && !aside.has(String(id))) reads.set(String(id), (reads.get(String(id)) ?? 0) + 1);
        }
      }
      const created = createdIds(e);
      const twice = [...reads].filter(([id, times]) => times > 1 || created.has(id));
      return none('pets read twice or read after the run created them', twice);
    },
  },
  {
    name: 'no GET of a pet shown before', pattern: /no GET \/pets\/\{petId\} of the run that asked for a pet a read had shown before was answered with a pet or a 404/,
    holds: (e) => {
      const aside = setAsideIds(e);
      const asked = e.seen.filter((s) => isFetch(s) && s.withKey && ((s.status === 200 && isJsonObject(s.json)) || s.status === 404)).filter((s) => {
        const id = /^\/pets\/(-?\d+)$/.exec(s.path)?.[1];
        return id !== undefined && !aside.has(String(BigInt(id))) && e.seen.some((read) => read.seq <= s.sentAfter && read.status === 200 && (isList(read) || isFetch(read))
          && (Array.isArray(read.json) ? read.json : [read.json]).some((item) => isJsonObject(item) && asBigInt(item.id) === BigInt(id)));
      });
      return none('GETs of a pet a read had shown before', asked);
    },
  },
  {
    name: 'no Error with an integer status', pattern: /no error response carried an Error body with an integer status field/,
    holds: (e) => none('error bodies with an integer status', e.seen.filter((s) => s.status >= 400 && s.status !== 429 && isJsonObject(s.json) && asBigInt(s.json.status) !== undefined)),
  },
  { name: 'no 429 at all', pattern: /no request was answered 429, so there is no 429 body to judge/, holds: (e) => none('429s', e.seen.filter((s) => s.status === 429)) },
  {
    name: 'so many 429s, none with a body', pattern: /none of the (\d+) 429\(s\) of the run carried a body/,
    holds: (e, [, stated]) => {
      const refusals = e.seen.filter((s) => s.status === 429);
      return refusals.length === Number(stated) ? none('429s with a JSON body', refusals.filter((s) => s.json !== undefined)) : count('429s', refusals);
    },
  },
  {
    name: 'the key elsewhere too large', pattern: /put in several places of one request made every such request too large for the server/,
    holds: (e) => none('answers to AUTH-10 other than 414 and 431', e.seen.filter((s) => s.rule === 'AUTH-10' && ![414, 431].includes(s.status))),
  },
  { name: 'a Reset already past', pattern: /answered with an X-RateLimit-Reset already past \((\d+)\)/, holds: (e, [, reset]) => (e.seen.some((s) => s.headers['x-ratelimit-reset']?.trim() === reset) ? undefined : `no response carried X-RateLimit-Reset ${reset}`) },
  { name: 'a 429 to the key set aside', pattern: /no 429 to the key could be set beside the answer before it/, holds: (e) => (e.seen.some((s) => s.withKey && s.status === 429) ? undefined : 'the HAR holds no 429 to the key') },
  {
    name: 'no integer Limit with the key', pattern: /no response with the key carries an integer X-RateLimit-Limit/,
    holds: (e) => none('responses with the key carrying an integer X-RateLimit-Limit', e.seen.filter((s) => s.withKey && /^\d+$/.test(s.headers['x-ratelimit-limit']?.trim() ?? ''))),
  },
  {
    name: 'the probe provoked no 429', pattern: /the probe provoked none: the server answered past Remaining 0 \(RATE-07\)/,
    holds: (e) => none('429s to the probe', e.seen.filter((s) => probe(s) && s.status === 429)) ?? causeJudged('RATE-07')(e, [] as unknown as RegExpExecArray),
  },
  {
    name: 'the probe saw no Remaining', pattern: /the 429 probe cannot tell how many requests would exceed the window: the response carries no X-RateLimit-Remaining/,
    holds: (e) => {
      const first = e.seen.find((s) => s.rule === 'RATE-07');
      return first && first.headers['x-ratelimit-remaining'] !== undefined ? `the probe's first answer carried X-RateLimit-Remaining ${first.headers['x-ratelimit-remaining']}` : undefined;
    },
  },
  { name: '--read-only', pattern: /--read-only (creates|sends|leaves)/, holds: (e) => (e.report.options.readOnly === true ? undefined : 'the run was not --read-only') },
  { name: '--verify-recovery', pattern: /run with --verify-recovery/, holds: (e) => (e.report.options.verifyRecovery === true ? 'the run had --verify-recovery' : undefined) },
  { name: '--rate-limit-budget 0', pattern: /\(--rate-limit-budget 0\)/, holds: (e) => (e.report.options.rateLimitBudget === 0 ? undefined : `the run's --rate-limit-budget is ${String(e.report.options.rateLimitBudget)}`) },
  { name: '--rate-limit-budget n', pattern: /more than --rate-limit-budget (\d+) allows/, holds: (e, [, budget]) => (e.report.options.rateLimitBudget === Number(budget) ? undefined : `the run's --rate-limit-budget is ${String(e.report.options.rateLimitBudget)}`) },
  { name: 'a Remaining seen', pattern: /X-RateLimit-Remaining (\d+)\)?, more than/, holds: (e, [, remaining]) => (e.seen.some((s) => s.headers['x-ratelimit-remaining']?.trim() === remaining) ? undefined : `no response carried X-RateLimit-Remaining ${remaining}`) },
  { name: '--fuzz-runs 0', pattern: /--fuzz-runs 0 sends/, holds: (e) => (e.report.options.fuzzRuns === 0 ? undefined : 'the run had --fuzz-runs above 0') },
  { name: '--fuzz-valid-runs 0', pattern: /--fuzz-valid-runs 0 sends/, holds: (e) => (e.report.options.fuzzValidRuns === 0 ? undefined : 'the run had --fuzz-valid-runs above 0') },
  { name: 'CREATE-04 found one id for several pets', pattern: /one id for several pets: CREATE-04 judges that/, holds: causeJudged('CREATE-04') },
  { name: 'RATE-01 reports missing headers', pattern: /RATE-01 reports the missing headers/, holds: causeJudged('RATE-01') },
  { name: 'RATE-02 reports malformed values', pattern: /RATE-02 reports the malformed values/, holds: causeJudged('RATE-02') },
  { name: 'RATE-05 reports the Reset values', pattern: /RATE-05 reports the Reset values/, holds: causeJudged('RATE-05') },
  {
    name: 'every Reset already past', pattern: /answer\(s\) served with the key that carried X-RateLimit-Limit and X-RateLimit-Reset as integers named a Reset already past/,
    holds: (e) => none('2xx answers with the key whose X-RateLimit-Reset is an epoch second more than a second ahead of their Date', e.seen.filter((s) => {
      const reset = Number(s.headers['x-ratelimit-reset']?.trim());
      const date = Date.parse(s.headers.date ?? '');
      return s.withKey && succeeded(s) && /^\d+$/.test(s.headers['x-ratelimit-limit']?.trim() ?? '') && Number.isFinite(date) && reset * 1000 > date + 2000;
    })),
  },
  { name: 'CREATE-01 judges refused creates', pattern: /CREATE-01 judges (that|creation)/, holds: causeJudged('CREATE-01') },
  { name: 'CREATE-02 judges bodies without id', pattern: /CREATE-02 judges that/, holds: causeJudged('CREATE-02') },
  {
    name: 'a set-aside id given to several pets', pattern: /the target gave that id to (\d+) created pets/,
    holds: (e, [, pets]) => {
      const ids = new Map<string, number>();
      for (const s of e.seen.filter((candidate) => isCreate(candidate) && succeeded(candidate))) {
        const id = isJsonObject(s.json) ? asBigInt(s.json.id) : undefined;
        if (id !== undefined) ids.set(String(id), (ids.get(String(id)) ?? 0) + 1);
      }
      return [...ids.values()].includes(Number(pets)) ? undefined : `no id of the HAR was answered to ${pets} creates`;
    },
  },
];

/** What one reason claims that the evidence contradicts, by claim; and whether it claims anything this oracle knows. */
export function contradictions(reason: string, evidence: Evidence): { problems: string[]; known: boolean } {
  const problems: string[] = [];
  let known = false;
  for (const claim of CLAIMS) {
    const match = new RegExp(claim.pattern.source).exec(reason);
    if (!match) continue;
    known = true;
    const problem = claim.holds(evidence, match);
    if (problem) problems.push(`"${claim.name}": ${problem}`);
  }
  return { problems, known };
}

/** The evidence a report folder holds: its exchanges.har, read as the claims need it, and its report.json. */
export function evidenceIn(reportDir: string, report: Report): Evidence {
  const har = parseOwnJson(readFileSync(join(reportDir, 'exchanges.har'), 'utf8')) as unknown as Har;
  const base = new URL(report.target.baseUrl).pathname.replace(/\/+$/, '');
  return { report, seen: har.log.entries.map((entry) => seenOf(entry, base)) };
}

/** The areas whose checks judge what the whole run sent: they run after every other area, one after another in catalog order. */
const WHOLE_RUN_AREAS: ReadonlySet<string> = new Set(SUITES.filter((suite) => suite.wholeRun).map((suite) => suite.area));
/** The checks of the sending areas that judge the whole run too (CREATE-04, AUTH-08): they run once those areas have ended. */
const WHOLE_RUN_CHECKS: ReadonlySet<string> = new Set(SUITES.filter((suite) => !suite.wholeRun).flatMap((suite) => suite.checks.filter((check) => check.wholeRun).map((check) => check.rule.id)));

/**
 * The evidence as a rule's check had it when it was judged. A check that sent requests had, at most, every answer that
 * came before its last one. One that sent nothing had what ran before it: the sending areas run one after another in
 * catalog order, then the checks that judge the whole run, then the whole-run areas in catalog order. Of its own
 * area it is held to every check's answers, which it may not all have had (checks of an area run together).
 * A reason says what the run had shown when the rule was judged.
 */
function asJudged(evidence: Evidence, ruleId: string, area: string): Evidence {
  const own = evidence.seen.filter((seen) => seen.rule === ruleId).map((seen) => seen.seq);
  if (own.length > 0) {
    const last = Math.max(...own);
    return { ...evidence, seen: evidence.seen.filter((seen) => seen.seq <= last) };
  }
  const place = (rule: string) => AREA_ORDER.indexOf(getRule(rule).area);
  const ownPlace = AREA_ORDER.indexOf(area as (typeof AREA_ORDER)[number]);
  const sending = (rule: string) => !WHOLE_RUN_AREAS.has(getRule(rule).area) && !WHOLE_RUN_CHECKS.has(rule);
  const had = WHOLE_RUN_AREAS.has(area)
    ? (seen: Seen) => seen.rule === undefined || !WHOLE_RUN_AREAS.has(getRule(seen.rule).area) || place(seen.rule) <= ownPlace
    : WHOLE_RUN_CHECKS.has(ruleId)
      ? (seen: Seen) => seen.rule === undefined || sending(seen.rule)
      : (seen: Seen) => seen.rule !== undefined && sending(seen.rule) && place(seen.rule) <= ownPlace;
  return { ...evidence, seen: evidence.seen.filter(had) };
}

function seenOf(entry: Entry, base: string): Seen {
  const url = new URL(entry.request.url);
  const headers = Object.fromEntries(entry.response.headers.map((header) => [header.name.toLowerCase(), header.value]));
  const authorization = entry.request.headers.find((header) => header.name.toLowerCase() === 'authorization')?.value;
  // The body as the run read it: one it could not decode (a Content-Encoding it does not carry) it never saw as JSON.
  const { _jsonError: jsonError, _json: kept } = entry.response as Entry['response'] & { _jsonError?: string; _json?: string };
  let json: Json | undefined;
  try {
    json = jsonError !== undefined ? undefined : kept !== undefined ? parseJson(kept) : entry.response.content.text ? parseJson(entry.response.content.text) : undefined;
  } catch {
    json = undefined;
  }
  const { _seq: seq, _sentAfter: sentAfter } = entry as Entry & { _seq?: number; _sentAfter?: number };
  return {
    seq: seq ?? 0,
    sentAfter: sentAfter ?? 0,
    method: entry.request.method,
    path: url.pathname.startsWith(base) ? url.pathname.slice(base.length) : url.pathname,
    query: url.searchParams,
    status: entry.response.status,
    headers,
    json,
    rule: /^sent by the check of (\S+)$/.exec(entry.comment ?? '')?.[1],
    withKey: authorization === 'Bearer $PETSTORE_API_KEY',
  };
}

/**
 * Every reason of a run that said a rule could not be judged (skipped, not applicable), checked against the run's
 * own HAR: each line names the rule and what its reason claims that the evidence contradicts. With `strict`, a
 * reason that claims nothing this oracle knows is listed too (so that a new reason gets its claim written here),
 * unless it only names options or the rules deselected.
 */
export function falseReasons(reportDir: string, report: Report, { strict = false } = {}): string[] {
  const evidence = evidenceIn(reportDir, report);
  return report.rules.filter((rule) => rule.status === 'skipped' || rule.status === 'not-applicable').flatMap((rule) => {
    const reason = rule.message ?? '';
    const { problems, known } = contradictions(reason, asJudged(evidence, rule.id, rule.area));
    const unchecked = strict && !known && !OPTION_ONLY.test(reason) ? [`${rule.id}: no claim of its reason is checked: ${reason}`] : [];
    return [...problems.map((problem) => `${rule.id}: ${problem} (reason: ${reason})`), ...unchecked];
  });
}

/** Reasons that name only what the person chose (an option, a deselection), which report.json's options show. */
const OPTION_ONLY = /^(not selected: --only|skipped by --skip|the 429 probe is RATE-07, which --skip names|the run was cancelled|creates pets on the target; not run with --read-only|checking recovery means waiting out)/;
