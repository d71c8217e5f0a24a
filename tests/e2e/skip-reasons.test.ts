// What a run says when it judges nothing is true: each skip reason's facts are checked against the run's own
// exchanges.har (tests/support/skip-claims.ts), on whole runs against servers whose defects leave rules with
// nothing to judge. The gallery's runs and the mutation harness's are held to the same oracle.
import { describe, expect, it } from 'vitest';
import type { Report } from '../../cli/reports/report.js';
import type { Overrides } from '../../server/seams.js';
import type { DefectId } from '../defects/catalog.js';
import { certifyInProcess } from '../support/in-process.js';
import { FUZZING_SAMPLE, harnessPlan, withChildSlot } from '../support/harness.js';
import { falseReasons } from '../support/skip-claims.js';

const message = (report: Report | undefined, id: string) => report?.rules.find((rule) => rule.id === id)?.message ?? '';

/** Whole runs (every area) against defects that leave rules without evidence: one id for every pet, no pet stored, no body. */
const DEFECTS: readonly DefectId[] = ['create-same-id', 'create-not-stored', 'create-201-no-body', 'rate-headers-draft-only'];
/** A store that never shows what it created keeps every read-after-write waiting its whole bound: a short one will do. */
const READ_LAG = ['--read-lag', '300'];

describe.concurrent('a whole run against a defect that leaves rules without evidence', () => {
  for (const defect of DEFECTS) {
    it(`${defect}: no skip reason contradicts the run's own HAR`, async ({ expect }) => {
      const run = await withChildSlot(() => certifyInProcess({ defects: [defect], ...harnessPlan(undefined, undefined, true) }, ['--strict', ...FUZZING_SAMPLE, ...READ_LAG], { timeoutMs: 240_000 }));
      expect(run.report).toBeDefined();
      expect(falseReasons(run.reportDir, run.report!)).toEqual([]);
      if (defect !== 'create-same-id') return;
      // One id for every pet: the pet REQ-01 sends PUT and DELETE to is every pet, so the model sets them all aside,
      // and the reasons say so and name the rule that found the cause, not that the run read no pet.
      for (const id of ['CONS-06', 'CONS-10']) expect(message(run.report, id)).toMatch(/set aside .*REQ-01.*the target gave that id to \d+ created pets.*one id for several pets: CREATE-04 judges that/);
      expect(message(run.report, 'LIST-02')).toMatch(/^the run created 26 pets \(26 POSTs answered 201\), but those answers and the listings show only 1 distinct pet id\(s\).*CREATE-04 judges that/);
    }, 600_000);
  }
});

it('RATE-07 advises no --rate-limit-budget reckoned from headers the run has shown to be wrong', async () => {
  // As a mock serving examples would: X-RateLimit-Remaining far above X-RateLimit-Limit, both huge (RATE-03).
  const reset = String(Math.ceil(Date.now() / 1000) + 60);
  const nonsense = { rateLimitHeaders: () => ({ 'x-ratelimit-limit': '45388868', 'x-ratelimit-remaining': '99999999', 'x-ratelimit-reset': reset }) };
  const run = await withChildSlot(() => certifyInProcess({ overrides: [nonsense] }, ['--only', 'ratelimit'], { timeoutMs: 240_000 }));
  expect(run.report?.rules.find((rule) => rule.id === 'RATE-03')?.status).toBe('failed');
  const reason = message(run.report, 'RATE-07');
  expect(reason).toMatch(/^X-RateLimit-Remaining says exceeding the window would take \d+ requests, more than --rate-limit-budget 1100 allows, but the run's answers show the rate-limit headers are wrong \(RATE-03: X-RateLimit-Remaining 99999999 above X-RateLimit-Limit 45388868\)/);
  expect(reason).not.toMatch(/run with --rate-limit-budget/);
  expect(falseReasons(run.reportDir, run.report!)).toEqual([]);
}, 600_000);

// A gateway that refuses the store's routes with 403 before routing them, the orders and any other alike: the 403
// says nothing of whether the operation exists, and the reason names the route beside it that was refused too. The
// same 403 from the operation alone (the gallery's store-orders-scope-403) is the operation's own answer, and passes.
it('STORE-01 is skipped when the route beside the orders is refused as they are, the reason true to the HAR', async () => {
  const gateway: Overrides = {
    authenticate: (request, operation, reference, server) => (request.url.includes('/store/') ? server.seams.error(403, 'forbidden', 'no route to the store for this key') : reference(request, operation)),
  };
  const run = await withChildSlot(() => certifyInProcess({ overrides: [gateway] }, ['--only', 'store']));
  expect(run.report?.rules.find((rule) => rule.id === 'STORE-01')).toMatchObject({
    status: 'skipped', message: expect.stringMatching(/answered 403 .* with the key, GET \/pets was answered 200 and GET \/store\/no-such-operation 403/),
  });
  expect(falseReasons(run.reportDir, run.report!, { strict: true })).toEqual([]);
}, 120_000);
