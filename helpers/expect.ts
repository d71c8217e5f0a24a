import type { Exchange, RecordedResponse } from './exchange.js';
import { describeExchange } from './exchange.js';
import type { Json } from './json.js';
import { RuleViolation } from './outcome.js';
import { validateSchema, type SchemaName } from './schema.js';

/** The response of an exchange the client returned: it always has one (transport failures throw). */
export function responseOf(exchange: Exchange): RecordedResponse {
  if (!exchange.response) throw new Error(`no response recorded for ${describeExchange(exchange)}`);
  return exchange.response;
}

/** Fails unless the status is one of `allowed`: "expected status 404, saw 200". */
export function expectStatus(exchange: Exchange, allowed: readonly number[], context = ''): RecordedResponse {
  const response = responseOf(exchange);
  if (!allowed.includes(response.status)) {
    const expected = allowed.length === 1 ? `status ${allowed[0]}` : `one of [${allowed.join(', ')}]`;
    throw new RuleViolation(`${context ? `${context}: ` : ''}expected ${expected}, saw ${response.status} (${describeExchange(exchange)})`, {
      expected, seen: `status ${response.status}; body ${preview(response.rawBody)}`, exchanges: [exchange],
    });
  }
  return response;
}

/** Fails unless the body is JSON valid against the named schema of spec/openapi.yaml. */
export function expectSchema(exchange: Exchange, schema: SchemaName, context = ''): Json {
  const response = responseOf(exchange);
  const prefix = context ? `${context}: ` : '';
  if (response.json === undefined) {
    throw new RuleViolation(`${prefix}expected a JSON ${schema} body, saw ${response.rawBody.length === 0 ? 'an empty body' : `text that is not JSON (${response.jsonError})`} (${describeExchange(exchange)})`, {
      expected: `a JSON ${schema}`, seen: preview(response.rawBody), exchanges: [exchange],
    });
  }
  const problems = validateSchema(schema, response.json);
  if (problems.length > 0) {
    const listed = problems.slice(0, 5).map((p) => `${p.path || '/'} ${p.message}`).join('; ');
    throw new RuleViolation(`${prefix}expected a valid ${schema} body, saw ${listed} (${describeExchange(exchange)})`, {
      expected: `a body valid against ${schema}`, seen: preview(response.rawBody), exchanges: [exchange],
    });
  }
  return response.json;
}

/** Fails unless the response is the given error status with a valid Error body. */
export function expectError(exchange: Exchange, status: number, context = ''): void {
  expectStatus(exchange, [status], context);
  expectSchema(exchange, 'Error', context);
}

/** Fails on any 5xx: a conforming server never answers a request of the suite with one. */
export function expectNoServerError(exchange: Exchange, context = ''): RecordedResponse {
  const response = responseOf(exchange);
  if (response.status >= 500) {
    throw new RuleViolation(`${context ? `${context}: ` : ''}expected no 5xx, saw ${response.status} (${describeExchange(exchange)})`, {
      expected: 'a status below 500', seen: `status ${response.status}; body ${preview(response.rawBody)}`, exchanges: [exchange],
    });
  }
  return response;
}

/** Fails with a plain statement when a condition about the data does not hold. */
export function expectThat(condition: boolean, message: string, details: { expected?: string; seen?: string; exchanges?: readonly Exchange[] } = {}): asserts condition {
  if (!condition) throw new RuleViolation(message, details);
}

/** The first bytes of a body, for messages. */
export function preview(text: string, max = 200): string {
  if (text.length === 0) return '(empty)';
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** Whether a Content-Type is JSON: application/json, a charset parameter being fine. */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && /^application\/json\s*(;|$)/i.test(value.trim());
}
