import type { Exchange, RecordedResponse } from '../http/exchange.js';
import { describeExchange } from '../http/exchange.js';
import type { Json } from '../json.js';
import { RuleViolation, type ViolationFacts } from './outcome.js';
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
    throw RuleViolation.of({
      what: context || undefined,
      expected: allowed.length === 1 ? `status ${allowed[0]}` : `one of [${allowed.join(', ')}]`,
      seen: String(response.status), body: preview(response.rawBody), exchanges: [exchange],
    });
  }
  return response;
}

/** Fails unless the body is JSON valid against the named schema of spec/openapi.yaml. */
export function expectSchema(exchange: Exchange, schema: SchemaName, context = ''): Json {
  const response = responseOf(exchange);
  const what = context || undefined;
  if (response.json === undefined) {
    const empty = response.rawBody.length === 0;
    throw RuleViolation.of({
      what, expected: `a JSON ${schema} body`, seen: empty ? 'an empty body' : `text that is not JSON (${response.jsonError})`,
      body: empty ? undefined : preview(response.rawBody), exchanges: [exchange],
    });
  }
  const problems = validateSchema(schema, response.json);
  if (problems.length > 0) {
    const listed = problems.slice(0, 5).map((p) => `${p.path || '/'} ${p.message}`).join('; ');
    throw RuleViolation.of({ what, expected: `a valid ${schema} body`, seen: listed, body: preview(response.rawBody), exchanges: [exchange] });
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
    throw RuleViolation.of({ what: context || undefined, expected: 'no 5xx', seen: String(response.status), body: preview(response.rawBody), exchanges: [exchange] });
  }
  return response;
}

/**
 * Fails when a condition about the data does not hold, ending the part of the check it is in (what follows
 * needs it). To record a finding and go on, a check calls ctx.violation instead.
 */
export function expectThat(condition: boolean, facts: ViolationFacts): asserts condition {
  if (!condition) throw RuleViolation.of(facts);
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
