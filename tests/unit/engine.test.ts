// The engine runs the checks of a run in the CLI's own process: the areas that send one after another, then what
// judges the whole run in catalog order; in an area consecutive concurrent checks together (at most five at once) and
// every other check alone; each outcome an event in catalog order.
import { describe, expect, it } from 'vitest';
import { runSuites } from '../../helpers/engine/engine.js';
import type { CheckResult, RunEvent } from '../../helpers/engine/events.js';
import { check, suite, type Check, type Suite } from '../../helpers/judge/check.js';
import { RunContext } from '../../helpers/run-context.js';
import type { RunConfig } from '../../helpers/run-config.js';

/** A run that sends nothing: the checks here never reach the client. */
function quietRun(events: RunEvent[] = [], signal?: AbortSignal): RunContext {
  const config: RunConfig = {
    baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'engine-test-key', runId: 'engine-test', startedAtMs: Date.now(), embedded: false, today: '2026-11-28',
    readOnly: false, only: [], skip: [], timeoutMs: 1_000, maxResponseBytes: 1024, maxRequests: null, maxDurationMs: null, concurrency: 4,
    rateLimitReserve: 2, rateLimitBudget: 0, verifyRecovery: false, seed: 1, fuzzRuns: 0, fuzzValidRuns: 0, exploreRuns: 0, readLagMs: 0,
  };
  return new RunContext(config, (event) => events.push(event), signal);
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(checks: readonly Check[], events: RunEvent[] = [], signal?: AbortSignal): Promise<CheckResult[]> {
  return runAll([suite('listing', checks)], events, signal);
}

async function runAll(suites: readonly Suite[], events: RunEvent[] = [], signal?: AbortSignal): Promise<CheckResult[]> {
  const context = quietRun(events, signal);
  try {
    return await runSuites(context, suites, (event) => events.push(event));
  } finally {
    await context.close();
  }
}

const ended = (events: readonly RunEvent[]) => events.flatMap((event) => (event.kind === 'check-ended' ? [event.result.meta.ruleId] : []));

describe('the engine', () => {
  it('passes outcomes on in catalog order, each once every check before it has ended', async () => {
    const events: RunEvent[] = [];
    const finished: string[] = [];
    const after = (id: string, ms: number) => check(id, async () => {
      await tick(ms);
      finished.push(id);
    }, { concurrent: true });
    await run([after('LIST-03', 60), after('LIST-04', 5), after('LIST-05', 30)], events);
    expect(finished).toEqual(['LIST-04', 'LIST-05', 'LIST-03']);
    expect(ended(events)).toEqual(['LIST-03', 'LIST-04', 'LIST-05']);
  });

  it('judges consecutive concurrent checks together, at most five at once, and every other check alone', async () => {
    let running = 0;
    let most = 0;
    const log: string[] = [];
    const body = (id: string) => async () => {
      running += 1;
      most = Math.max(most, running);
      log.push(`start ${id}`);
      await tick(20);
      log.push(`end ${id}`);
      running -= 1;
    };
    const together = ['LIST-03', 'LIST-04', 'LIST-05', 'LIST-06', 'LIST-07', 'LIST-12', 'LIST-13'].map((id) => check(id, body(id), { concurrent: true }));
    await run([check('LIST-02', body('LIST-02')), ...together, check('LIST-14', body('LIST-14'))]);
    expect(most).toBe(5);
    expect(log.slice(0, 3)).toEqual(['start LIST-02', 'end LIST-02', 'start LIST-03']);
    // The sixth waits for a place; the check after the group waits for all of it.
    expect(log.indexOf('start LIST-12')).toBeGreaterThan(log.indexOf('end LIST-03'));
    expect(log.at(-2)).toBe('start LIST-14');
  });

  it('turns what a check records or throws into its outcome: failed, an INFO observation, skipped, errored, a bug of ours', async () => {
    const results = await run([
      check('LIST-02', async (ctx) => ctx.violation({ expected: '20 pets', seen: '10 pets' })),
      check('LIST-08', async (ctx) => ctx.violation({ expected: 'a 400', seen: '422' })),
      check('LIST-09', async (ctx) => ctx.skip('every filtered page was empty')),
      check('LIST-10', async () => {
        throw new Error('the fixture would not be created');
      }),
      check('LIST-11', async () => {
        (undefined as unknown as { length: number }).length;
      }),
    ]);
    const outcome = (id: string) => results.find((result) => result.meta.ruleId === id)!.meta;
    expect(outcome('LIST-02')).toMatchObject({ outcome: 'failed', message: 'expected 20 pets, saw 10 pets' });
    expect(outcome('LIST-08')).toMatchObject({ outcome: 'passed', observations: ['expected a 400, saw 422'] });
    expect(outcome('LIST-09')).toMatchObject({ outcome: 'skipped', message: 'every filtered page was empty' });
    expect(outcome('LIST-10')).toMatchObject({ outcome: 'errored', message: 'the fixture would not be created' });
    expect(outcome('LIST-11').outcome).toBe('suite-error');
    expect(outcome('LIST-11').message).toMatch(/^TypeError: .* \(at .*engine\.test\.ts:\d+:\d+\)$/);
  });

  it('skips, with the signal named, every check a cancelled run had not begun, and stops none already running', async () => {
    const controller = new AbortController();
    const results = await run([
      check('LIST-02', async () => {
        controller.abort('SIGTERM');
        await tick(5);
      }),
      check('LIST-03', async () => undefined),
    ], [], controller.signal);
    expect(results.map((result) => result.meta.outcome)).toEqual(['passed', 'skipped']);
    expect(results[1]!.meta.message).toBe('the run was cancelled (SIGTERM) before this rule was judged');
  });

  it('announces each check as it starts, before its outcome', async () => {
    const events: RunEvent[] = [];
    await run([check('LIST-02', async () => undefined)], events);
    expect(events.map((event) => event.kind)).toEqual(['check-started', 'check-ended']);
  });

  it('runs the areas that send one after another, each in its own order, and then what judges the whole run, in catalog order', async () => {
    const log: string[] = [];
    const step = (id: string, ms: number) => async () => {
      log.push(`start ${id}`);
      await tick(ms);
      log.push(`end ${id}`);
    };
    await runAll([
      suite('listing', [check('LIST-01', step('LIST-01', 30)), check('LIST-02', step('LIST-02', 30))]),
      suite('auth', [check('AUTH-01', step('AUTH-01', 10)), check('AUTH-08', step('AUTH-08', 5), { wholeRun: true }), check('AUTH-09', step('AUTH-09', 10))]),
      suite('errors', [check('ERR-01', step('ERR-01', 5))], { wholeRun: true }),
      suite('consistency', [check('CONS-01', step('CONS-01', 5))], { wholeRun: true }),
    ]);
    // Listing first, then auth in its own order: what an area asks may rest on what the areas before it learnt.
    expect(log.slice(0, 4)).toEqual(['start LIST-01', 'end LIST-01', 'start LIST-02', 'end LIST-02']);
    expect(log.indexOf('start AUTH-09')).toBeGreaterThan(log.indexOf('end AUTH-01'));
    // AUTH-08 judges the whole run: after both lanes, before the areas that judge the whole run, which keep catalog order.
    const lanesEnded = Math.max(log.indexOf('end LIST-02'), log.indexOf('end AUTH-09'));
    expect(log.indexOf('start AUTH-08')).toBeGreaterThan(lanesEnded);
    expect(log.slice(-6)).toEqual(['start AUTH-08', 'end AUTH-08', 'start CONS-01', 'end CONS-01', 'start ERR-01', 'end ERR-01']);
  });

  it('refuses a check that waits for an area run after its own, rather than judging it without what it waits for', async () => {
    const events: RunEvent[] = [];
    await expect(runAll([
      suite('listing', [check('LIST-01', async () => {}, { after: ['fuzzing'] })]),
      suite('fuzzing', [check('FUZZ-01', async () => {})]),
    ], events)).rejects.toThrow('LIST-01 waits for the fuzzing area, which runs after its own');
    expect(events.filter((event) => event.kind === 'check-started')).toEqual([]);
  });
});
