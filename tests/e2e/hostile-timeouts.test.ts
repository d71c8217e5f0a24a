// Targets that take the connection and then stall: every request ends at --timeout however slowly the
// bytes come, and after three requests in a row without an answer the client sends no more, so a whole
// run ends within a bound set by --timeout (README, Troubleshooting) instead of --timeout per request.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { expectKeyNowhere, HOSTILE_KEY, ruleOf, rulesRun, runAgainst } from '../support/hostile-run.js';
import { dribble, startHttpServer, startTcpServer, type LoopbackServer } from '../support/hostile-servers.js';

/** Requests that may wait out --timeout: three in a row open the breaker, and up to concurrency − 1 were already on their way. */
const CONCURRENCY = 4;
const MOST_UNANSWERED = 3 + CONCURRENCY - 1;
let target: LoopbackServer | undefined;

afterEach(async () => {
  await target?.close();
  target = undefined;
});

describe('a target that accepts requests and never answers', () => {
  it('costs a few timeouts for a whole run, not one per request: every area is run and reported errored', async () => {
    target = await startHttpServer(() => undefined);
    const run = await runAgainst(target.baseUrl, ['--timeout', '300', '--concurrency', String(CONCURRENCY)]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.report?.verdict).toBe('not-certified');

    expect(ruleOf(run, 'LIST-01').message).toBe('TransportError: no complete response within 300 ms (--timeout)');
    const stopped = rulesRun(run).filter((rule) => rule.message?.includes('the target stopped answering'));
    expect(stopped.length).toBeGreaterThan(20);
    for (const rule of stopped) {
      expect(rule.status).toBe('errored');
      expect(rule.message).toBe('TransportError: the target stopped answering: 3 requests in a row got no response '
        + '(the last: no complete response within 300 ms (--timeout)); no further request is sent');
    }

    // What bounds the run is what reached the target, counted on both sides.
    expect(target.requests.length).toBeGreaterThanOrEqual(3);
    expect(target.requests.length).toBeLessThanOrEqual(MOST_UNANSWERED);
    expect(run.report?.requests.total).toBe(target.requests.length);
    // (3 + 2) × --timeout of waiting, and the suite's own start-up; generous, for a loaded machine.
    expect(run.report?.durationMs).toBeLessThan(30_000);
    expect(run.stdout).toMatch(/… the target stopped answering: .*, and the checks left are reported errored/);
    expect(run.stdout).toMatch(new RegExp(`\\n {2}${target.requests.length} requests, 0 pets created, \\d+\\.\\d s\\n`));
    expectKeyNowhere(run);
  });

  it('when it dribbles a byte a second, ends each request at --timeout, however steadily the bytes come', async () => {
    // Each byte arrives well within an idle timeout; only a deadline on the whole exchange ends it.
    target = await startHttpServer((_request, response) => dribble(response, 1000));
    const run = await runAgainst(target.baseUrl, ['--timeout', '1500', '--only', 'listing']);
    expect(run.code, run.stderr).toBe(1);
    const list01 = ruleOf(run, 'LIST-01');
    expect(list01.status).toBe('errored');
    expect(list01.message).toBe('TransportError: no complete response within 1500 ms (--timeout)');
    const exchange = list01.evidence[0]?.exchanges[0]?.exchange;
    expect(exchange?.error).toBe('no complete response within 1500 ms (--timeout)');
    expect(exchange?.durationMs).toBeLessThan(10_000);
    expect(target.requests.length).toBeLessThanOrEqual(MOST_UNANSWERED);
    expectKeyNowhere(run);
  });
});

// The preflight's probe once half-closed its socket and waited for the target's end: one that never reads never
// sent it, and the process outlived its run, reports written, forever.
it('a target that takes connections and never reads them: the run ends, its reports written, and so does the process', async () => {
  target = await startTcpServer('http', () => undefined, { pauseOnConnect: true });
  const started = Date.now();
  // A child, as a user runs it: what is at stake is the process's exit. It is killed (and the test fails) at 25 s.
  const run = await runCli(['--base-url', target.baseUrl, '--only', 'listing', '--timeout', '500', '--max-duration', '20'], { env: { PETSTORE_API_KEY: HOSTILE_KEY }, timeoutMs: 25_000 });
  expect(run.code, run.stderr).toBe(1);
  expect(run.report?.verdict).toBe('not-certified');
  expect(ruleOf(run, 'LIST-01').message).toBe('TransportError: no complete response within 500 ms (--timeout)');
  expect(Date.now() - started).toBeLessThan(22_000);
  expectKeyNowhere(run);
});

it('a target that takes the TCP connection and never starts TLS is unreachable after one --timeout: exit 3', async () => {
  target = await startTcpServer('https', () => undefined);
  const run = await runAgainst(target.baseUrl, ['--timeout', '500']);
  expect(run.code, run.stderr).toBe(3);
  expect(run.stderr).toBe(`petstore-conformance: cannot reach https://127.0.0.1:${target.port}: no connection within 500 ms (--timeout)\n`);
  expect(run.report).toBeUndefined();
  expectKeyNowhere(run);
});
