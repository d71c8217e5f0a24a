// Pipelines run in parallel with one key: two certifications at once against one target share its
// rate-limit window. Each paces by the X-RateLimit-* headers it is answered, so each sees the other's
// requests as a faster-falling Remaining, goes one request at a time and waits for the next window instead of
// tripping 429s; the server bans a key that keeps sending while it is answered 429, so a careless client would be caught.
// The Pro plan's 300 requests come in a window of 20 s standing for its minute: the pair still needs
// two windows or more (a window outlasts a run that nothing paces), and waits seconds, not a minute.
import { describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../server/reference-server.js';
import { withSwitches } from '../support/switches.js';
import { runInProcess } from '../support/in-process.js';
import { brokenRules, outputTail } from '../support/harness.js';

const PRO_WINDOW_MS = 20_000;

describe('two runs at once with one key', () => {
  it('are both certified on the Pro plan (300 a window), waiting for the shared window, and the key is never banned', async () => {
    const server = await startReferenceServer(withSwitches({ apiKeys: ['shared-key-3f7a'], variants: ['ban-after-429'], rateLimit: { limit: 300, windowMs: PRO_WINDOW_MS } }));
    try {
      // No child slot: the two runs spend their time waiting for windows, and must overlap to mean anything. Both
      // in this process, as a program certifying twice at once would: the key is shared on the server's side,
      // and each run paces by the headers it is answered whatever process it runs in.
      const runs = await Promise.all([1, 2].map(() => runInProcess(['--base-url', server.url, '--strict'], server.apiKey, { timeoutMs: 8 * 60_000 })));
      for (const run of runs) {
        if (run.report === undefined) expect.fail(`a run exited ${run.code} without report.json\n${outputTail(run)}`);
        expect(brokenRules(run.report).map((rule) => `${rule.id} ${rule.status}: ${rule.message?.split('\n')[0]}`)).toEqual([]);
        expect({ code: run.code, verdict: run.report.verdict }).toEqual({ code: 0, verdict: 'certified' });
        // Each saw the other spend the window, and went one request at a time so that the other's 429
        // probe, emptying the window, catches at most one request of it in flight.
        expect(run.stdout).toMatch(/X-RateLimit-Remaining \(API key\) fell from \d+ to \d+ while this run sent at most \d+ requests: another client spends the same limit/);
      }
      const [first, second] = runs.map((run) => run.report!);
      expect(Date.parse(first!.startedAt)).toBeLessThan(Date.parse(second!.finishedAt));
      expect(Date.parse(second!.startedAt)).toBeLessThan(Date.parse(first!.finishedAt));
      // The pair outran the shared window and waited for the next one: the pacing was exercised.
      expect(runs.map((run) => run.report!.rateLimitWaits?.count ?? 0).some((waits) => waits > 0), 'a run waited for the rate limit').toBe(true);
      const stats = server.stats();
      console.log(`two runs, one key, 300 per ${PRO_WINDOW_MS / 1000} s: ${runs.map((run) => `${(run.report!.durationMs / 1000).toFixed(0)} s`).join(' and ')}, `
        + `${stats.requests} requests, ${stats.unplanned429} 429s after the first of a window`);
      expect(stats.bannedKeys).toEqual([]);
    } finally {
      await server.close();
    }
  }, 10 * 60_000);
});
