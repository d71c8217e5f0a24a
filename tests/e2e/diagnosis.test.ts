// A run aimed at the wrong thing (a base URL without /v1, a website, a login proxy, a key of another
// environment) stops at its first answers with one message naming the fix, exit 3, and reports that say
// the same; a conforming server that refuses a bad key, is rate-limited, or fails is judged as usual.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnoseEarlyAnswers, diagnoseRefusedKeyOverRun, hintAfterLooking, otherBaseUrl, wantsListingForRefusedKey } from '../../helpers/http/diagnosis.js';
import { verifyReportFolder } from '../../cli/verify.js';
import type { AuthMode, Exchange } from '../../helpers/http/exchange.js';
import { startReferenceServer } from '../../server/reference-server.js';
import { runCli } from '../support/cli.js';
import { withChildSlot } from '../support/harness.js';

const BASE = 'http://127.0.0.1:9/v1';

function answered(seq: number, path: string, status: number, options: { auth?: AuthMode; headers?: Record<string, string>; body?: string; base?: string } = {}): Exchange {
  return {
    seq, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1,
    request: { method: 'GET', url: `${options.base ?? BASE}${path}`, headers: {}, auth: options.auth ?? 'key' },
    response: { status, headers: { 'content-type': 'application/json', ...options.headers }, rawBody: options.body ?? '{}', truncated: false },
  };
}

describe('the first answers', () => {
  it('name --base-url, with the /v1 it lacks, when GET /pets with the key answers 404', () => {
    const diagnosis = diagnoseEarlyAnswers([answered(1, '/pets?limit=1', 404, { base: 'http://127.0.0.1:9' })], 'http://127.0.0.1:9');
    expect(diagnosis?.problem).toBe('GET /pets answered 404 with the key: no Pet Store API at this address');
    expect(diagnosis?.hint).toContain('did you mean --base-url http://127.0.0.1:9/v1?');
  });

  it('name --base-url on an HTML page where JSON is expected, and on a redirect to a login page', () => {
    const page = answered(1, '/pets', 200, { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><title>Welcome</title>' });
    expect(diagnoseEarlyAnswers([page], BASE)?.problem).toMatch(/HTML page where JSON is expected/);
    const login = answered(1, '/pets', 302, { headers: { location: 'https://sso.example.com/login?next=/v1/pets' } });
    expect(diagnoseEarlyAnswers([login], BASE)?.problem).toMatch(/redirecting to a login page \(https:\/\/sso\.example\.com\/login/);
    expect(diagnoseEarlyAnswers([login], BASE)?.hint).toMatch(/--base-url/);
  });

  it('leave an HTML page to the checks where it may be the server\'s defect: an unknown path, a request for HTML, the orders', () => {
    const html = { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><div id="app"></div>' };
    expect(diagnoseEarlyAnswers([answered(1, '/petstore-conformance-no-such-path', 200, html)], BASE)).toBeUndefined();
    expect(diagnoseEarlyAnswers([answered(1, '/store/orders', 200, html)], BASE)).toBeUndefined();
    const askedForHtml = answered(1, '/pets', 200, html);
    askedForHtml.request.headers.accept = 'text/html,application/xhtml+xml;q=0.9,application/json;q=0';
    expect(diagnoseEarlyAnswers([askedForHtml], BASE)).toBeUndefined();
    askedForHtml.request.headers.accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    expect(diagnoseEarlyAnswers([askedForHtml], BASE)).toBeUndefined();
    askedForHtml.request.headers.accept = 'application/json, text/html;q=0';
    expect(diagnoseEarlyAnswers([askedForHtml], BASE)?.problem).toMatch(/HTML page where JSON is expected/);
  });

  it('ask about the key when every request with it (three or more) was answered 401', () => {
    const refused = [1, 2, 3].map((seq) => answered(seq, '/pets', 401));
    expect(diagnoseEarlyAnswers(refused, BASE)?.hint).toMatch(/^is the key right, or is it for another environment\?/);
  });

  it('say nothing of a server that refuses only bad keys, is rate-limited, fails, or redirects elsewhere', () => {
    const badKeys = [answered(1, '/pets', 200), ...[2, 3, 4].map((seq) => answered(seq, '/pets', 401, { auth: 'unknown-key' }))];
    expect(diagnoseEarlyAnswers(badKeys, BASE)).toBeUndefined();
    expect(diagnoseEarlyAnswers([answered(1, '/pets', 401), answered(2, '/pets', 401), answered(3, '/pets', 200)], BASE)).toBeUndefined();
    // One operation refusing a good key (GET /store/orders, say) is that operation's defect, judged by its rule.
    expect(diagnoseEarlyAnswers([1, 2, 3].map((seq) => answered(seq, '/store/orders', 401)), BASE)).toBeUndefined();
    expect(diagnoseEarlyAnswers([1, 2, 3, 4].map((seq) => answered(seq, '/pets', 429)), BASE)).toBeUndefined();
    expect(diagnoseEarlyAnswers([answered(1, '/pets', 502, { headers: { 'content-type': 'text/html' }, body: '<html>Bad Gateway</html>' })], BASE)).toBeUndefined();
    expect(diagnoseEarlyAnswers([answered(1, '/pets', 301, { headers: { location: 'http://127.0.0.1:10/v1/pets' } })], BASE)).toBeUndefined();
    // GET /pets/{petId} answering 404 is a check's business (an unknown pet), not the address's.
    expect(diagnoseEarlyAnswers([answered(1, '/pets/9223372036854775807', 404)], BASE)).toBeUndefined();
  });

  it('propose the other base URL only when the one look there, with the key, listed pets', () => {
    const root = 'http://127.0.0.1:9';
    const listed = answered(9, '/pets?limit=1', 200, { base: root, body: '[]' });
    listed.response!.json = [];
    expect(otherBaseUrl(`${root}/v1`)).toBe(root);
    expect(otherBaseUrl(`${root}/`)).toBe(`${root}/v1`);
    expect(hintAfterLooking(root, listed)).toBe(`the Pet Store API answers at ${root} (GET /pets listed pets): did you mean --base-url ${root}?`);
    const missing = answered(9, '/pets?limit=1', 404, { base: root });
    expect(hintAfterLooking(root, missing)).not.toContain('did you mean');
    expect(hintAfterLooking(root, missing)).toContain(`${root} is not it either (GET /pets answered 404)`);
  });

  it('do not tell a base URL ending in /v1 that it must end in /v1', () => {
    const hint = diagnoseEarlyAnswers([answered(1, '/pets?limit=1', 404)], BASE)?.hint;
    expect(hint).not.toMatch(/end(ing)? in \/v1/);
  });

  it('are read only at the start of a run: a 404 later on is what a check provoked', () => {
    expect(diagnoseEarlyAnswers([answered(9, '/pets', 404)], BASE)).toBeUndefined();
  });
});

describe('the whole run, read for a refused key once it ends', () => {
  it('asks about the key when the run sent fewer than three requests with it, every one answered 401, GET /pets among them', () => {
    expect(diagnoseRefusedKeyOverRun([answered(1, '/pets', 401)], BASE)).toMatchObject({ cause: 'key', problem: 'every request with the key was answered 401 (1 of 1)', seq: 1 });
    // One operation refusing the key, GET /pets not asked: that operation's rule judges it (a gateway before the orders).
    expect(diagnoseRefusedKeyOverRun([answered(1, '/store/orders', 401)], BASE)).toBeUndefined();
    expect(diagnoseRefusedKeyOverRun([answered(1, '/pets', 401), answered(2, '/pets/1', 200)], BASE)).toBeUndefined();
    expect(diagnoseRefusedKeyOverRun([answered(1, '/pets', 401, { auth: 'none' })], BASE)).toBeUndefined();
  });

  it('asks GET /pets with the key once the run ends when every request with the key was refused and none listed pets', () => {
    expect(wantsListingForRefusedKey([answered(1, '/store/orders', 401)], BASE)).toBe(true);
    expect(wantsListingForRefusedKey([answered(1, '/store/orders', 401), answered(2, '/store/orders', 429)], BASE)).toBe(true);
    // GET /pets asked already, an answer other than 401, no request with the key: nothing to tell apart.
    expect(wantsListingForRefusedKey([answered(1, '/store/orders', 401), answered(2, '/pets', 401)], BASE)).toBe(false);
    expect(wantsListingForRefusedKey([answered(1, '/store/orders', 200)], BASE)).toBe(false);
    expect(wantsListingForRefusedKey([answered(1, '/store/orders', 401, { auth: 'none' })], BASE)).toBe(false);
    expect(wantsListingForRefusedKey([], BASE)).toBe(false);
  });

  it('ends a run of the store area with a key of another environment as not judged (exit 3), one GET /pets telling the key from the operation', async () => {
    const server = await startReferenceServer({ apiKeys: ['diagnosis-key-5c1e0b7a'] });
    try {
      const refused = await withChildSlot(() => runCli(['--base-url', server.url, '--only', 'store'], { env: { PETSTORE_API_KEY: 'a-key-of-another-environment' } }));
      expect(refused.code, refused.stdout).toBe(3);
      expect(refused.report).toMatchObject({ verdict: 'not-judged', diagnosis: { cause: 'key', problem: 'every request with the key was answered 401 (3 of 3)' } });
      expect((await verifyReportFolder(refused.reportDir)).line).toMatch(/^verified: /);
      // The key of this server: GET /store/orders answers, and nothing more is asked.
      const good = await withChildSlot(() => runCli(['--base-url', server.url, '--only', 'store'], { env: { PETSTORE_API_KEY: server.apiKey } }));
      expect({ code: good.code, requests: good.report?.requests.total }).toEqual({ code: 0, requests: 1 });
    } finally {
      await server.close();
    }
  }, 180_000);

  it('ends a one-rule run with a key of another environment as not judged, exit 3, not as a failure of the rule', async () => {
    const server = await startReferenceServer({ apiKeys: ['diagnosis-key-5c1e0b7a'] });
    try {
      const run = await withChildSlot(() => runCli(['--base-url', server.url, '--only', 'LIST-01'], { env: { PETSTORE_API_KEY: 'a-key-of-another-environment' } }));
      expect(run.code, run.stdout).toBe(3);
      expect(run.report).toMatchObject({ verdict: 'not-judged', diagnosis: { cause: 'key', problem: 'every request with the key was answered 401 (1 of 1)' } });
      expect(run.stdout).not.toMatch(/^ {2}(FAIL|ERR )/m);
      expect(run.stdout).toContain('The target cannot be judged: every request with the key was answered 401 (1 of 1).');
    } finally {
      await server.close();
    }
  }, 180_000);
});

describe('a correct server addressed without /v1', () => {
  it('ends the run within 10 requests, exit 3, with a hint naming --base-url, in the output and every report', async () => {
    const server = await startReferenceServer({ apiKeys: ['diagnosis-key-5c1e0b7a'] });
    try {
      const base = server.url.replace(/\/v1$/, '');
      const run = await withChildSlot(() => runCli(['--base-url', base], { env: { PETSTORE_API_KEY: server.apiKey } }));
      expect(run.code, run.stderr).toBe(3);
      expect(run.report?.requests.total).toBeLessThanOrEqual(10);
      expect(run.stdout).toContain(`NOT JUDGED: ${base}`);
      expect(run.stdout).toContain(`did you mean --base-url ${base}/v1?`);
      // One cause, said once: no wall of FAIL/ERR lines.
      expect(run.stdout).not.toMatch(/^ {2}(FAIL|ERR )/m);
      expect(run.report).toMatchObject({ verdict: 'not-judged', exitCode: 3, diagnosis: { problem: 'GET /pets answered 404 with the key: no Pet Store API at this address' } });
      expect(run.report?.rules.every((rule) => rule.status === 'skipped' && rule.message?.startsWith('not judged: '))).toBe(true);
      expect(readFileSync(join(run.reportDir, 'summary.md'), 'utf8')).toMatch(/^## ⛔ Not judged[\s\S]*--base-url/);
      expect(readFileSync(join(run.reportDir, 'junit.xml'), 'utf8')).toContain('<property name="diagnosis" value="not judged: GET /pets answered 404 with the key');
      expect(readFileSync(join(run.reportDir, 'report.html'), 'utf8')).toMatch(/id="verdict">Not judged<[\s\S]*The target cannot be judged[\s\S]*did you mean --base-url/);
    } finally {
      await server.close();
    }
  }, 180_000);
});

describe('a correct server that serves at its root, addressed with /v1', () => {
  it('ends the run, exit 3, proposing the root it looked at once with the key', async () => {
    const server = await startReferenceServer({ apiKeys: ['diagnosis-key-5c1e0b7a'], basePath: '' });
    try {
      const root = server.url.replace(/\/+$/, '');
      const run = await withChildSlot(() => runCli(['--base-url', `${root}/v1`], { env: { PETSTORE_API_KEY: server.apiKey } }));
      expect(run.code, run.stderr).toBe(3);
      expect(run.stdout).toContain(`did you mean --base-url ${root}?`);
      expect(run.stdout).not.toMatch(/end(ing)? in \/v1/);
      expect(run.report?.diagnosis?.hint).toContain(`the Pet Store API answers at ${root}`);
      // One look, with the key, and in exchanges.har like every request of the run.
      const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: Array<{ request: { url: string; headers: Array<{ name: string; value: string }> } }> } };
      const looks = har.log.entries.filter((entry) => !new URL(entry.request.url).pathname.startsWith('/v1'));
      expect(looks.map((entry) => entry.request.url)).toEqual([`${root}/pets?limit=1`]);
      expect(looks[0]!.request.headers.some((header) => header.name.toLowerCase() === 'authorization')).toBe(true);
    } finally {
      await server.close();
    }
  }, 180_000);
});
