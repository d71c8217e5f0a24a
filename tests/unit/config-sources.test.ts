// Options the way CI sets them: each from a flag, else PETSTORE_<OPTION>, else the config file (with ${VAR}
// filled in), else the default; --print-config says which, and never shows the key.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../cli/options.js';
import { resolveRunOptions } from '../../cli/resolve-options.js';
import { scratchDir } from '../support/scratch.js';

function parsed(argv: string[], env: NodeJS.ProcessEnv) {
  const result = parseArguments(argv, '0.0.0', () => {}, env);
  if (result.action !== 'run') throw new Error(`expected a run, got ${result.action}`);
  return result.options;
}

function configFile(text: string): string {
  const path = join(scratchDir('petstore-config-'), 'petstore-conformance.config.yaml');
  writeFileSync(path, text);
  return path;
}

describe('options from the environment and a config file', () => {
  it('takes a flag over PETSTORE_*, PETSTORE_* over the file, and the file over the default', () => {
    const file = configFile('base-url: http://file.example/v1\ntimeout: 3000\nconcurrency: 2\nstrict: true\nonly: [listing, auth]\n');
    const options = parsed(['--config', file, '--timeout', '1000'], { PETSTORE_TIMEOUT: '2000', PETSTORE_CONCURRENCY: '3' });
    expect(options).toMatchObject({ baseUrl: 'http://file.example/v1', timeoutMs: 1000, concurrency: 3, strict: true, only: ['listing', 'auth'] });
    expect(parsed([], {})).toMatchObject({ timeoutMs: 10_000, concurrency: 4, strict: false, only: [] });
  });

  it('reads booleans from the environment as true or false, and refuses anything else', () => {
    expect(parsed([], { PETSTORE_READ_ONLY: 'false', PETSTORE_STRICT: 'true' })).toMatchObject({ readOnly: false, strict: true });
    expect(() => parsed([], { PETSTORE_STRICT: 'sometimes' })).toThrow('PETSTORE_STRICT must be true or false, not "sometimes"');
  });

  it('fills ${VAR} in the file from the environment, and refuses a variable that is not set', () => {
    const file = configFile('base-url: https://${STAGING_HOST}/v1\napi-key: ${STAGING_KEY}\n');
    expect(parsed(['--config', file], { STAGING_HOST: 'staging.example.com', STAGING_KEY: 'k-123' })).toMatchObject({ baseUrl: 'https://staging.example.com/v1', apiKey: 'k-123' });
    expect(() => parsed(['--config', file], { STAGING_HOST: 'x' })).toThrow(/uses \$\{STAGING_KEY\}, and STAGING_KEY is not set/);
  });

  it('refuses a key of the file that is no option, naming the ones it takes', () => {
    expect(() => parsed(['--config', configFile('base_url: http://x/v1\n')], {})).toThrow(/names "base_url", which is no option; it takes base-url, api-key/);
  });

  it('prints every option with its source, and the key only as set', () => {
    const file = configFile('report-dir: out\n');
    let printed = '';
    const result = parseArguments(['--print-config', '--config', file, '--strict'], '0.0.0', (text) => (printed += text), { PETSTORE_API_KEY: 'secret-key-4411', PETSTORE_SEED: '7' });
    expect(result).toEqual({ action: 'exit', code: 0 });
    expect(printed).toContain(`# config file: ${file}\n`);
    expect(printed).toContain('api-key: (set; not shown)  (env PETSTORE_API_KEY)');
    expect(printed).toContain('strict: true  (flag)');
    expect(printed).toContain('seed: 7  (env PETSTORE_SEED)');
    expect(printed).toContain('report-dir: out  (file)');
    expect(printed).toContain('concurrency: 4  (default)');
    // Defaults the resolver decides, as it will decide them.
    expect(printed).toContain('reporter: all  (default)');
    expect(printed).toContain('only: every rule  (default)');
    expect(printed).not.toContain('secret-key-4411');
  });

  it('prints a base URL without the user and password it carries', () => {
    let printed = '';
    parseArguments(['--print-config'], '0.0.0', (text) => (printed += text), { PETSTORE_BASE_URL: 'https://ops:pw-7c1e9@staging.example.com/v1' });
    expect(printed).toContain('base-url: https://…@staging.example.com/v1  (env PETSTORE_BASE_URL)');
    expect(printed).not.toContain('pw-7c1e9');
  });
});

describe('--header from the flag, the environment and the file', () => {
  const resolved = (argv: string[], env: NodeJS.ProcessEnv) => resolveRunOptions(parsed(argv, env), {});

  it('takes the flags over PETSTORE_HEADER, one header a line, and that over the file\'s list or mapping', () => {
    const list = configFile('header: ["X-Tenant: from-file-list", "X-Gateway-Token: ${GATEWAY_TOKEN}"]\n');
    const mapping = configFile('header:\n  X-Tenant: from-file-map\n');
    const env = { PETSTORE_HEADER: 'X-Tenant: from-env\r\nX-Gateway-Token: env-token-81f2\n', GATEWAY_TOKEN: 'file-token-07c3' };
    expect(resolved(['--config', list, '--header', 'X-Tenant: from-flag', '--header', 'X-Trace: a, b'], env).headers).toEqual({ 'X-Tenant': 'from-flag', 'X-Trace': 'a, b' });
    expect(resolved(['--config', list], env).headers).toEqual({ 'X-Tenant': 'from-env', 'X-Gateway-Token': 'env-token-81f2' });
    expect(resolved(['--config', list], { GATEWAY_TOKEN: 'file-token-07c3' }).headers).toEqual({ 'X-Tenant': 'from-file-list', 'X-Gateway-Token': 'file-token-07c3' });
    expect(resolved(['--config', mapping], {}).headers).toEqual({ 'X-Tenant': 'from-file-map' });
    expect(resolved([], {}).headers).toBeUndefined();
  });

  it('prints the headers by name, never their values', () => {
    let printed = '';
    parseArguments(['--print-config', '--header', 'X-Gateway-Token: flag-token-5a1e'], '0.0.0', (text) => (printed += text), {});
    expect(printed).toContain('header: X-Gateway-Token (values not shown)  (flag)');
    expect(printed).not.toContain('flag-token-5a1e');
  });

  it('refuses a value with a line break or a NUL, and a header the suite sets itself, naming the header but not the value', () => {
    expect(() => resolved([], { PETSTORE_HEADER: 'X-Tenant: one\rX-Other: two' })).toThrow('--header X-Tenant: its value holds a line break (CR or LF)');
    expect(() => resolved(['--header', 'Content-Type: text/plain'], {})).toThrow('--header Content-Type is refused: the suite sets that header itself');
    expect(() => resolved(['--header', 'Accept: */*'], {})).toThrow('--header Accept is refused');
    expect(() => resolved(['--header', 'X-Tenant: tenant-a1', '--header', 'x-tenant: tenant-b2'], {})).toThrow('--header gives x-tenant twice');
    expect(() => resolveRunOptions({ headers: { 'X-Tenant': 'nul\u0000inside' } }, {}, 'api')).toThrow('headers X-Tenant: its value holds a NUL character');
  });
});

describe('the programmatic API\'s headers, cert and certKey', () => {
  it('takes headers as a record or as "Name: value" strings, and refuses in its own option names', () => {
    expect(resolveRunOptions({ headers: { 'X-Tenant': 'acme-eu-1' } }, {}, 'api').headers).toEqual({ 'X-Tenant': 'acme-eu-1' });
    expect(resolveRunOptions({ headers: ['X-Tenant: acme-eu-1'] }, {}, 'api').headers).toEqual({ 'X-Tenant': 'acme-eu-1' });
    expect(() => resolveRunOptions({ headers: { Authorization: 'Bearer x' } }, {}, 'api')).toThrow(/^headers Authorization is refused/);
    expect(() => resolveRunOptions({ headers: 'X-Tenant: a' }, {}, 'api')).toThrow('headers takes a record of header names to values');
    expect(() => resolveRunOptions({ baseUrl: 'https://staging.example.com/v1', apiKey: 'api-key-9c2e41', cert: 'client.pem' }, {}, 'api')).toThrow('cert and certKey go together');
  });
});
