import type { FastifyReply } from 'fastify';
import { stringifyJson } from '../helpers/json.js';
import type { Context } from './context.js';
import type { StoredPet } from './pet-store.js';
import type { Admission } from './rate-limiter.js';

export const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
// Plain by default so that the charset variant is a real difference a client must tolerate.
const JSON_TYPE = 'application/json';
const JSON_TYPE_WITH_CHARSET = 'application/json; charset=utf-8';

export function jsonType(ctx: Context): string {
  return ctx.variant('charset') ? JSON_TYPE_WITH_CHARSET : JSON_TYPE;
}

/** Sends a body through the bigint-safe serializer; `contentType` overrides the JSON type. */
export function sendJson(reply: FastifyReply, ctx: Context, status: number, body: unknown, contentType?: string): FastifyReply {
  // A Buffer, because fastify appends "; charset=utf-8" to any JSON type sent as a string.
  const payload = Buffer.from(stringifyJson(body), 'utf8');
  return reply.code(status).header('content-type', contentType ?? jsonType(ctx)).send(payload);
}

/** Sends the spec's Error body; the error-format defects live here because every error passes through. */
export function sendError(reply: FastifyReply, ctx: Context, status: number, code: string, message: string): FastifyReply {
  return sendJson(reply, ctx, status, errorBody(ctx, status, code, message), errorContentType(ctx));
}

function errorBody(ctx: Context, status: number, code: string, message: string): Record<string, unknown> {
  const body: Record<string, unknown> = { code, message, status: ctx.has('errors-status-always-400') ? 400 : status };
  if (ctx.has('errors-without-code')) delete body.code;
  if (ctx.has('errors-status-string')) body.status = String(body.status);
  if (ctx.has('errors-message-null')) body.message = null;
  if (ctx.has('errors-detail-not-message')) {
    delete body.message;
    body.detail = message;
  }
  // Extra members are allowed: the Error schema names what must be there, not all that may be.
  if (ctx.variant('error-extra-members')) Object.assign(body, { details: [], traceId: `trace-${status}-${code}` });
  return ctx.has('errors-envelope') ? { error: body } : body;
}

function errorContentType(ctx: Context): string | undefined {
  if (ctx.has('errors-text-plain')) return 'text/plain; charset=utf-8';
  if (ctx.has('errors-problem-json')) return 'application/problem+json';
  return undefined;
}

/** Sends a status with an empty text/plain body, as some defects do instead of an Error. */
export function sendEmpty(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).header('content-type', 'text/plain; charset=utf-8').send('');
}

/** The Pet as the spec shapes it: id, name, categoryId, and status only when the pet has one. */
export function petBody(pet: StoredPet, ctx: Context): Record<string, unknown> {
  const body: Record<string, unknown> = { id: pet.id };
  if (pet.name !== undefined) body.name = pet.name;
  body.categoryId = pet.categoryId;
  if (pet.status !== undefined) body.status = pet.status;
  if (ctx.variant('extra-fields')) Object.assign(body, { createdAt: pet.createdAt, tags: [] });
  return body;
}

export function setRateLimitHeaders(reply: FastifyReply, admission: Admission, ctx: Context): void {
  const { limit } = admission;
  if (ctx.has('rate-headers-draft-only')) {
    // express-rate-limit with legacyHeaders: false sends the IETF draft's headers, and no X-RateLimit-*.
    reply.header('ratelimit-policy', `${limit};w=${Math.round(ctx.settings.rateLimit.windowMs / 1000)}`);
    reply.header('ratelimit', `limit=${limit}, remaining=${reportedRemaining(admission, ctx)}, reset=${secondsUntilReset(admission)}`);
    return;
  }
  reply.header('x-ratelimit-limit', ctx.has('rate-limit-header-decimal') ? `${limit}.0` : String(limit));
  reply.header('x-ratelimit-remaining', String(reportedRemaining(admission, ctx)));
  reply.header('x-ratelimit-reset', reportedReset(admission, ctx));
}

function secondsUntilReset({ resetAtMs, nowMs }: Admission): number {
  return Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000));
}

function reportedReset(admission: Admission, ctx: Context): string {
  if (ctx.has('rate-reset-delta-seconds')) return String(secondsUntilReset(admission));
  // JavaScript's Date.now() counts milliseconds; a Unix timestamp counts seconds.
  if (ctx.has('rate-reset-milliseconds')) return String(admission.resetAtMs);
  // The Retry-After formatter reused for a header whose spec says Unix timestamp.
  if (ctx.has('rate-reset-http-date')) return new Date(Math.ceil(admission.resetAtMs / 1000) * 1000).toUTCString();
  return String(Math.ceil(admission.resetAtMs / 1000));
}

function reportedRemaining({ verdict, limit, remaining }: Admission, ctx: Context): number {
  if (ctx.has('rate-remaining-frozen')) return limit;
  // Read before the counter adds this request; a refused request was never added, so its 0 is right.
  if (ctx.has('rate-remaining-before-count') && verdict === 'ok') return Math.min(limit, remaining + 1);
  // The gateway's 429 carries its own headers, which say the window is spent.
  if (ctx.has('rate-enforced-below-limit') && verdict === 'limited') return 0;
  if (ctx.has('rate-429-remaining-nonzero') && verdict === 'limited') return 1;
  // limit - count with the refused request counted too, and no clamp at zero.
  if (ctx.has('rate-429-remaining-negative') && verdict === 'limited') return remaining - 1;
  // Kept at 0 once exhausted so that only RATE-03 sees this defect.
  if (ctx.has('rate-remaining-above-limit') && remaining > 0) return remaining + limit;
  return remaining;
}

/** Delta-seconds, rounded up so a client that waits exactly that long lands in the next window. */
export function retryAfter({ resetAtMs, nowMs }: Admission, ctx: Context): string {
  if (ctx.variant('retry-after-http-date')) return new Date(Math.ceil(resetAtMs / 1000) * 1000).toUTCString();
  // Python's str(reset_at - time.time()): a float of seconds, which delta-seconds (digits only) is not.
  if (ctx.has('rate-retry-after-fractional')) return Math.max(0.001, (resetAtMs - nowMs) / 1000).toFixed(3);
  return String(Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000)));
}
