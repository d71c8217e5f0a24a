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
  const body: Record<string, unknown> = { code, message, status: ctx.has('errors-status-always-400') ? 400 : status };
  if (ctx.has('errors-without-code')) delete body.code;
  const contentType = ctx.has('errors-text-plain') ? 'text/plain; charset=utf-8' : undefined;
  return sendJson(reply, ctx, status, body, contentType);
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
  const { limit, resetAtMs, nowMs } = admission;
  reply.header('x-ratelimit-limit', ctx.has('rate-limit-header-decimal') ? `${limit}.0` : String(limit));
  reply.header('x-ratelimit-remaining', String(reportedRemaining(admission, ctx)));
  const reset = ctx.has('rate-reset-delta-seconds') ? Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000)) : Math.ceil(resetAtMs / 1000);
  reply.header('x-ratelimit-reset', String(reset));
}

function reportedRemaining({ verdict, limit, remaining }: Admission, ctx: Context): number {
  if (ctx.has('rate-remaining-frozen')) return limit;
  if (ctx.has('rate-429-remaining-nonzero') && verdict === 'limited') return 1;
  // Kept at 0 once exhausted so that only RATE-03 sees this defect.
  if (ctx.has('rate-remaining-above-limit') && remaining > 0) return remaining + limit;
  return remaining;
}

/** Delta-seconds, rounded up so a client that waits exactly that long lands in the next window. */
export function retryAfter({ resetAtMs, nowMs }: Admission, ctx: Context): string {
  if (ctx.variant('retry-after-http-date')) return new Date(Math.ceil(resetAtMs / 1000) * 1000).toUTCString();
  return String(Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000)));
}
