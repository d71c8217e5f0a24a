// The broken credentials the auth checks send: the value on the wire, the printable form in the
// reports (which the curl line turns back into the value), and the redaction of an echo of them.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { authorizationFor, curlFor, KEY_PLACES, keyElsewhereFor, type AuthMode, type RecordedRequest } from '../../helpers/http/exchange.js';
import { KEY_PLACEHOLDER, Redactor, swapCase } from '../../helpers/http/redact.js';

const KEY = 'pk_live+Near/Miss9w==';
const SENT_WITH_THE_KEY: AuthMode[] = ['key-plus-char', 'key-minus-char', 'key-case-swapped', 'basic', 'basic-raw', 'token-scheme', 'bare', 'bearer-no-space'];

/** The Authorization header bash hands to curl when it runs the reproduction line of a recorded request. */
function headerCurlWouldSend(shown: string): string {
  const line = curlFor({ method: 'GET', url: 'http://127.0.0.1:1/v1/pets', headers: { authorization: shown }, auth: 'key' });
  // A curl that prints its sixth argument: -i -X GET <url> -H "Authorization: …".
  const script = `curl() { printf %s "$6"; }; ${line}`;
  return execFileSync('bash', ['-c', script], { env: { PATH: process.env.PATH, PETSTORE_API_KEY: KEY }, encoding: 'utf8' });
}

/** The arguments bash hands to curl when it runs the reproduction line of a recorded request, one a line, and its stdin. */
function curlArguments(request: RecordedRequest): string {
  const script = `curl() { printf '%s\\n' "$@"; printf 'stdin %s bytes\\n' "$(wc -c)"; }; ${curlFor(request)}`;
  return execFileSync('bash', ['-c', script], { env: { PATH: process.env.PATH, PETSTORE_API_KEY: KEY }, encoding: 'utf8' });
}

describe('near-miss credentials', () => {
  it('send the key with a character more, a character less and in the other case', () => {
    expect(authorizationFor('key-plus-char', KEY).value).toBe(`Bearer ${KEY}x`);
    expect(authorizationFor('key-minus-char', KEY).value).toBe('Bearer pk_live+Near/Miss9w=');
    expect(authorizationFor('key-case-swapped', KEY).value).toBe('Bearer PK_LIVE+nEAR/mISS9W==');
    expect(authorizationFor('token-scheme', KEY).value).toBe(`Token ${KEY}`);
    expect(authorizationFor('basic-raw', KEY).value).toBe(`Basic ${KEY}`);
  });

  it.each(SENT_WITH_THE_KEY)('%s is recorded without the key, in a form the curl line turns back into the value sent', (mode) => {
    const { value, shown } = authorizationFor(mode, KEY);
    expect(shown).not.toContain(KEY.slice(0, 8));
    expect(headerCurlWouldSend(shown!)).toBe(`Authorization: ${value}`);
  });

  it('an echo of the truncated or case-swapped key is redacted like the key itself', () => {
    const echoed = `token Bearer ${KEY.slice(0, -1)} or ${swapCase(KEY)} (${JSON.stringify(KEY.slice(0, -1).replaceAll('/', '\\/'))}) is not valid`;
    const redacted = new Redactor([KEY]).redact(echoed);
    expect(redacted).not.toContain('Near');
    expect(redacted).not.toContain('nEAR');
  });

  // The key in the other case is the key to a server that compares without case: it is redacted at any length.
  it('leaves a short key\'s truncated near miss alone, a fragment that short would garble every report, and redacts its case-swapped one', () => {
    expect(new Redactor(['k7Qz']).redact('the k7Q and K7qZ fragments')).toBe(`the k7Q and ${KEY_PLACEHOLDER} fragments`);
  });
});

describe('the key outside the Authorization header (AUTH-10)', () => {
  it('puts the key in every query parameter, cookie and header at once, and in one place each', () => {
    const all = keyElsewhereFor('key-elsewhere', KEY);
    expect(all.query?.value.split('&')).toEqual(KEY_PLACES.query.map((name) => `${name}=${encodeURIComponent(KEY)}`));
    expect(Object.keys(all.headers).sort()).toEqual(['cookie', ...KEY_PLACES.headers].sort());
    expect(all.headers['x-api-key']?.value).toBe(KEY);
    expect(keyElsewhereFor('key-in-query', KEY).headers).toEqual({});
    expect(Object.keys(keyElsewhereFor('key-in-cookie', KEY).headers)).toEqual(['cookie']);
    expect(keyElsewhereFor('key-in-headers', KEY).query).toBeUndefined();
    expect(keyElsewhereFor('key', KEY)).toEqual({ headers: {} });
  });

  it('is recorded without the key, in a form the curl line turns back into the key', () => {
    const { query, headers } = keyElsewhereFor('key-elsewhere', KEY);
    const recorded = { method: 'GET', url: `http://127.0.0.1:1/v1/pets?limit=1&${query!.shown}`, auth: 'key-elsewhere' as const, headers: { accept: 'application/json', ...Object.fromEntries(Object.entries(headers).map(([name, placed]) => [name, placed.shown])) } };
    expect(JSON.stringify(recorded)).not.toContain(KEY.slice(0, 8));
    const args = curlArguments(recorded);
    expect(args).toContain(`http://127.0.0.1:1/v1/pets?limit=1&api_key=${KEY}&`);
    expect(args).toContain(`x-api-key: ${KEY}\n`);
    expect(args).toContain(`cookie: api_key=${KEY}; `);
  });
});

describe('the curl line of other requests', () => {
  it('sends no Accept when the request had none, and a padded body with its padding', () => {
    const args = curlArguments({ method: 'POST', url: 'http://127.0.0.1:1/v1/pets', auth: 'key', headers: { 'content-type': 'application/json' }, body: '{"name":"a b"}', padBytes: 1000 });
    expect(args).toContain('Accept:\n');
    expect(args).toContain('--data-binary\n@-\n');
    expect(args).toContain(`stdin ${1000 + '{"name":"a b"}'.length} bytes`);
  });

  it('sends each --header by its variable, and presents the client certificate from the variables of --cert and --cert-key', () => {
    const request: RecordedRequest = { method: 'GET', url: 'https://127.0.0.1:1/v1/pets', auth: 'key', headers: { accept: 'application/json', 'x-gateway-token': '$PETSTORE_HEADER_X_GATEWAY_TOKEN' }, clientCertificate: true };
    const script = `curl() { printf '%s\\n' "$@"; }; ${curlFor(request)}`;
    const env = { PATH: process.env.PATH, PETSTORE_HEADER_X_GATEWAY_TOKEN: 'gw-token-4411', PETSTORE_CERT: '/ci/client.pem', PETSTORE_CERT_KEY: '/ci/client-key.pem' };
    const args = execFileSync('bash', ['-c', script], { env, encoding: 'utf8' });
    expect(args).toContain('x-gateway-token: gw-token-4411\n');
    expect(args).toContain('--cert\n/ci/client.pem\n--key\n/ci/client-key.pem\n');
  });
});
