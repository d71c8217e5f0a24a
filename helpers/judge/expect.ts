// The expectations a check states of an answer. Each records what it finds on the check's findings and returns
// what the check needs next (the response, the parsed body, whether it held), or undefined/false once it
// recorded a violation: the check decides whether to go on (`if (!response) return;`). None of them throws a
// finding; what they throw is no verdict (an exchange without a response is a bug of the caller).
import type { Exchange, RecordedResponse } from '../http/exchange.js';
import { describeExchange } from '../http/exchange.js';
import type { Json } from '../json.js';
import type { Findings, ViolationFacts } from './outcome.js';
import { validateSchema, type SchemaName } from './schema.js';

/** The response of an exchange the client returned: it always has one (transport failures throw). */
export function responseOf(exchange: Exchange): RecordedResponse {
  if (!exchange.response) throw new Error(`no response recorded for ${describeExchange(exchange)}`);
  return exchange.response;
}

/** Records a violation unless the status is one of `allowed` ("expected status 404, saw 200"); the response when it is. */
export function expectStatus(findings: Findings, exchange: Exchange, allowed: readonly number[], context = ''): RecordedResponse | undefined {
  const response = responseOf(exchange);
  if (allowed.includes(response.status)) return response;
  findings.violation({
    what: context || undefined,
    expected: allowed.length === 1 ? `status ${allowed[0]}` : `one of [${allowed.join(', ')}]`,
    seen: String(response.status), body: preview(response.rawBody), exchanges: [exchange],
  });
  return undefined;
}

/** Records a violation unless the body is JSON valid against the named schema of spec/openapi.yaml; the parsed body when it is. */
export function expectSchema(findings: Findings, exchange: Exchange, schema: SchemaName, context = ''): Json | undefined {
  const response = responseOf(exchange);
  const what = context || undefined;
  if (response.json === undefined) {
    const empty = response.rawBody.length === 0;
    findings.violation({
      what, expected: `a JSON ${schema} body`, seen: empty ? 'an empty body' : `text that is not JSON (${response.jsonError})`,
      body: empty ? undefined : preview(response.rawBody), exchanges: [exchange],
    });
    return undefined;
  }
  const problems = validateSchema(schema, response.json);
  if (problems.length > 0) {
    const listed = problems.slice(0, 5).map((p) => `${p.path || '/'} ${p.message}`).join('; ');
    findings.violation({ what, expected: `a valid ${schema} body`, seen: listed, body: preview(response.rawBody), exchanges: [exchange] });
    return undefined;
  }
  return response.json;
}

/** Whether the response is the given error status with a valid Error body; a wrong status is the one finding (the body is not judged then). */
export function expectError(findings: Findings, exchange: Exchange, status: number, context = ''): boolean {
  return expectStatus(findings, exchange, [status], context) !== undefined && expectSchema(findings, exchange, 'Error', context) !== undefined;
}

/** Records a violation on any 5xx (a conforming server never answers a request of the suite with one); the response otherwise. */
export function expectNoServerError(findings: Findings, exchange: Exchange, context = ''): RecordedResponse | undefined {
  const response = responseOf(exchange);
  if (response.status < 500) return response;
  findings.violation({ what: context || undefined, expected: 'no 5xx', seen: String(response.status), body: preview(response.rawBody), exchanges: [exchange] });
  return undefined;
}

/** Records a violation stated by `facts` unless a condition about the data holds; whether it held. */
export function expectThat(findings: Findings, condition: boolean, facts: ViolationFacts): boolean {
  if (!condition) findings.violation(facts);
  return condition;
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
