// A CI log never goes quiet for more than 10 s while a run works or waits: the heartbeat, on a clock of the test's own.
import { describe, expect, it } from 'vitest';
import { Heartbeat, HEARTBEAT_EVERY_MS } from '../../cli/heartbeat.js';
import type { Exchange } from '../../helpers/http/exchange.js';
import type { RuleMeta } from '../../helpers/judge/outcome.js';

function clocked(): { heartbeat: Heartbeat; lines: string[]; at: (ms: number) => void } {
  let now = 1_000_000;
  const lines: string[] = [];
  const heartbeat = new Heartbeat((line) => lines.push(line), () => now);
  return { heartbeat, lines, at: (ms) => { now = 1_000_000 + ms; heartbeat.tick(); } };
}

const URL_OF = 'http://127.0.0.1:9/v1/pets?limit=100';
const answered = (url: string) => ({ kind: 'exchange' as const, exchange: { seq: 1, request: { method: 'GET', url, headers: {}, auth: 'key' }, startedAt: '', durationMs: 1 } as unknown as Exchange });
const ended = (rule: string) => ({ kind: 'check-ended' as const, result: { meta: { ruleId: rule } as RuleMeta, durationMs: 1 } });

describe('the heartbeat of a run without a terminal', () => {
  it('says nothing while lines come, and after 10 s of quiet says which checks run and which answer it waits for', () => {
    const { heartbeat, lines, at } = clocked();
    heartbeat.hear({ kind: 'check-started', rule: 'CREATE-05' });
    heartbeat.hear({ kind: 'sent', rule: 'CREATE-05', method: 'GET', url: URL_OF });
    at(9_000);
    heartbeat.printed();
    at(18_999);
    expect(lines).toEqual([]);
    at(19_000);
    expect(lines).toEqual(['  … 19 s in, 0 answers so far: running CREATE-05 (19 s); waiting for the answer from the target, the oldest to GET /v1/pets?limit=100 (CREATE-05) sent 19 s ago']);
    // Quiet on: another line 10 s later, and none before.
    at(28_000);
    at(29_000);
    expect(lines).toHaveLength(2);
    heartbeat.hear(answered(URL_OF));
    heartbeat.hear(ended('CREATE-05'));
  });

  it('tells a run held back by the rate limit, with the waits since its last line and their reason', () => {
    const { heartbeat, lines, at } = clocked();
    heartbeat.hear({ kind: 'check-started', rule: 'LIST-02' });
    heartbeat.hear({ kind: 'sent', rule: 'LIST-02', method: 'GET', url: URL_OF });
    heartbeat.hear(answered(URL_OF));
    const reason = 'X-RateLimit-Remaining 0 with an X-RateLimit-Reset already past (X-RateLimit-Reset: 0), so each request waits for a window said to be over';
    heartbeat.hear({ kind: 'waits', tally: { count: 21, totalMs: 5_250, reasons: [{ reason, count: 21, totalMs: 5_250 }] } });
    at(HEARTBEAT_EVERY_MS);
    expect(lines.at(-1)).toBe(`  … 10 s in, 1 answer so far: running LIST-02 (10 s); held back by the rate limit 5.3 s in 21 waits since the last line (${reason})`);
    heartbeat.hear({ kind: 'waits', tally: { count: 40, totalMs: 10_000, reasons: [{ reason, count: 40, totalMs: 10_000 }] } });
    at(2 * HEARTBEAT_EVERY_MS);
    expect(lines.at(-1)).toBe(`  … 20 s in, 1 answer so far: running LIST-02 (20 s); held back by the rate limit 4.8 s in 19 waits since the last line (${reason})`);
  });

  it('says when nothing is in flight and no wait is pending, with how long ago the last answer came', () => {
    const { heartbeat, lines, at } = clocked();
    heartbeat.hear({ kind: 'check-started', rule: 'CREATE-14' });
    heartbeat.hear({ kind: 'sent', rule: 'CREATE-14', method: 'GET', url: URL_OF });
    at(2_000);
    heartbeat.hear(answered(URL_OF));
    at(12_000);
    expect(lines).toEqual(['  … 12 s in, 1 answer so far: running CREATE-14 (12 s); no request in flight; the last answer came 10 s ago']);
  });
});

describe('the heartbeat during a rate-limit wait announced as it began', () => {
  it('says the run waits for the rate limit and how long is left, not that nothing is in flight', () => {
    const { heartbeat, lines, at } = clocked();
    heartbeat.hear({ kind: 'check-started', rule: 'LIST-01' });
    heartbeat.hear({ kind: 'notice', text: 'waiting 52.0 s for the rate limit (API key): answered 429, Retry-After: 52; until 12:00:52Z' });
    at(HEARTBEAT_EVERY_MS);
    expect(lines).toEqual(['  … 10 s in, 0 answers so far: running LIST-01 (10 s); waiting for the rate limit, 42 s to go']);
    at(60_000);
    expect(lines.at(-1)).toBe('  … 60 s in, 0 answers so far: running LIST-01 (60 s); no request in flight');
  });
});
