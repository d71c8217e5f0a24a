// The key is masked where it stands as the key, not wherever its letters occur: a short key (`e`, `test`)
// must leave ordinary text readable, and still be caught in a header, a JSON value or a query.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isShortSecret, KEY_PLACEHOLDER, Redactor } from '../../helpers/http/redact.js';
import { echoesOf, secretAppearances } from '../support/secret-search.js';

describe('a short key', () => {
  const redactor = new Redactor(['e', 'test']);
  const redact = (text: string) => redactor.redact(text);

  it('leaves words that contain its letters as they are', () => {
    const text = 'unknown pet; the latest tests, e.g. v1.e2, re-enter, e-mail, i.e. fine';
    expect(redact(text)).toBe(text);
  });

  it('is masked where it stands alone: an Authorization value, a JSON string, a query value, the end of a sentence', () => {
    expect(redact('Authorization: Bearer e')).toBe(`Authorization: Bearer ${KEY_PLACEHOLDER}`);
    expect(redact('{"apiKey":"test","message":"token e."}')).toBe(`{"apiKey":"${KEY_PLACEHOLDER}","message":"token ${KEY_PLACEHOLDER}."}`);
    expect(redact('/v1/pets?api_key=test&limit=1')).toBe(`/v1/pets?api_key=${KEY_PLACEHOLDER}&limit=1`);
  });

  it('is masked as Basic carries it (base64 of "key:") when that stands alone', () => {
    expect(redact(`Basic ${Buffer.from('test:').toString('base64')}`)).toBe(`Basic ${KEY_PLACEHOLDER}`);
  });

  it('is what the run warns about once; a key of 12 characters or more is not', () => {
    expect(isShortSecret('e')).toBe(true);
    expect(isShortSecret('k3y-of-11ch')).toBe(true);
    expect(isShortSecret('k3y-of-12chr')).toBe(false);
  });
});

describe('a long key', () => {
  it('is masked wherever it occurs, glued to other text too', () => {
    const key = 'pk_live+Echo/7rQ2x9w==';
    expect(new Redactor([key]).redact(`prefix${key}suffix and "${key.replaceAll('/', '\\/')}"`)).toBe(`prefix${KEY_PLACEHOLDER}suffix and "${KEY_PLACEHOLDER}"`);
  });
});

describe('two redactors', () => {
  it('each redacts its own secrets only: a run\'s key is nothing to the next run', () => {
    const first = new Redactor(['first-run-key-0a1b2c']);
    const second = new Redactor(['second-run-key-3d4e5f']);
    const text = 'first-run-key-0a1b2c and second-run-key-3d4e5f';
    expect(first.redact(text)).toBe(`${KEY_PLACEHOLDER} and second-run-key-3d4e5f`);
    expect(second.redact(text)).toBe(`first-run-key-0a1b2c and ${KEY_PLACEHOLDER}`);
    expect(second.formCount).toBe(first.formCount);
  });
});

describe('a key echoed in an encoding', () => {
  // A long key, shaped like many real ones, with every character an encoding treats apart.
  const key = 'pk_live+Echo/7rQ"x\\9w==<&>';
  const redactor = new Redactor([key]);

  it.each(Object.entries(echoesOf(key)))('(%s) is replaced, in a sentence too', (_form, echoed) => {
    expect(secretAppearances(echoed, key)).not.toEqual([]);
    expect(redactor.redact(echoed)).toBe(KEY_PLACEHOLDER);
    expect(secretAppearances(redactor.redact(`token ${echoed} refused`), key)).toEqual([]);
  });

  // Base64 holds the key's bits from where it begins in the encoded bytes: what is left beside the placeholder
  // are the one or two characters that also hold bits of the bytes around it.
  it.each([
    ['base64', key],
    ['base64 of Bearer <key>', `Bearer ${key}`],
    ['base64 of Basic <key>:', `${key}:`],
    ['base64 of the key among other bytes', `user=x;token=${key};exp=1`],
  ])('(%s) is replaced, in base64 and base64url, but for the characters that also hold other bytes', (_form, encoded) => {
    for (const echoed of [Buffer.from(encoded).toString('base64'), Buffer.from(encoded).toString('base64url')]) {
      const redacted = redactor.redact(`x-echo: ${echoed}`);
      const [before = '', after = ''] = redacted.slice('x-echo: '.length).split(KEY_PLACEHOLDER);
      expect(redacted).toContain(KEY_PLACEHOLDER);
      expect(secretAppearances(redacted, key)).toEqual([]);
      expect(Buffer.from(before + after, 'base64').length).toBeLessThanOrEqual(Buffer.byteLength(encoded) - Buffer.byteLength(key) + 3);
    }
  });

  it('half-masked (its first ten and its last ten characters) shows neither half', () => {
    const long = 'hostile-key-Zq81vX30wT';
    const shown = new Redactor([long]).redact(`key ${long.slice(0, 10)}…${long.slice(-10)}, or ${long.slice(0, 10)}****${long.slice(-10)}`);
    expect(shown).toBe(`key ${KEY_PLACEHOLDER}…${KEY_PLACEHOLDER}, or ${KEY_PLACEHOLDER}****${KEY_PLACEHOLDER}`);
  });

  it('leaves a start or an end of it alone where no mask stands beside it: that is a word of the report, not the key', () => {
    const human = 'diagnosis-key-5c1e0b7a';
    const redactor = new Redactor([human]);
    expect(redactor.redact('{"diagnosis": {"problem": "key-5c1e0b7a"}}')).toBe('{"diagnosis": {"problem": "key-5c1e0b7a"}}');
    // The key without its last character, as AUTH-03 sends it, is as good as the key wherever it stands.
    expect(redactor.redact('token diagnosis-key-5c1e0b7 refused; diagnosis…5c1e0b7a')).toBe(`token ${KEY_PLACEHOLDER} refused; ${KEY_PLACEHOLDER}…${KEY_PLACEHOLDER}`);
  });

  it('leaves a short run of its characters alone: fewer than 8 of them say little of it', () => {
    const long = 'hostile-key-Zq81vX30wT';
    expect(new Redactor([long]).redact('hostile keys, X30wT')).toBe('hostile keys, X30wT');
  });
});

describe('a short key', () => {
  const redactor = new Redactor(['k3y']);

  it.each([
    ['after Bearer and an encoded space', 'Authorization=Bearer%20k3y', `Authorization=Bearer%20${KEY_PLACEHOLDER}`],
    ['after Bearer and a form-encoded space', 'auth=Bearer+k3y&x=1', `auth=Bearer+${KEY_PLACEHOLDER}&x=1`],
    ['percent-encoded between encoded quotes', 'q=%22%6B%33%79%22', `q=%22${KEY_PLACEHOLDER}%22`],
    ['after a JSON newline escape', '"line\\nk3y"', `"line\\n${KEY_PLACEHOLDER}"`],
    ['upper-cased', 'token K3Y refused', `token ${KEY_PLACEHOLDER} refused`],
    ['as base64 of Bearer <key>', `x-echo: ${Buffer.from('Bearer k3y').toString('base64')}`, `x-echo: ${KEY_PLACEHOLDER}`],
  ])('is found %s', (_case, text, redacted) => {
    expect(redactor.redact(text)).toBe(redacted);
  });
});

describe('a replacement in a JSON document', () => {
  // A key that ends in a backslash once made the redactor break the JSON it redacted, and the run crash.
  it.each([
    ['ends in a backslash', 'ends-in-a-backslash\\'],
    ['holds a quote and backslashes', 'q"uo\\\\te"d-key-0123'],
    ['short, and ends in a backslash', 'k\\'],
    ['begins with what follows an escape', 'nu0041-key-3ab9c1'],
  ])('keeps it JSON, one and two levels deep, when the key %s', (_case, key) => {
    const redactor = new Redactor([key]);
    const body = JSON.stringify({ message: `token Bearer ${key} refused`, echo: key, tail: `\n${key}"` });
    const report = JSON.stringify({ rawBody: body, json: JSON.parse(body) }, null, 2);
    for (const text of [body, report, JSON.stringify({ page: report })]) {
      const redacted = redactor.redact(text);
      expect(() => JSON.parse(redacted)).not.toThrow();
      expect(redacted).not.toContain(JSON.stringify(key).slice(1, -1));
    }
    const inner = (JSON.parse(redactor.redact(report)) as { rawBody: string }).rawBody;
    expect(() => JSON.parse(inner)).not.toThrow();
    // A backslash the key ends in may stay: it is what keeps the escape after the placeholder whole.
    expect((JSON.parse(inner) as { echo: string }).echo).toMatch(/^\$PETSTORE_API_KEY\\?$/);
  });

  it('keeps any JSON document JSON, at three levels, whatever the key (seeded)', () => {
    const keyChars = fc.constantFrom(...'ab\\"/u0nN-_+=%&;#x'.split(''));
    fc.assert(fc.property(fc.string({ unit: keyChars, minLength: 1, maxLength: 16 }), fc.jsonValue(), (key, value) => {
      const redactor = new Redactor([key]);
      const inner = JSON.stringify({ value, echo: `a ${key} b`, key });
      let text = inner;
      for (let level = 0; level < 3; level++) {
        text = JSON.stringify({ text });
        expect(() => JSON.parse(redactor.redact(text))).not.toThrow();
      }
    }), { seed: 38, numRuns: 400 });
  });
});

describe('a key of kilobytes', () => {
  // Bearer tokens are often 300 to 1,500 characters, and a run takes keys up to 8,192: each is found in every form
  // a shorter key is, and building the redactor costs what it does for a short one.

  /** `length` characters of base64url, the same on every run: what a server issues as an opaque key. */
  const opaqueKey = (length: number, seed: string) => {
    let key = '';
    for (let block = 0; key.length < length; block++) key += createHash('sha256').update(`${seed}:${block}`).digest('base64url');
    return key.slice(0, length);
  };
  const base64url = (text: string) => Buffer.from(text).toString('base64url');
  // header.payload.signature, as an RS256 token with a payload of many claims: 1,462 characters.
  const jwt = [
    base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'petstore-2026-01' })),
    base64url(JSON.stringify({ sub: 'pet-owner-42', scope: 'pets:read pets:write store:read', roles: opaqueKey(600, 'roles').match(/.{1,40}/g), exp: 1798761600 })),
    opaqueKey(342, 'signature'),
  ].join('.');

  describe.each([
    ['1,000 characters of base64url', opaqueKey(1000, 'a')],
    ['2,000 characters of base64url', opaqueKey(2000, 'b')],
    ['8,192 characters of base64url', opaqueKey(8192, 'c')],
    [`a JWT of ${jwt.length} characters`, jwt],
  ])('(%s)', (_key, key) => {
    // Built on first use, so that a key the redactor cannot take fails its tests, not the whole file.
    let built: Redactor | undefined;
    const redactor = () => (built ??= new Redactor([key]));

    it('is taken by the redactor, which then redacts 200 KB of text holding it twice', () => {
      // The engine compiles a pattern when it first runs: a key it cannot take throws there, not when it is built.
      const text = `${'{"name":"rex","status":"available"}\n'.repeat(2800)}Bearer ${key}\n`.repeat(2);
      expect(redactor().redact(text).split(KEY_PLACEHOLDER)).toHaveLength(3);
    });

    it.each(Object.entries(echoesOf(key)))('is replaced %s, in a sentence too', (_form, echoed) => {
      expect(redactor().redact(echoed)).toBe(KEY_PLACEHOLDER);
      expect(secretAppearances(redactor().redact(`token ${echoed} refused`), key)).toEqual([]);
    });

    it('is replaced in base64 and base64url of Bearer <key>, but for the characters that also hold other bytes', () => {
      for (const echoed of [Buffer.from(`Bearer ${key}`).toString('base64'), base64url(`Bearer ${key}`)]) {
        const redacted = redactor().redact(`x-echo: ${echoed}`);
        const [before = '', after = ''] = redacted.slice('x-echo: '.length).split(KEY_PLACEHOLDER);
        expect(secretAppearances(redacted, key)).toEqual([]);
        expect(Buffer.from(before + after, 'base64').length).toBeLessThanOrEqual('Bearer '.length + 3);
      }
    });

    it('is replaced without its last character, wherever it stands', () => {
      expect(redactor().redact(`token ${key.slice(0, -1)} refused`)).toBe(`token ${KEY_PLACEHOLDER} refused`);
    });

    it('is replaced by a start or an end beside a mask, and left alone where no mask stands beside them', () => {
      const start = key.slice(0, 700);
      const end = key.slice(-700);
      expect(redactor().redact(`key ${start}…${end}, or ${start}****`)).toBe(`key ${KEY_PLACEHOLDER}…${KEY_PLACEHOLDER}, or ${KEY_PLACEHOLDER}****`);
      expect(redactor().redact(`{"start": "${start}", "end": "${end}"}`)).toBe(`{"start": "${start}", "end": "${end}"}`);
    });
  });

  it('builds patterns of one length for keys of 2,000 and 8,192 characters that begin and end alike', () => {
    // The patterns hold the forms of a key's first and last characters (a letter's are longer than a digit's) and
    // of its base64's, whose last characters depend on its length modulo 3 as well: alike in both keys here.
    const [head, tail] = [opaqueKey(64, 'head'), opaqueKey(64, 'tail')];
    const lengths = [2000, 8192].map((length) => new Redactor([head + opaqueKey(length - 128, `middle of ${length}`) + tail]).patternLength);
    expect(lengths[0]).toBeGreaterThan(0);
    expect(lengths[1]).toBe(lengths[0]);
  });
});
