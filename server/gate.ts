import type { FastifyReply, FastifyRequest } from 'fastify';
import { validBearerKey } from './auth.js';
import type { Admission } from './rate-limiter.js';
import { send, sendError, withHeaders } from './responses.js';
import { operationOf } from './routes.js';
import type { Context, Seams } from './seams.js';

export const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;

// The admission of each request, for the count settled once its status is known and for the way out.
const admissions = new WeakMap<FastifyRequest, Admission>();

/** The reference seams of the rate limit (spec, Limits): per key, fixed windows, and the headers on every response. */
export function rateLimitSeams(ctx: Context): Pick<Seams, 'limiterPolicy' | 'rateLimitBucket' | 'rateLimitHeaders' | 'tooManyRequests'> {
  return {
    limiterPolicy: () => ({ enforce: true, carryExhaustion: false }),
    // Which operations or callers the limits apply to is not shown; the reference counts every request, by key.
    rateLimitBucket: (request, key) => key ?? `anon:${request.ip}`,
    rateLimitHeaders: ({ limit, remaining, resetAtMs }) => ({
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      // A Unix timestamp, in seconds.
      'x-ratelimit-reset': String(Math.ceil(resetAtMs / 1000)),
    }),
    tooManyRequests: (admission) => withHeaders(
      ctx.seams.error(429, 'rate_limited', `rate limit of ${admission.limit} requests exceeded`),
      { 'retry-after': retryAfterSeconds(admission) },
    ),
  };
}

/** Delta-seconds, rounded up so a client that waits exactly that long lands in the next window (or finds the next token). */
export function retryAfterSeconds({ resetAtMs, freeAtMs, nowMs }: Admission): string {
  return String(Math.max(1, Math.ceil(((freeAtMs ?? resetAtMs) - nowMs) / 1000)));
}

/** Whole seconds until the window resets. */
export function secondsUntilReset({ resetAtMs, nowMs }: Admission): number {
  return Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000));
}

/** What the limiter decided for this request (undefined for one that never passed the gate). */
export function admissionOf(request: FastifyRequest): Admission | undefined {
  return admissions.get(request);
}

/** Bucket → rate limit → auth, for every request including unknown routes, before any body is read. */
export function gate(ctx: Context): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  return async (request, reply) => {
    const key = validBearerKey(request.headers.authorization, ctx.seams.acceptedKeys());
    const admission = ctx.limiter.admit(ctx.seams.rateLimitBucket(request, key), key !== undefined);
    admissions.set(request, admission);
    setHeaders(reply, ctx.seams.rateLimitHeaders(admission));
    // Only a limiter policy that bans answers this: "continuing to send requests after a 429 may lead to a temporary ban".
    if (admission.verdict === 'banned') return sendError(reply, ctx, 403, 'banned', 'this API key is banned for ignoring 429 responses');
    if (admission.verdict === 'limited') return send(reply, ctx, ctx.seams.tooManyRequests(admission));
    const refused = ctx.seams.authenticate(request, operationOf(request, ctx));
    return refused === undefined ? undefined : send(reply, ctx, refused);
  };
}

/** A limiter that counts only what succeeded settles a request once its status is known; its headers say so. */
export function settleCount(request: FastifyRequest, reply: FastifyReply, ctx: Context): void {
  const admission = admissions.get(request);
  if (!admission?.settle) return;
  const remaining = admission.settle(reply.statusCode < 400);
  setHeaders(reply, ctx.seams.rateLimitHeaders({ ...admission, remaining }));
}

/** Removes the X-RateLimit-* headers from a response on its way out. */
export function removeRateLimitHeaders(reply: FastifyReply): void {
  for (const header of RATE_LIMIT_HEADERS) reply.removeHeader(header);
}

function setHeaders(reply: FastifyReply, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
}
