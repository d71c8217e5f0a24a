// The lint the gallery and the mutation harness hold every run's words to (tests/support/wording.ts): it must find
// what a reader stumbles on, and leave alone what the target wrote and what reads right.
import { describe, expect, it } from 'vitest';
import { wordingProblems } from '../support/wording.js';

describe('the wording lint', () => {
  it('finds the slips a reader reported', () => {
    expect(wordingProblems('limit=1: expected at most 1 pets, saw 2 pets')).toHaveLength(1);
    expect(wordingProblems('a unfiltered page lists an invalid Pet')).toHaveLength(1);
    expect(wordingProblems('expected a status below 500, saw status 500 to no body')).toHaveLength(1);
    expect(wordingProblems('showed the write after 5006.699951171875 ms (7 reads)').length).toBeGreaterThan(0);
    expect(wordingProblems('  1 requests, 0 pets created, 0.0 s')).toHaveLength(1);
  });

  it('leaves alone what reads right, and what the target wrote', () => {
    for (const text of [
      'expected at most 1 pet, saw 2 pets', 'an unfiltered page', 'X-RateLimit-Reset as a Unix timestamp', 'a unique id', 'a user',
      'status 500 to a request without a body; answered {"message":"a error 1 pets 0.123456"}', 'name: expected "  a  b", saw "a b"',
      'showed the write after 2283 ms (1 read)', 'curl at 127.0.0.1:8080, version 0.1.0, 12.5 ms',
    ]) expect(wordingProblems(text), text).toEqual([]);
  });
});
