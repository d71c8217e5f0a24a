// The key is masked where it stands as the key, not wherever its letters occur: a short key (`e`, `test`)
// must leave ordinary text readable, and still be caught in a header, a JSON value or a query.
import { describe, expect, it } from 'vitest';
import { isShortSecret, KEY_PLACEHOLDER, Redactor } from '../../helpers/http/redact.js';

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
