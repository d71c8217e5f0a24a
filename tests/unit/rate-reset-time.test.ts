// RATE-05 on a slow answer: a server may compute its rate-limit headers when the request arrives and answer after a
// stall (a freedom the spec leaves), so its Reset may be past by the Date the answer carries; it is a finding only
// when it was past before the request was sent (blind round 2: a server behind a slow upstream, 3.5 s).
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../helpers/http/exchange.js';
import { judgeInvariant, RATE_05 } from '../../helpers/judge/invariants.js';

const SENT_MS = Date.parse('2026-11-28T06:00:00Z');

function answered(durationMs: number, resetS: number): Exchange {
  const date = new Date(SENT_MS + durationMs).toUTCString();
  return {
    seq: 1, rule: 'LIST-01', startedAt: new Date(SENT_MS).toISOString(), durationMs,
    request: { method: 'GET', url: 'http://127.0.0.1:9/v1/pets', headers: {}, auth: 'key' },
    response: { status: 200, headers: { date, 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(resetS) }, rawBody: '[]', json: [], truncated: false },
  };
}

describe('RATE-05 and a stall between the request and its answer', () => {
  it('holds when the Reset was ahead when the request was sent, though past when the answer left', () => {
    // Sent at :00, Reset at :01, answered at :03.5.
    expect(judgeInvariant(RATE_05, answered(3_500, SENT_MS / 1000 + 1))).toBeUndefined();
  });

  it('fails when the Reset was past before the request was sent', () => {
    expect(judgeInvariant(RATE_05, answered(100, SENT_MS / 1000 - 5))?.seen).toMatch(/s in the past by its Date header, before the request was sent/);
  });
});
