// The reference server's limiter on a hand-driven clock: the windows the conforming rate-limit variants
// keep, so that what the gallery certifies is what their descriptions say.
import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../server/rate-limiter.js';

const LIMIT = { limit: 3, windowMs: 1_000 };

function limiterAt(behaviour: ConstructorParameters<typeof FixedWindowLimiter>[1]): { limiter: FixedWindowLimiter; at: (ms: number) => void } {
  let now = 10_000;
  return { limiter: new FixedWindowLimiter(LIMIT, behaviour, () => now), at: (ms) => { now = ms; } };
}

describe('a sliding log', () => {
  it('counts each request for one window from its admission, and moves Reset forward as requests age out', () => {
    const { limiter, at } = limiterAt({ enforce: true, carryExhaustion: false, slidingLog: true });
    at(10_000);
    expect(limiter.admit('key', true)).toMatchObject({ verdict: 'ok', remaining: 2, resetAtMs: 11_000 });
    at(10_400);
    limiter.admit('key', true);
    at(10_600);
    expect(limiter.admit('key', true)).toMatchObject({ verdict: 'ok', remaining: 0, resetAtMs: 11_000 });
    expect(limiter.admit('key', true)).toMatchObject({ verdict: 'limited', remaining: 0, resetAtMs: 11_000 });
    // The first request has aged out: one place is free, and Reset is now when the second ages out.
    at(11_050);
    expect(limiter.admit('key', true)).toMatchObject({ verdict: 'ok', remaining: 0, resetAtMs: 11_400 });
  });
});

describe('counting only successes', () => {
  it('leaves Remaining where it was after a request that failed, and lowers it after one that succeeded', () => {
    const { limiter } = limiterAt({ enforce: true, carryExhaustion: false, countOnlySuccess: true });
    const failed = limiter.admit('key', true);
    expect(failed.settle?.(false)).toBe(3);
    const succeeded = limiter.admit('key', true);
    expect(succeeded.remaining).toBe(3);
    expect(succeeded.settle?.(true)).toBe(2);
  });

  it('still refuses the request over the limit once enough have succeeded', () => {
    const { limiter } = limiterAt({ enforce: true, carryExhaustion: false, countOnlySuccess: true });
    for (let i = 0; i < 3; i += 1) limiter.admit('key', true).settle?.(true);
    expect(limiter.admit('key', true)).toMatchObject({ verdict: 'limited', remaining: 0 });
  });
});
