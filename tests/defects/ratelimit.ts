import type { FastifyReply, FastifyRequest } from 'fastify';
import { validBearerKey } from '../../server/auth.js';
import { admissionOf, removeRateLimitHeaders, secondsUntilReset } from '../../server/gate.js';
import { text, withHeaders, withoutHeader } from '../../server/responses.js';
import { operationOf } from '../../server/routes.js';
import type { Context, Overrides, SeamOverride } from '../../server/seams.js';
import type { DefectSpec } from './spec.js';

// Under rate-enforced-below-limit, how far below X-RateLimit-Limit the gateway refuses.
const GATEWAY_LIMIT_SHORTFALL = 5;

// A host an hour ahead of UTC (Lagos, or Berlin in winter): local time labelled GMT is an hour late.
const UTC_PLUS_ONE_MS = 3_600_000;
// A burst window of 5 s behind a Retry-After written for a minute's.
const BURST_WINDOW = { limit: 30, windowMs: 5_000 };
// 60 in 10 s: a rise of one between two requests a few ms apart is more than such a window restores meanwhile (the
// harness's window for the rate-limit checks alone, 30 in 1.5 s, restores one every 50 ms), and a wait for it is short.
const MINUTE_LIKE_WINDOW = { limit: 60, windowMs: 10_000 };
// Each server's counts kept apart (countedApart), by bucket, part and window end; and what each request was told.
const APART_COUNTS = new WeakMap<Context, Map<string, number>>();
const APART_REMAINING = new WeakMap<FastifyRequest, number>();
/** Requests each server has handed to its workers so far: the next goes to the next worker. */
const HANDED_OUT = new WeakMap<Context, number>();
const CLUSTER_WORKERS = 4;
// A host in Tokyo: naive datetime.utcnow().timestamp() reads UTC wall time as local time, nine hours early.
const TOKYO_OFFSET_S = 9 * 3_600;

/** An `outgoing` override for a stack whose rate-limit header middleware does not reach the responses `leftOff` picks. */
function rateLimitHeadersLeftOff(leftOff: (request: FastifyRequest, reply: FastifyReply, server: Context) => boolean): SeamOverride<'outgoing'> {
  return (request, reply, payload, reference, server) => {
    if (leftOff(request, reply, server)) removeRateLimitHeaders(reply);
    return reference(request, reply, payload);
  };
}

/** The worker of a PM2 or Node cluster the request lands on: round robin, as the cluster's primary hands them out. */
function workerOf(server: Context): string {
  const handed = HANDED_OUT.get(server) ?? 0;
  HANDED_OUT.set(server, handed + 1);
  return `worker ${handed % CLUSTER_WORKERS}`;
}

/**
 * Overrides for a limiter whose counts are kept apart, one count per part of the server (`partOf` names a request's:
 * its route, say), all in the key's window as the shared limiter keeps it: a part's count alone
 * decides its 429 and the X-RateLimit-Remaining its answers carry. `admitsOver` more than the limit are let through.
 */
function countedApart(partOf: (request: FastifyRequest, server: Context) => string, admitsOver = 0): Overrides {
  return {
    limiterPolicy: (reference) => ({ ...reference(), enforce: false }),
    authenticate: (request, operation, reference, server) => {
      const admission = admissionOf(request);
      if (!admission) return reference(request, operation);
      const bucket = server.seams.rateLimitBucket(request, validBearerKey(request.headers.authorization, server.seams.acceptedKeys()));
      const counts = APART_COUNTS.get(server) ?? new Map<string, number>();
      APART_COUNTS.set(server, counts);
      const window = `${bucket} ${partOf(request, server)} ${admission.resetAtMs}`;
      const count = counts.get(window) ?? 0;
      if (count >= admission.limit + admitsOver) {
        APART_REMAINING.set(request, 0);
        return server.seams.tooManyRequests({ ...admission, verdict: 'limited', remaining: 0 });
      }
      counts.set(window, count + 1);
      APART_REMAINING.set(request, Math.max(0, admission.limit - count - 1));
      return reference(request, operation);
    },
    outgoing: (request, reply, payload, reference) => {
      const remaining = APART_REMAINING.get(request);
      if (remaining !== undefined && reply.hasHeader('x-ratelimit-remaining')) reply.header('x-ratelimit-remaining', String(remaining));
      return reference(request, reply, payload);
    },
  };
}

/** Defects of the ratelimit area. */
export const RATELIMIT_DEFECTS = [
  {
    id: 'rate-headers-missing-on-errors',
    area: 'ratelimit',
    // The probe's 429 is an error response too, and RATE-10 judges its headers.
    description: 'leaves the X-RateLimit headers off error responses (the 429 included)',
    rules: ['FUZZ-03', 'RATE-01', 'RATE-10'],
    overrides: {
      outgoing: rateLimitHeadersLeftOff((_request, reply) => reply.statusCode >= 400),
    },
  },
  {
    id: 'rate-remaining-frozen',
    area: 'ratelimit',
    description: 'always reports X-RateLimit-Remaining equal to the limit',
    rules: ['RATE-04', 'RATE-10', 'RATE-14'],
    overrides: {
      rateLimitHeaders: (admission, reference) => reference({ ...admission, remaining: admission.limit }),
    },
  },
  {
    id: 'rate-reset-delta-seconds',
    area: 'ratelimit',
    description: 'sends X-RateLimit-Reset as seconds until the reset',
    rules: ['FUZZ-03', 'RATE-05'],
    overrides: {
      rateLimitHeaders: (admission, reference) => ({ ...reference(admission), 'x-ratelimit-reset': String(secondsUntilReset(admission)) }),
    },
  },
  {
    id: 'rate-remaining-above-limit',
    area: 'ratelimit',
    description: 'reports X-RateLimit-Remaining above X-RateLimit-Limit (until it reaches 0)',
    rules: ['FUZZ-03', 'RATE-03'],
    overrides: {
      // Kept at 0 once exhausted, so that only RATE-03 sees this defect.
      rateLimitHeaders: (admission, reference) => reference(admission.remaining > 0 ? { ...admission, remaining: admission.remaining + admission.limit } : admission),
    },
  },
  {
    id: 'rate-limit-header-decimal',
    area: 'ratelimit',
    description: 'sends X-RateLimit-Limit as "1000.0"',
    rules: ['FUZZ-03', 'RATE-02'],
    overrides: {
      rateLimitHeaders: (admission, reference) => ({ ...reference(admission), 'x-ratelimit-limit': `${admission.limit}.0` }),
    },
  },
  {
    id: 'rate-429-no-retry-after',
    area: 'ratelimit',
    description: 'sends 429 without Retry-After',
    rules: ['RATE-08'],
    overrides: {
      tooManyRequests: (admission, reference) => withoutHeader(reference(admission), 'retry-after'),
    },
  },
  {
    id: 'rate-429-text-body',
    area: 'ratelimit',
    description: 'sends 429 with a text/plain "Too Many Requests" body',
    rules: ['RATE-09', 'RATE-18'],
    overrides: {
      tooManyRequests: (admission, reference) => ({ ...text(429, 'text/plain; charset=utf-8', 'Too Many Requests'), headers: reference(admission).headers }),
    },
  },
  {
    id: 'rate-never-429',
    area: 'ratelimit',
    description: 'never enforces the limit (headers still count down)',
    rules: ['RATE-07'],
    overrides: {
      limiterPolicy: (reference) => ({ ...reference(), enforce: false }),
    },
  },
  {
    id: 'rate-429-remaining-nonzero',
    area: 'ratelimit',
    description: 'reports X-RateLimit-Remaining 1 on a 429',
    rules: ['RATE-10'],
    overrides: {
      rateLimitHeaders: (admission, reference) => reference(admission.verdict === 'limited' ? { ...admission, remaining: 1 } : admission),
    },
  },
  {
    id: 'rate-window-never-resets',
    area: 'ratelimit',
    description: 'keeps answering 429 after Retry-After has passed (a limited credential never gets a fresh window)',
    rules: ['RATE-11'],
    // Recovery is checked only on request. The harness's small window for a run of the rate-limit area alone keeps
    // the probe to a few dozen requests and the wait for Retry-After to a second or two.
    cliArgs: ['--verify-recovery'],
    overrides: {
      limiterPolicy: (reference) => ({ ...reference(), carryExhaustion: true }),
    },
  },
  {
    id: 'rate-reset-milliseconds',
    area: 'ratelimit',
    description: 'sends X-RateLimit-Reset in milliseconds: JavaScript\'s Date.now() + window, not divided by 1000',
    rules: ['FUZZ-03', 'RATE-05'],
    overrides: {
      rateLimitHeaders: (admission, reference) => ({ ...reference(admission), 'x-ratelimit-reset': String(admission.resetAtMs) }),
    },
  },
  {
    id: 'rate-reset-http-date',
    area: 'ratelimit',
    description: 'sends X-RateLimit-Reset as an HTTP-date, the Retry-After formatter reused (toUTCString) for a header that wants a Unix timestamp',
    rules: ['FUZZ-03', 'RATE-02'],
    overrides: {
      rateLimitHeaders: (admission, reference) => ({ ...reference(admission), 'x-ratelimit-reset': new Date(Math.ceil(admission.resetAtMs / 1000) * 1000).toUTCString() }),
    },
  },
  {
    id: 'rate-429-remaining-negative',
    area: 'ratelimit',
    description: 'reports X-RateLimit-Remaining -1 on a 429: limit - count with the refused request counted and no clamp at 0',
    rules: ['RATE-10'],
    overrides: {
      rateLimitHeaders: (admission, reference) => reference(admission.verdict === 'limited' ? { ...admission, remaining: admission.remaining - 1 } : admission),
    },
  },
  {
    id: 'rate-headers-draft-only',
    area: 'ratelimit',
    description: 'sends only the IETF draft\'s RateLimit and RateLimit-Policy headers, no X-RateLimit-* (express-rate-limit with legacyHeaders: false)',
    rules: ['FUZZ-03', 'RATE-01'],
    overrides: {
      rateLimitHeaders: (admission, _reference, server) => ({
        'ratelimit-policy': `${admission.limit};w=${Math.round(server.settings.rateLimit.windowMs / 1000)}`,
        ratelimit: `limit=${admission.limit}, remaining=${admission.remaining}, reset=${secondsUntilReset(admission)}`,
      }),
    },
  },
  {
    id: 'rate-retry-after-fractional',
    area: 'ratelimit',
    description: 'sends Retry-After as fractional seconds ("57.312"): Python\'s reset_at - time.time() formatted without rounding',
    rules: ['RATE-08'],
    overrides: {
      tooManyRequests: (admission, reference) => withHeaders(reference(admission), { 'retry-after': Math.max(0.001, (admission.resetAtMs - admission.nowMs) / 1000).toFixed(3) }),
    },
  },
  {
    id: 'rate-remaining-before-count',
    area: 'ratelimit',
    description: 'writes X-RateLimit-Remaining from the count read before the request is added to it (the header hook runs before the counter\'s), one too many: the 429 comes right after an answer that said 1 left',
    rules: ['RATE-14'],
    overrides: {
      // A refused request was never added, so its 0 is right.
      rateLimitHeaders: (admission, reference) => reference(admission.verdict === 'ok' ? { ...admission, remaining: Math.min(admission.limit, admission.remaining + 1) } : admission),
    },
  },
  {
    id: 'rate-enforced-below-limit',
    area: 'ratelimit',
    description: 'refuses at a gateway whose limit is 5 below the X-RateLimit-Limit the application counts down to (two configurations of one plan), its 429 saying Remaining 0: a 429 while the answer before said 5 left',
    rules: ['RATE-14'],
    overrides: {
      limiterPolicy: (reference) => ({ ...reference(), refuseBelowLimitBy: GATEWAY_LIMIT_SHORTFALL }),
      // The gateway's 429 carries its own headers, which say the window is spent.
      rateLimitHeaders: (admission, reference) => reference(admission.verdict === 'limited' ? { ...admission, remaining: 0 } : admission),
    },
  },
  {
    id: 'rate-remaining-stale-on-get-pet',
    area: 'ratelimit',
    description: 'answers GET /pets/{petId} with the X-RateLimit-Remaining read before that request was counted (its route\'s header hook runs before the limiter\'s): the next answer shows Remaining fallen by two',
    rules: ['RATE-15'],
    overrides: {
      outgoing: (request, reply, payload, reference, server) => {
        const admission = admissionOf(request);
        if (operationOf(request, server) === 'getPet' && admission?.verdict === 'ok') {
          const remaining = Number(reply.getHeader('x-ratelimit-remaining'));
          reply.header('x-ratelimit-remaining', String(Math.min(admission.limit, remaining + 1)));
        }
        return reference(request, reply, payload);
      },
    },
  },
  {
    id: 'rate-remaining-frozen-on-get-pet',
    area: 'ratelimit',
    description: 'answers GET /pets/{petId} with X-RateLimit-Remaining from a limiter instance of its own that is never incremented (always the limit), while the global one counts the request',
    rules: ['RATE-04', 'RATE-15'],
    // A window of some seconds: in the harness's 1.5 s one every step's Reset is within the two seconds whose
    // whole-second rounding leaves nothing to say of the pace, so RATE-04 (rightly) excuses any rise.
    options: { rateLimit: { limit: 40, windowMs: 8_000 } },
    overrides: {
      outgoing: (request, reply, payload, reference, server) => {
        if (operationOf(request, server) === 'getPet' && reply.hasHeader('x-ratelimit-remaining')) reply.header('x-ratelimit-remaining', String(server.settings.rateLimit.limit));
        return reference(request, reply, payload);
      },
    },
  },
  {
    id: 'rate-headers-skip-get-pet',
    area: 'ratelimit',
    description: 'sends no X-RateLimit-* on GET /pets/{petId}: the header plugin is registered on the /pets routes only',
    rules: ['FUZZ-03', 'RATE-01'],
    overrides: {
      outgoing: rateLimitHeadersLeftOff((request, _reply, server) => operationOf(request, server) === 'getPet'),
    },
  },
  {
    id: 'rate-headers-skip-post',
    area: 'ratelimit',
    description: 'sends no X-RateLimit-* on POST /pets answers: the headers are added by a decorator on the GET handlers',
    rules: ['FUZZ-03', 'RATE-01'],
    overrides: {
      outgoing: rateLimitHeadersLeftOff((request, _reply, server) => operationOf(request, server) === 'createPet'),
    },
  },
  {
    id: 'rate-headers-skip-401',
    area: 'ratelimit',
    description: 'sends no X-RateLimit-* on a 401: the auth middleware answers before the rate-limit middleware runs',
    rules: ['RATE-01'],
    overrides: {
      outgoing: rateLimitHeadersLeftOff((_request, reply) => reply.statusCode === 401),
    },
  },
  {
    id: 'rate-headers-skip-pet-not-found',
    area: 'ratelimit',
    description: 'sends no X-RateLimit-* with the 404 of an unknown pet: the NotFound exception handler builds a fresh response, dropping the headers the middleware set on the one it replaced',
    rules: ['FUZZ-03', 'RATE-01'],
    overrides: {
      outgoing: rateLimitHeadersLeftOff((request, reply, server) => operationOf(request, server) === 'getPet' && reply.statusCode === 404),
    },
  },
  {
    id: 'rate-reset-local-time',
    area: 'ratelimit',
    description: 'writes X-RateLimit-Reset from the window\'s end in local time read as UTC, an hour ahead on a host in Berlin (Python\'s naive datetime.now().timestamp() on a UTC+1 box), while Retry-After counts the real seconds',
    rules: ['RATE-16'],
    overrides: {
      rateLimitHeaders: (admission, reference) => ({ ...reference(admission), 'x-ratelimit-reset': String(Math.ceil(admission.resetAtMs / 1000) + 3_600) }),
    },
  },
  {
    id: 'rate-retry-after-milliseconds',
    area: 'ratelimit',
    description: 'sends Retry-After in milliseconds (30000 for half a minute), the unit its limiter counts in, so a client told to wait waits 8 hours past a reset half a minute away',
    rules: ['RATE-16'],
    overrides: {
      tooManyRequests: (admission, reference) => withHeaders(reference(admission), { 'retry-after': String(Math.max(1, admission.resetAtMs - admission.nowMs)) }),
    },
  },
  // ── habits of the blind gallery of round 1 ──
  {
    id: 'rate-limit-aspnet-503',
    area: 'ratelimit',
    description: 'refuses a request over the limit with 503, the default RejectionStatusCode of ASP.NET Core\'s rate-limiting middleware, left unset: no 429 and no Retry-After (the application\'s X-RateLimit-* headers, set before it, stay)',
    rules: ['RATE-07'],
    overrides: {
      tooManyRequests: () => ({ status: 503 }),
    },
  },
  {
    id: 'rate-reset-naive-utcnow',
    area: 'ratelimit',
    description: 'writes X-RateLimit-Reset from datetime.utcnow() + window, then .timestamp(), which reads the naive UTC time as local time: on a host in Tokyo every Reset lies nine hours in the past',
    rules: ['FUZZ-03', 'RATE-05'],
    overrides: {
      rateLimitHeaders: (admission, reference) => ({ ...reference(admission), 'x-ratelimit-reset': String(Math.ceil(admission.resetAtMs / 1000) - TOKYO_OFFSET_S) }),
    },
  },
  // ── a 429's two times, each stated its own way ──
  {
    id: 'rate-retry-after-date-local-zone',
    area: 'ratelimit',
    description: 'writes Retry-After as an HTTP-date with a SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss \'GMT\'") never given a time zone: on a host at UTC+1 the reset time is written in local time under the label GMT, an hour after X-RateLimit-Reset',
    rules: ['RATE-16'],
    overrides: {
      tooManyRequests: (admission, reference) => withHeaders(reference(admission), { 'retry-after': new Date(Math.ceil(admission.resetAtMs / 1000) * 1000 + UTC_PLUS_ONE_MS).toUTCString() }),
    },
  },
  {
    id: 'rate-retry-after-hardcoded-60',
    area: 'ratelimit',
    description: 'sends a fixed Retry-After: 60 from the proxy\'s config (add_header Retry-After 60 always), written for a minute\'s window, in front of a limiter whose window is 5 s: every 429 tells the client to wait long after the X-RateLimit-Reset it states',
    rules: ['RATE-16'],
    options: { rateLimit: BURST_WINDOW },
    overrides: {
      tooManyRequests: (admission, reference) => withHeaders(reference(admission), { 'retry-after': '60' }),
    },
  },
  {
    id: 'rate-retry-after-constant-1',
    area: 'ratelimit',
    description: 'sends Retry-After: 1 on every 429 (a rejection handler that sets RetryAfter to one second, written for a token bucket) in front of a fixed window of a minute: the client retries at once and is refused again until the X-RateLimit-Reset the 429 also states',
    rules: ['RATE-11', 'RATE-16'],
    options: { rateLimit: MINUTE_LIKE_WINDOW },
    overrides: {
      tooManyRequests: (admission, reference) => withHeaders(reference(admission), { 'retry-after': '1' }),
    },
  },
  // ── what the counts mean ──
  {
    id: 'rate-remaining-reports-used',
    area: 'ratelimit',
    description: 'writes the requests used in the window under X-RateLimit-Remaining (the counter itself, which GitHub sends as X-RateLimit-Used beside the real Remaining): it rises request by request and says the limit on a 429',
    rules: ['RATE-10', 'RATE-14'],
    overrides: {
      rateLimitHeaders: (admission, reference) => reference({ ...admission, remaining: admission.limit - admission.remaining }),
    },
  },
  {
    id: 'rate-limit-per-route',
    area: 'ratelimit',
    description: 'mounts a limiter instance per router (router.use(rateLimit(...)) in each, express-rate-limit\'s MemoryStores all resetting together): each counts only its own routes, so X-RateLimit-Remaining on /pets/{petId} or /store/orders knows nothing of the key\'s requests to /pets, and rises between them, and one window serves the key more than its Limit',
    rules: ['RATE-04', 'RATE-15', 'RATE-17'],
    options: { rateLimit: MINUTE_LIKE_WINDOW },
    overrides: countedApart((request) => request.routeOptions.url ?? 'unrouted'),
  },
  {
    id: 'rate-headers-doubled-by-gateway',
    area: 'ratelimit',
    description: 'sends each X-RateLimit-* header twice: a Tyk gateway in front sets them from the key\'s quota (the Business plan\'s day) and keeps the application\'s beside its own, so a client reads each as one field, "100000, 1000", which is no integer',
    rules: ['FUZZ-03', 'RATE-02'],
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        // The gateway counts the key's quota, a larger window: the Business plan's day.
        const gateway = { 'x-ratelimit-limit': '100000', 'x-ratelimit-remaining': '99000', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 86_400_000) * 86_400) };
        for (const [name, value] of Object.entries(gateway)) {
          const own = reply.getHeader(name);
          if (own !== undefined) reply.header(name, [value, String(own)]);
        }
        return reference(request, reply, payload);
      },
    },
  },
  {
    id: 'rate-limit-per-worker-store',
    area: 'ratelimit',
    description: 'runs four cluster workers (PM2 cluster mode), each with express-rate-limit\'s default MemoryStore: each counts only the requests it was handed, so the key is served four times X-RateLimit-Limit in one window, and Remaining is whichever worker answered',
    rules: ['RATE-07', 'RATE-17'],
    options: { rateLimit: BURST_WINDOW },
    overrides: countedApart((_request, server) => workerOf(server)),
  },
  {
    id: 'rate-limit-off-by-one',
    area: 'ratelimit',
    description: 'refuses a request once the count is past the limit rather than at it (count > limit where count >= limit was meant): a fixed window serves one more request than X-RateLimit-Limit, after an answer that said Remaining 0',
    // RATE-17 counts only the 2xx a window served, and the window holds a 404 of the run besides, which the limiter counted.
    rules: ['RATE-07'],
    options: { rateLimit: BURST_WINDOW },
    overrides: countedApart(() => 'every request', 1),
  },
] as const satisfies readonly DefectSpec[];
