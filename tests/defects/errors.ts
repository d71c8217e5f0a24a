import { deflateRawSync, gzipSync } from 'node:zlib';
import { bodyText } from '../../server/creating.js';
import { petIdOf } from '../../server/fetching.js';
import { json, text } from '../../server/responses.js';
import { isRefusal, onAnswer, type OperationId, type SeamOverride } from '../../server/seams.js';
import { expressErrorPage, NGINX_401, NGINX_404 } from './pages.js';
import type { DefectSpec } from './spec.js';

// Past it, the compression of list-double-gzip, proxy-keeps-content-encoding and deflate-raw-php runs (Express
// compression's default threshold): a page of pets, not a single pet or an Error.
const LARGE_BODY_BYTES = 1024;

const ERROR_BODY_RULES = ['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04', 'AUTH-05'] as const;
const CREATE_400_RULES = ['CREATE-08', 'CREATE-09', 'CREATE-10', 'CREATE-11', 'CREATE-12', 'CREATE-13'] as const;
// Every check that validates an Error body: a body the schema rejects fails all of them.
const ERROR_SCHEMA_RULES = ['ERR-02', ...ERROR_BODY_RULES, 'AUTH-10', 'AUTH-11', ...CREATE_400_RULES, 'LIST-06', 'LIST-07', 'FETCH-02', 'FUZZ-01', 'FUZZ-03', 'RATE-09'] as const;

/** Defects of the errors area. */
/** The operation's 200 answers sent with another Content-Type, the body as it was. */
function successesTyped(operation: OperationId, contentType: string): SeamOverride<'respond'> {
  return onAnswer(operation, (answer) => (answer.status === 200 ? { ...answer, contentType } : answer));
}

export const ERRORS_DEFECTS = [
  {
    id: 'errors-text-plain',
    area: 'errors',
    description: 'sends every error as text/plain (the body is still the JSON Error)',
    rules: ['FUZZ-03', 'ERR-01'],
    overrides: {
      error: (status, code, message, reference) => ({ ...reference(status, code, message), contentType: 'text/plain; charset=utf-8' }),
    },
  },
  {
    id: 'errors-status-always-400',
    area: 'errors',
    description: 'writes status 400 in every Error body',
    rules: ['FUZZ-03', 'ERR-03', 'RATE-09'],
    overrides: {
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        return { ...error, json: { ...error.json, status: 400 } };
      },
    },
  },
  {
    id: 'errors-without-code',
    area: 'errors',
    description: 'leaves code out of every Error body',
    rules: ERROR_SCHEMA_RULES,
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        const { code: _code, ...json } = error.json;
        return { ...error, json };
      },
    },
  },
  {
    id: 'list-text-plain',
    area: 'errors',
    description: 'sends the GET /pets list as text/plain',
    rules: ['FUZZ-03', 'ERR-05'],
    overrides: {
      respond: successesTyped('listPets', 'text/plain; charset=utf-8'),
    },
  },
  {
    id: 'errors-unknown-status-500',
    area: 'errors',
    description: 'answers an unknown status filter with 500',
    rules: ['ERR-04'],
    alsoMetIn: ['listing'],
    overrides: {
      parseStatus: (raw, reference) => {
        const status = reference(raw);
        return isRefusal(status) ? { status: 500, message: 'internal error' } : status;
      },
    },
  },
  {
    id: 'errors-status-string',
    area: 'errors',
    description: 'writes the Error status as a string ("status": "404"): a Pydantic model declaring status: str, or String(res.statusCode) in an Express error handler',
    rules: ERROR_SCHEMA_RULES,
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        return { ...error, json: { ...error.json, status: String(error.json.status) } };
      },
    },
  },
  {
    id: 'errors-message-null',
    area: 'errors',
    description: 'writes "message": null: Jackson serialises the null getReason() of a Spring ResponseStatusException thrown without a reason',
    rules: ERROR_SCHEMA_RULES,
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        return { ...error, json: { ...error.json, message: null } };
      },
    },
  },
  {
    id: 'errors-detail-not-message',
    area: 'errors',
    description: 'puts the human-readable text under detail instead of message, as FastAPI\'s HTTPException does',
    rules: ERROR_SCHEMA_RULES,
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        const { message: detail, ...json } = error.json;
        return { ...error, json: { ...json, detail } };
      },
    },
  },
  {
    id: 'errors-problem-json',
    area: 'errors',
    description: 'sends errors as application/problem+json (Spring 6 ProblemDetail\'s media type) though the body is the spec\'s Error',
    rules: ['FUZZ-03', 'ERR-01'],
    overrides: {
      error: (status, code, message, reference) => ({ ...reference(status, code, message), contentType: 'application/problem+json' }),
    },
  },
  {
    id: 'errors-envelope',
    area: 'errors',
    description: 'wraps every Error in an envelope, {"error": {"code", "message", "status"}}, as Google\'s JSON style guide does',
    rules: ERROR_SCHEMA_RULES,
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        return { ...error, json: { error: error.json } };
      },
    },
  },
  {
    id: 'json-content-type-sniffed',
    area: 'errors',
    description: 'never sets Content-Type, so Go\'s net/http sniffs every JSON body as text/plain; charset=utf-8 (errors and successes alike)',
    rules: ['FUZZ-03', 'ERR-01', 'ERR-05'],
    overrides: {
      // http.DetectContentType names JSON text "text/plain; charset=utf-8".
      outgoing: (request, reply, payload, reference) => {
        if (/^application\/json/.test(String(reply.getHeader('content-type') ?? ''))) reply.header('content-type', 'text/plain; charset=utf-8');
        return reference(request, reply, payload);
      },
    },
  },
  {
    id: 'fetch-404-nginx-page',
    area: 'errors',
    description: 'answers an unknown pet with nginx\'s own 404 page (text/html): proxy_intercept_errors on in front of the API replaces the upstream\'s Error body',
    rules: ['FETCH-02', 'FUZZ-03', 'ERR-01', 'ERR-02'],
    overrides: {
      petNotFound: () => text(404, 'text/html', NGINX_404),
    },
  },
  {
    id: 'fetch-petid-express-html',
    area: 'errors',
    description: 'refuses a malformed petId with Express\'s finalhandler HTML page: next(createError(400)) reaches no error middleware of the app\'s own',
    // Still a 4xx, which is all FETCH-03 asks: only the format rules see it.
    rules: ['ERR-01', 'ERR-02'],
    alsoMetIn: ['fetching'],
    overrides: {
      // next(createError(400, 'Invalid petId')) with no error middleware of the app's own: Express's finalhandler page.
      invalidParameter: (parameter, refusal, reference) => (parameter === 'petId' && refusal.status === 400
        ? text(400, 'text/html; charset=utf-8', expressErrorPage('BadRequestError: Invalid petId'))
        : reference(parameter, refusal)),
    },
  },
  {
    id: 'list-limit-drf-field-errors',
    area: 'errors',
    description: 'refuses a bad limit with Django REST framework\'s serializer errors, {"limit": ["A valid integer is required."]}, instead of an Error body',
    rules: ['LIST-06', 'LIST-07', 'ERR-02'],
    overrides: {
      invalidParameter: (parameter, refusal, reference) => (parameter === 'limit' && refusal.status === 400
        ? json(400, { limit: ['A valid integer is required.'] })
        : reference(parameter, refusal)),
    },
  },
  {
    id: 'fetch-express-send-string',
    area: 'errors',
    description: 'serves GET /pets/{petId} with res.send(JSON.stringify(pet)): Express types a string body text/html',
    rules: ['FUZZ-03', 'ERR-05'],
    overrides: {
      // A string body goes out as text/html.
      respond: successesTyped('getPet', 'text/html; charset=utf-8'),
    },
  },
  {
    id: 'list-status-sendstatus-400',
    area: 'errors',
    description: 'refuses an unknown status filter with Express\'s res.sendStatus(400): "Bad Request" as text/plain, no Error body',
    rules: ['ERR-01', 'ERR-02'],
    alsoMetIn: ['listing'],
    overrides: {
      invalidParameter: (parameter, refusal, reference) => (parameter === 'status' && refusal.status === 400
        ? text(400, 'text/plain; charset=utf-8', 'Bad Request')
        : reference(parameter, refusal)),
    },
  },
  {
    id: 'list-hal-json',
    area: 'errors',
    description: 'sends the GET /pets array as application/hal+json: Spring HATEOAS negotiates its media type for a collection resource, though the body is a plain array',
    rules: ['FUZZ-03', 'ERR-05'],
    overrides: {
      respond: successesTyped('listPets', 'application/hal+json'),
    },
  },
  {
    id: 'fetch-jsonapi-media-type',
    area: 'errors',
    description: 'sends GET /pets/{petId} as application/vnd.api+json (a JSON:API serializer\'s media type) though the body is the spec\'s Pet',
    rules: ['FUZZ-03', 'ERR-05'],
    overrides: {
      respond: successesTyped('getPet', 'application/vnd.api+json'),
    },
  },
  {
    id: 'store-orders-nginx-401',
    area: 'errors',
    description: 'answers GET /store/orders without a valid key with nginx\'s own 401 page: auth_request on the /store/ location, in front of the API',
    rules: ['AUTH-01', 'AUTH-02', 'AUTH-03', 'AUTH-04', 'AUTH-05', 'ERR-01', 'ERR-02', 'AUTH-08'],
    overrides: {
      authenticate: (request, operation, reference) => {
        const refused = reference(request, operation);
        return refused !== undefined && operation === 'getStoreOrders' ? text(401, 'text/html', NGINX_401) : refused;
      },
    },
  },
  {
    id: 'fetch-route-regex-default-404',
    area: 'errors',
    description: 'routes /pets/:petId(\\d+) in Express, so a petId that is not digits matches no route and gets finalhandler\'s "Cannot GET" page (404, text/html)',
    // A 4xx is all FETCH-03 asks, and AUTH-07 allows a 404 from a router that matches integer ids only; the
    // unknown pet -1 is not digits either, so FETCH-02 gets the page instead of an Error.
    rules: ['FETCH-02', 'FUZZ-03', 'ERR-01', 'ERR-02'],
    overrides: {
      authenticate: (request, operation, reference) => (operation === 'getPet' && !/^[0-9]+$/.test(petIdOf(request))
        ? text(404, 'text/html; charset=utf-8', expressErrorPage(`Cannot GET ${request.url.replace(/[<>&"]/g, '')}`))
        : reference(request, operation)),
    },
  },
  {
    id: 'auth-401-gateway-text-plain',
    area: 'errors',
    description: 'sends every 401 as text/plain though its body is the Error: an API gateway\'s response template for unauthorized requests sets its own Content-Type',
    rules: ['ERR-01'],
    overrides: {
      unauthorized: (request, reference) => ({ ...reference(request), contentType: 'text/plain' }),
    },
  },
  {
    id: 'create-empty-body-text-400',
    area: 'errors',
    description: 'refuses an empty createPet body with res.status(400).send(\'Bad Request\'): Express types the string text/html, and there is no Error body',
    rules: ['CREATE-13', 'ERR-01', 'ERR-02'],
    // A malformed body cut short to nothing, when the seed draws one.
    byChance: ['FUZZ-01'],
    overrides: {
      // Express: an empty body reaches the handler as {}, and a hand-written check answers res.status(400).send('Bad Request').
      invalidNewPet: (failure, request, reference) => (failure.status === 400 && bodyText(request).trim() === ''
        ? text(400, 'text/html; charset=utf-8', 'Bad Request')
        : reference(failure, request)),
    },
  },
  {
    id: 'body-limit-status-field-400',
    area: 'errors',
    description: 'refuses a body over the limit with 413 but writes status 400 in its Error: one generic "bad request body" handler builds the body for every body-parser error',
    rules: ['ERR-03'],
    alsoMetIn: ['requests'],
    overrides: {
      bodyTooLarge: (request, reference) => {
        const answer = reference(request);
        return answer.json !== undefined && typeof answer.json === 'object' ? { ...answer, json: { ...(answer.json as object), status: 400 } } : answer;
      },
    },
  },
  {
    id: 'errors-code-numeric',
    area: 'errors',
    description: 'sends code as the number of the HTTP status (Error { code: 404 }), as many hand-written error mappers do, where the spec asks for a string',
    rules: ERROR_SCHEMA_RULES,
    mishandlesEvery: { mutation: 'name-missing' },
    overrides: {
      error: (status, code, message, reference) => {
        const error = reference(status, code, message);
        return { ...error, json: { ...error.json, code: status } };
      },
    },
  },
  {
    id: 'list-double-gzip',
    area: 'errors',
    description: 'gzips a large body twice when the client accepts gzip (a compression filter of the framework and one of the servlet container, each adding its own) under one Content-Encoding: gzip, so a client that decodes it once holds gzip, not JSON',
    rules: ['ERR-05'],
    alsoMetIn: ['consistency'],
    // A store with pets, so that the last pages the consistency area reads are large enough to be compressed.
    options: { preload: 30 },
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        const sent = reference(request, reply, payload);
        const accepts = /\bgzip\b/i.test(String(request.headers['accept-encoding'] ?? ''));
        if (!accepts || !(typeof sent === 'string' || Buffer.isBuffer(sent)) || sent.length < LARGE_BODY_BYTES) return sent;
        reply.header('content-encoding', 'gzip');
        return gzipSync(gzipSync(sent));
      },
    },
  },
  {
    id: 'proxy-keeps-content-encoding',
    area: 'errors',
    description: 'stands behind a hand-written proxy (Python requests, axios) that forwards the client\'s Accept-Encoding, lets its HTTP client decompress what the upstream gzipped (bodies past Express compression\'s 1 kB threshold), and copies the upstream\'s headers verbatim: the plain body goes out with Content-Encoding: gzip',
    rules: ['ERR-05'],
    alsoMetIn: ['consistency'],
    // A store with pets, so that the last pages the consistency area reads are past the threshold.
    options: { preload: 30 },
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        const sent = reference(request, reply, payload);
        if (/\bgzip\b/i.test(String(request.headers['accept-encoding'] ?? '')) && (typeof sent === 'string' || Buffer.isBuffer(sent)) && sent.length >= LARGE_BODY_BYTES) {
          reply.header('content-encoding', 'gzip');
        }
        return sent;
      },
    },
  },
  {
    id: 'deflate-raw-php',
    area: 'errors',
    description: 'compresses a body past 1 kB by hand with PHP\'s gzdeflate() under Content-Encoding: deflate whenever the client accepts deflate: gzdeflate writes raw DEFLATE, where the deflate coding is the zlib format (gzcompress), so a client that decodes it as HTTP says fails',
    rules: ['ERR-05'],
    alsoMetIn: ['consistency'],
    options: { preload: 30 },
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        const sent = reference(request, reply, payload);
        if (!/\bdeflate\b/i.test(String(request.headers['accept-encoding'] ?? '')) || !(typeof sent === 'string' || Buffer.isBuffer(sent)) || sent.length < LARGE_BODY_BYTES) return sent;
        reply.header('content-encoding', 'deflate');
        return deflateRawSync(sent);
      },
    },
  },
  {
    id: 'servlet-writer-latin1',
    area: 'errors',
    description: 'writes JSON through a servlet\'s getWriter() after setContentType("application/json") with no charset, so the container encodes it in ISO-8859-1: ü goes out as the byte 0xFC, which is no UTF-8, and a character beyond Latin-1 as ?',
    // The 201 of a name with ü is no JSON, so it shows no id either (CREATE-04, CREATE-05).
    rules: ['ERR-05', 'CREATE-03', 'CREATE-04', 'CREATE-05', 'CREATE-19', 'FUZZ-03'],
    byChance: ['FUZZ-02'],
    alsoMetIn: ['creating'],
    overrides: {
      outgoing: (request, reply, payload, reference) => {
        const sent = reference(request, reply, payload);
        if (!(typeof sent === 'string' || Buffer.isBuffer(sent)) || !/^application\/json\b/i.test(String(reply.getHeader('content-type') ?? ''))) return sent;
        // ISO-8859-1 has a byte for U+0000..U+00FF and writes ? for every other character.
        reply.header('content-type', 'application/json;charset=ISO-8859-1');
        return Buffer.from(sent.toString('utf8').replace(/[^\u0000-\u00ff]/gu, '?'), 'latin1');
      },
    },
  },
] as const satisfies readonly DefectSpec[];
