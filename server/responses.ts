import type { FastifyReply } from 'fastify';
import { stringifyJson } from '../helpers/json.js';
import type { Answer, Context, ErrorAnswer, PetBody, Seams } from './seams.js';

// Plain, without a charset: a server that adds one is a real difference a client must tolerate.
const JSON_TYPE = 'application/json';

/** A JSON answer; `contentType` only where it is not application/json. */
export function json(status: number, body: unknown, contentType?: string): Answer {
  return contentType === undefined ? { status, json: body } : { status, json: body, contentType };
}

/** A text answer, `body` as it is. */
export function text(status: number, contentType: string, body: string): Answer {
  return { status, contentType, text: body };
}

/** The answer with these headers added (or replaced). */
export function withHeaders(answer: Answer, headers: Readonly<Record<string, string>>): Answer {
  return { ...answer, headers: { ...answer.headers, ...headers } };
}

/** The answer without that header. */
export function withoutHeader(answer: Answer, name: string): Answer {
  const { [name]: _removed, ...headers } = answer.headers ?? {};
  return { ...answer, headers };
}

/** Writes an answer out: headers, status, Content-Type, body. */
export function send(reply: FastifyReply, ctx: Context, answer: Answer): FastifyReply {
  for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
  reply.code(answer.status);
  const contentType = answer.contentType ?? (answer.json === undefined ? undefined : ctx.seams.jsonType());
  if (contentType !== undefined) reply.header('content-type', contentType);
  // A Buffer, because fastify appends "; charset=utf-8" to any JSON type sent as a string.
  if (answer.json !== undefined) return reply.send(Buffer.from(stringifyJson(answer.json), 'utf8'));
  return answer.text === undefined ? reply.send() : reply.send(answer.text);
}

/** The reference seams of what every answer is made of: the JSON media type, the Error and the Pet. */
export function responseSeams(): Pick<Seams, 'jsonType' | 'error' | 'petBody'> {
  return {
    jsonType: () => JSON_TYPE,
    // The spec's Error: code, message, and status equal to the HTTP status.
    error: (status, code, message): ErrorAnswer => ({ status, json: { code, message, status } }),
    // The Pet as the spec shapes it: id, name, categoryId, and status only when the pet has one.
    petBody: (pet) => {
      const body: PetBody = { id: pet.id };
      if (pet.name !== undefined) body.name = pet.name;
      body.categoryId = pet.categoryId;
      if (pet.status !== undefined) body.status = pet.status;
      return body;
    },
  };
}

/** Sends the spec's Error, built by the `error` seam. */
export function sendError(reply: FastifyReply, ctx: Context, status: number, code: string, message: string): FastifyReply {
  return send(reply, ctx, ctx.seams.error(status, code, message));
}
