// The rate-limit waits a run reports are the time it waited: a wait cut short by a cancelled run counts for the
// time it lasted, not for the time it was to last.
import { describe, expect, it } from 'vitest';
import { Pacer, type WaitTally } from '../../helpers/http/pacing.js';
import { RunCancelled } from '../../helpers/http/cancellation.js';

describe('the tally of rate-limit waits', () => {
  it('counts a 30 s wait that the run\'s cancellation ends after 3.65 s as 3.65 s', async () => {
    let now = 1_700_000_000_000;
    const tallies: WaitTally[] = [];
    const pacer = new Pacer({
      reserve: 2, maxWaitMs: 120_000, maxRetries: 4, backoffBaseMs: 1_000, backoffCapMs: 60_000,
      onWait: () => {}, onWaited: (tally) => tallies.push(tally), now: () => now,
      // The run is cancelled 3.65 s into the wait: the sleep ends early, as the run's cancellation makes it.
      sleep: async () => {
        now += 3_650;
        throw new RunCancelled('the run was cancelled (SIGTERM) before this rule was judged');
      },
    });
    await pacer.acquire('key');
    pacer.release('key', { status: 429, headers: { 'retry-after': '30' } });
    await expect(pacer.acquire('key')).rejects.toBeInstanceOf(RunCancelled);
    expect(pacer.waits()).toMatchObject({ count: 1, totalMs: 3_650 });
    expect(pacer.waits().reasons).toEqual([{ reason: 'answered 429, waiting for Retry-After', count: 1, totalMs: 3_650 }]);
    expect(tallies.at(-1)?.totalMs).toBe(3_650);
  });

  it('counts a wait that ran its course whole', async () => {
    let now = 1_700_000_000_000;
    const pacer = new Pacer({
      reserve: 2, maxWaitMs: 120_000, maxRetries: 4, backoffBaseMs: 1_000, backoffCapMs: 60_000,
      onWait: () => {}, now: () => now, sleep: async (ms) => { now += ms; },
    });
    await pacer.acquire('key');
    pacer.release('key', { status: 429, headers: { 'retry-after': '30' } });
    await pacer.acquire('key');
    expect(pacer.waits()).toMatchObject({ count: 1, totalMs: 30_000 });
  });
});
