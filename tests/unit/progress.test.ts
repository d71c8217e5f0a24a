// What the run tells reaches the person as it happens: a rate-limit wait is announced as it
// starts and totalled; a long phase rewrites one status line on a terminal, or prints every few seconds in a log.
import { describe, expect, it } from 'vitest';
import { LogRouter, statusLine, summaryText } from '../../cli/terminal.js';
import { sampleReport } from '../support/sample-report.js';

function router(status?: (line: string | undefined) => void) {
  const printed: string[] = [];
  let now = 0;
  const log = new LogRouter((line) => printed.push(line), status, () => now);
  return { log, printed, advance: (ms: number) => (now += ms) };
}

describe('rate-limit waits', () => {
  it('are printed as they start and totalled, and the summary line says where the time went', () => {
    const { log, printed } = router();
    log.line('waiting 12.0 s for the rate limit (API key): X-RateLimit-Remaining 2 of 60, 2 kept in reserve; until 12:00:40Z');
    log.line('waiting 3.5 s for the rate limit (API key): answered 429, Retry-After: 4; until 12:00:44Z');
    expect(printed).toEqual([
      '  … waiting 12.0 s for the rate limit (API key): X-RateLimit-Remaining 2 of 60, 2 kept in reserve; until 12:00:40Z',
      '  … waiting 3.5 s for the rate limit (API key): answered 429, Retry-After: 4; until 12:00:44Z',
    ]);
    expect(log.waits).toEqual({ count: 2, totalMs: 15_500 });
    expect(summaryText(sampleReport({ rateLimitWaits: log.waits }))).toMatch(/\n {2}\d+ requests, \d+ pets? created, \d+\.\d s, 2 rate-limit waits \(15\.5 s\)\n/);
  });
});

describe('a long phase', () => {
  it('without a terminal, prints a line once it has run 5 s and then every 5 s, not one per request', () => {
    const { log, printed, advance } = router();
    for (let done = 1; done <= 40; done++) {
      log.progress(`FUZZ-01 fuzzing: ${done} generated bodies sent`);
      advance(300);
    }
    expect(printed).toEqual(['  … FUZZ-01 fuzzing: 18 generated bodies sent', '  … FUZZ-01 fuzzing: 35 generated bodies sent']);
  });

  it('on a terminal, rewrites the status line, and clears it before the next printed line', () => {
    const status: Array<string | undefined> = [];
    const { log, printed } = router((line) => status.push(line));
    log.progress(`RATE-07 429 probe: 10 requests sent (at most 1100)`);
    log.progress(`RATE-07 429 probe: 20 requests sent (at most 1100)`);
    log.endPhase();
    expect(status).toEqual(['  … RATE-07 429 probe: 10 requests sent (at most 1100)', '  … RATE-07 429 probe: 20 requests sent (at most 1100)', undefined]);
    expect(printed).toEqual([]);
  });
});

describe('where the run stands (the compact terminal)', () => {
  it('is the status line on a terminal, cleared before any printed line, and nothing in a log', () => {
    const status: Array<string | undefined> = [];
    const onTerminal = router((line) => status.push(line));
    onTerminal.log.standing(statusLine(3, 103, 1, 'LIST-03'));
    onTerminal.log.line('waiting 2.0 s for the rate limit (API key): answered 429, Retry-After: 2; until 12:00:44Z');
    expect(status).toEqual(['  … 3 of 103 rules judged, 1 failing (LIST-03)', undefined]);
    expect(onTerminal.printed).toEqual(['  … waiting 2.0 s for the rate limit (API key): answered 429, Retry-After: 2; until 12:00:44Z']);

    const inALog = router();
    inALog.log.standing(statusLine(3, 103, 0, 'LIST-03'));
    expect(inALog.printed).toEqual([]);
  });
});
