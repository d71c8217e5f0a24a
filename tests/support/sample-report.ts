// A small hand-made Report for the renderers' unit tests: one rule of each outcome, and a failure
// whose evidence carries what a hostile server could send (markup, quotes, control characters).
import { countsOf, type Report, type RuleResult } from '../../cli/reports/report.js';
import type { Exchange } from '../../helpers/http/exchange.js';
import { OUTCOMES } from '../../helpers/judge/outcome-meaning.js';
import type { Level } from '../../helpers/spec/catalog.js';

const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];

/** What a hostile target puts in a response: markup that would run, load or spoof if not escaped. */
export const HOSTILE_BODY = '{"name":"</pre><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">","note":"\u202eevil\u0007"}';
export const HOSTILE_HEADER = '"><script>window.__pwned=3</script>';

export function hostileExchange(seq: number): Exchange {
  return {
    seq,
    rule: 'CREATE-03',
    startedAt: '2026-01-02T03:04:05.678Z',
    durationMs: 12.5,
    request: {
      method: 'POST',
      url: 'http://127.0.0.1:9/v1/pets',
      auth: 'key',
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer $PETSTORE_API_KEY' },
      body: '{"name":"Rex","categoryId":9223372036854775807}',
    },
    response: {
      status: 201,
      headers: { 'content-type': 'application/json', date: 'Fri, 02 Jan 2026 03:04:05 GMT', 'x-evil': HOSTILE_HEADER },
      rawBody: HOSTILE_BODY,
      truncated: false,
    },
  };
}

function rule(fields: Partial<RuleResult> & Pick<RuleResult, 'id' | 'level' | 'area' | 'status'>): RuleResult {
  return {
    summary: `${fields.level} do what ${fields.id} says`,
    section: 'Endpoints › POST /pets',
    source: 'Pet Store interface specification 1.0.0',
    words: 'the spec’s words',
    observations: [],
    evidence: [],
    requests: 0,
    durationMs: 0,
    created: [],
    ...fields,
  };
}

export function sampleReport(overrides: Partial<Report> = {}): Report {
  const rules: RuleResult[] = [
    rule({ id: 'LIST-01', level: 'MUST', area: 'listing', status: 'passed', requests: 1 }),
    rule({
      id: 'CREATE-03', level: 'MUST', area: 'creating', status: 'failed',
      message: 'name was not echoed <b>exactly</b>',
      requests: 1,
      evidence: [{
        message: 'name was not echoed <b>exactly</b>',
        expected: '"Rex"',
        seen: HOSTILE_BODY,
        exchanges: [{ exchange: hostileExchange(1), curl: "curl -i -X POST 'http://127.0.0.1:9/v1/pets' -H \"Authorization: Bearer $PETSTORE_API_KEY\"" }],
      }],
    }),
    rule({
      id: 'FUZZ-01', level: 'MUST', area: 'fuzzing', status: 'failed',
      message: 'an invalid body was accepted with 201',
      evidence: [{
        message: 'an invalid body was accepted with 201',
        expected: '400', seen: '201',
        exchanges: [],
        counterexample: { seed: 424242, path: '3:0:1', mutation: 'categoryId as a string', body: '{"name":"a","categoryId":"1"}', replay: 'petstore-conformance --only FUZZ-01 --seed 424242' },
      }],
    }),
    rule({ id: 'AUTH-06', level: 'SHOULD', area: 'auth', status: 'errored', message: 'no response (connection reset by the server)' }),
    rule({ id: 'RATE-07', level: 'MUST', area: 'ratelimit', status: 'skipped', message: 'skipped by --skip ratelimit' }),
    rule({ id: 'LIST-08', level: 'INFO', area: 'listing', status: 'passed', observations: ['limit=0 is rejected with 400'] }),
  ];
  return {
    tool: { name: 'petstore-conformance', version: '0.1.0' },
    specVersion: '1.0.0',
    runId: '20260102T030405-abcdef',
    target: { baseUrl: 'http://127.0.0.1:9/v1', embedded: false },
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:04:07.500Z',
    durationMs: 2_500,
    options: { strict: false, seed: 424242, apiKey: '[redacted]', only: [], reporters: ['html'] },
    verdict: 'not-certified',
    exitCode: 1,
    counts: {
      MUST: { passed: 1, failed: 2, skipped: 1, 'not-applicable': 0, errored: 0, 'suite-error': 0 },
      SHOULD: { passed: 0, failed: 0, skipped: 0, 'not-applicable': 0, errored: 1, 'suite-error': 0 },
      INFO: { passed: 1, failed: 0, skipped: 0, 'not-applicable': 0, errored: 0, 'suite-error': 0 },
    },
    requests: { total: 2, byArea: { listing: 1, creating: 1 } },
    created: { count: 0, ids: [] },
    suiteErrors: [],
    rules,
    ...overrides,
  };
}

/**
 * A specification whose Markdown tries what a hostile or careless text could: raw tags, a script link, an
 * event handler, a remote image. report.html renders it, and none of it may run or load.
 */
export const HOSTILE_SPEC_MARKDOWN = `## Endpoints

### GET /pets (\`listPets\`) <script>window.__pwned=9</script>

<script>window.__pwned=4</script>

| Field | Type |
| --- | ---: |
| name | string |

[run me](javascript:window.__pwned=5) <javascript:window.__pwned=6> [data](data:text/html,<script>window.__pwned=7</script>)

![tracker](http://127.0.0.1:9/pixel.png) <img src=x onerror="window.__pwned=8">
`;

/**
 * A report with one rule of every outcome at every level (IDs such as `MUST-failed`), each with a finding of
 * its own cause, and its counts: what the renderers are held to the outcome meaning with.
 */
export function everyOutcomeReport(overrides: Partial<Report> = {}): Report {
  const rules = LEVELS.flatMap((level) => OUTCOMES.map((status) => rule({
    id: `${level}-${status}`, level, area: 'listing', status,
    message: `${status} at ${level}`,
    evidence: [{ message: `expected a, saw b for ${status} at ${level}`, expected: 'a', seen: 'b', cause: { expected: 'a', seen: `b for ${status} at ${level}` }, exchanges: [] }],
  })));
  return sampleReport({ verdict: 'not-certified', exitCode: 4, rules, counts: countsOf(rules), suiteErrors: [], ...overrides });
}
