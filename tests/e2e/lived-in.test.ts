// A store that already holds pets is judged whole: the reference server restarted with 1, 3, 19 and 5,000 pets
// is certified under --require-complete. The fixtures size themselves from what the store shows: the fewest
// pets that make one status hold a default page and one more (LIST-14), none where the store holds enough.
import { describe, expect, it } from 'vitest';
import { certifyInProcess } from '../support/in-process.js';
import { FUZZING_SAMPLE, harnessPlan, withChildSlot } from '../support/harness.js';

/**
 * The pets LIST-02 creates on a store the reference server preloads with statuses cycling available, pending, sold:
 * available, the status it holds most of, up to 21; two of each status; one without status.
 */
const FIXTURES: Record<number, number> = {
  1: 20 + 2 + 2 + 1,
  3: 20 + 1 + 1 + 1,
  19: 14 + 0 + 0 + 1,
  5000: 0 + 0 + 0 + 1,
};

describe.concurrent('the reference server restarted with pets in it is certified under --require-complete', () => {
  for (const [preload, fixtures] of Object.entries(FIXTURES).map(([count, made]) => [Number(count), made] as const)) {
    it(`with ${preload} pet(s): certified, exit 0, and LIST-02 created ${fixtures} fixture(s)`, async ({ expect }) => {
      const run = await withChildSlot(() => certifyInProcess({ preload, ...harnessPlan(undefined, undefined, true) }, ['--require-complete', '--strict', ...FUZZING_SAMPLE], { timeoutMs: 240_000 }));
      const unjudged = (run.report?.rules ?? []).filter((rule) => rule.level !== 'INFO' && rule.status !== 'passed' && rule.status !== 'not-applicable' && rule.id !== 'RATE-11');
      expect(unjudged.map((rule) => `${rule.id} ${rule.status}: ${rule.message}`)).toEqual([]);
      expect({ code: run.code, verdict: run.report?.verdict }).toEqual({ code: 0, verdict: 'certified' });
      expect(run.report?.rules.find((rule) => rule.id === 'LIST-02')?.created).toHaveLength(fixtures);
      expect(run.report?.rules.find((rule) => rule.id === 'LIST-14')?.status).toBe('passed');
    }, 600_000);
  }

  it('with 5,000 pets, what no run can judge there is reported not applicable, with what the store showed', async ({ expect }) => {
    const run = await withChildSlot(() => certifyInProcess({ preload: 5000, ...harnessPlan(undefined, undefined, true) }, ['--require-complete', ...FUZZING_SAMPLE], { timeoutMs: 240_000 }));
    const notApplicable = (run.report?.rules ?? []).filter((rule) => rule.status === 'not-applicable');
    expect(notApplicable.map((rule) => rule.id)).toEqual(['CREATE-14', 'CONS-06']);
    for (const rule of notApplicable) expect(rule.message).toMatch(/100 pets.*no run can .* a store with fewer than 100 pets of one status/);
    expect(run.stdout).toContain('2 MUST rules no run could judge on this target (N/A: CREATE-14, CONS-06)');
  }, 600_000);
});

it('on a store of 19 pets with --read-only, LIST-14 is skipped with what a run that may create would create', async () => {
  const run = await withChildSlot(() => certifyInProcess({ preload: 19, ...harnessPlan(undefined, ['listing']) }, ['--read-only', '--only', 'listing'], { timeoutMs: 240_000 }));
  const list14 = run.report?.rules.find((rule) => rule.id === 'LIST-14');
  expect(list14?.status).toBe('skipped');
  expect(list14?.message).toBe('no status has more than 20 pets the target has shown (7 available, 6 pending, 6 sold), so a filtered default page of 20 cannot be told from a short one; --read-only creates none: a run without it creates 14 available pet(s), the fewest that make it judgeable');
}, 600_000);
