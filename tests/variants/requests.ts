import type { FastifyRequest } from 'fastify';
import { stringify } from 'lossless-json';
import { bodyText } from '../../server/creating.js';
import { withHeaders } from '../../server/responses.js';
import { admitsJson } from '../../helpers/http/accept.js';
import type { Answer, Context, Overrides } from '../../server/seams.js';
import type { VariantSpec } from './spec.js';

/** The methods the extension-methods variant implements on a pet, beyond the spec's GET. */
const EXTENSION_METHODS = ['PUT', 'PATCH', 'DELETE'];

/**
 * DELETE, PUT and PATCH on a pet, as a store that implements them does: DELETE forgets the pet (204), PUT replaces
 * its NewPet fields and PATCH merges new ones over them (RFC 7396), each answered with the pet as it now is.
 */
function extended(request: FastifyRequest, server: Context): Answer {
  const raw = (request.params as { petId?: string }).petId ?? '';
  const id = /^-?[0-9]+$/.test(raw) ? BigInt(raw) : undefined;
  const pet = id === undefined ? undefined : server.store.get(id);
  if (!pet) return server.seams.petNotFound(request);
  if (request.method === 'DELETE') {
    server.store.delete(pet.id);
    return { status: 204 };
  }
  const text = request.method === 'PATCH' ? patched(pet, bodyText(request), server) : bodyText(request);
  const read = server.seams.readNewPet(text);
  if (!read.ok) return server.seams.invalidNewPet(read, request);
  Object.assign(pet, { name: read.pet.name, categoryId: read.pet.categoryId, status: read.pet.status });
  return { status: 200, json: server.seams.petBody(pet, 'getPet') };
}

/** The text of the NewPet a merge patch makes of the pet's fields; the patch itself when it is no JSON object. */
function patched(pet: { name?: string | null; categoryId: bigint | number | null; status?: string | null }, patch: string, server: Context): string {
  let members: unknown;
  try {
    members = server.seams.parseBody(patch);
  } catch {
    return patch;
  }
  if (typeof members !== 'object' || members === null || Array.isArray(members)) return patch;
  const current = { name: pet.name ?? null, categoryId: pet.categoryId, ...(pet.status ? { status: pet.status } : {}) };
  // lossless-json writes back the literals parseBody kept, and bigints, exactly.
  return stringify({ ...current, ...members }) ?? patch;
}

/** The overrides of a server that takes no HEAD: 405 with what the path does take, and no HEAD in any Allow. */
const NO_HEAD: Overrides = {
  respond: async (operation, request, reference) => (request.method === 'HEAD'
    ? { status: 405, headers: { allow: operation === 'listPets' || operation === 'createPet' ? 'GET, POST, OPTIONS' : 'GET, OPTIONS' } }
    : reference(operation, request)),
  options: (request, allow, reference) => reference(request, allow.replace('HEAD, ', '')),
  otherMethod: (request, allow, reference) => reference(request, allow.replace('HEAD, ', '')),
};

/** Conforming answers to the requests around the documented ones: the freedoms the spec and HTTP leave. */
export const REQUESTS_VARIANTS = [
  {
    id: 'unnamed-methods-404',
    area: 'requests',
    description: 'answers a method a path does not have, OPTIONS included, with a 404 Error, as routers that match method and path together do',
    overrides: {
      otherMethod: (request, _allow, _reference, server) => server.seams.notFound(request),
      options: (request, _allow, _reference, server) => server.seams.notFound(request),
    },
  },
  {
    id: 'unnamed-methods-501',
    area: 'requests',
    description: 'answers PUT, PATCH and DELETE with a 501 Error: it implements them nowhere (RFC 9110 §9.1, §15.6.2); a POST to a pet stays 405, POST being a method it has',
    overrides: {
      otherMethod: (request, allow, reference, server) => (request.method === 'POST'
        ? reference(request, allow)
        : server.seams.error(501, 'not_implemented', `${request.method} is not implemented`)),
    },
  },
  {
    id: 'extension-methods',
    area: 'requests',
    description: 'implements DELETE (204, the pet is gone), PUT and PATCH on /pets/{petId}, methods the spec does not name',
    overrides: {
      otherMethod: (request, allow, reference, server) => {
        if (!request.routeOptions.url?.endsWith('/:petId')) return reference(request, allow);
        return EXTENSION_METHODS.includes(request.method) ? extended(request, server) : reference(request, `${allow}, ${EXTENSION_METHODS.join(', ')}`);
      },
      options: (request, allow, reference) => reference(request, request.routeOptions.url?.endsWith('/:petId') ? `${allow}, ${EXTENSION_METHODS.join(', ')}` : allow),
    },
  },
  {
    id: 'head-405',
    area: 'requests',
    description: 'implements no HEAD: a 405 with an Allow header, and no body (HEAD is not a method the spec names)',
    overrides: NO_HEAD,
  },
  {
    id: 'options-cors',
    area: 'requests',
    description: 'answers every OPTIONS as a CORS preflight, 204 with Access-Control-Allow-* headers, before authentication and after the rate limiter',
    overrides: {
      authenticate: (request, operation, reference) => (request.method === 'OPTIONS'
        ? withHeaders({ status: 204 }, {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': 'Authorization, Content-Type',
          'access-control-max-age': '600',
        })
        : reference(request, operation)),
    },
  },
  {
    id: 'routing-before-auth',
    area: 'requests',
    description: 'answers a path no operation has with a 404 Error before looking at the key (the spec requires the key of every operation, and such a path is none)',
    overrides: {
      authenticate: (request, operation, reference, server) => (request.is404 ? server.seams.notFound(request) : reference(request, operation)),
    },
  },
  {
    id: 'body-limit-8mib',
    area: 'requests',
    description: 'takes bodies up to 8 MiB, so a NewPet padded to 4 MiB is created (the maximum body size is not shown)',
    options: { bodyLimitBytes: 8 * 1024 * 1024 },
  },
  {
    id: 'body-too-large-400',
    area: 'requests',
    description: 'refuses a body over its 1 MiB limit with a 400 Error instead of 413',
    overrides: {
      bodyTooLarge: (_request, _reference, server) => server.seams.error(400, 'invalid_body', `the request body is larger than ${server.settings.bodyLimitBytes} bytes`),
    },
  },
  {
    id: 'accept-406',
    area: 'requests',
    description: 'answers an Accept header that admits no application/json with a 406 Error, as content negotiation allows (RFC 9110 §15.5.7)',
    overrides: {
      respond: async (operation, request, reference, server) => (admitsJson(request.headers.accept)
        ? reference(operation, request)
        : server.seams.error(406, 'not_acceptable', 'this API serves application/json only')),
    },
  },
  {
    id: 'body-limit-16kib',
    area: 'requests',
    description: 'takes request bodies up to 16 KiB and refuses a larger one with a 413 Error, as an edge runtime with a small limit does (the maximum body size is not shown)',
    options: { bodyLimitBytes: 16 * 1024 },
  },
] as const satisfies readonly VariantSpec[];
