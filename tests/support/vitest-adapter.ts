// The conformance suites under vitest: each suites/<area>.test.ts hands its area's checks to describeSuite, which
// declares one vitest test per check, titled by its rule, and judges it with the engine's own judgeCheck on one
// run shared by every file of the worker. vitest is only the host here: what a check comes to is the engine's
// outcome, mapped onto vitest's (a skip is a skip with its reason, a broken rule a failed test with its findings).
//
//   PETSTORE_BASE_URL=https://staging.example.com/v1 PETSTORE_API_KEY=… npx vitest run --project conformance
//
// Without PETSTORE_BASE_URL it certifies the bundled reference server, as the CLI does. PETSTORE_SEED fixes the
// seed; every other option takes the CLI's default. `-t LIST-02` runs one rule, as it does everywhere.
import { randomBytes } from 'node:crypto';
import { describe, test } from 'vitest';
import { resolveRunOptions } from '../../cli/resolve-options.js';
import { runConfigOf } from '../../cli/run.js';
import { judgeCheck, type Suite } from '../../helpers/judge/check.js';
import { proxyRouteFor } from '../../helpers/http/proxy.js';
import { RunContext } from '../../helpers/run-context.js';
import { startReferenceServer, type RunningReferenceServer } from '../../server/reference-server.js';

/** The rule's findings, as the failed test's error: a finding is thrown here, and only here, to tell vitest the rule is broken. */
class RuleViolation extends Error {
  override name = 'RuleViolation';

  constructor(message: string) {
    super(message);
    // No frames: where the adapter threw it says nothing of the target.
    this.stack = `${this.name}: ${message}`;
  }
}

/** The run every suite file of the worker judges on: opened by the first check, closed when the worker ends. */
async function openRun(env: NodeJS.ProcessEnv): Promise<{ run: RunContext; close: () => Promise<void> }> {
  const seed = env.PETSTORE_SEED === undefined ? undefined : Number(env.PETSTORE_SEED);
  const options = resolveRunOptions({ baseUrl: env.PETSTORE_BASE_URL || undefined, ...(seed === undefined ? {} : { seed }) }, env);
  let embedded: RunningReferenceServer | undefined;
  if (options.baseUrl === undefined) embedded = await startReferenceServer({ apiKeys: [`ref-${randomBytes(12).toString('hex')}`] });
  const baseUrl = embedded?.url ?? options.baseUrl!;
  const startedAt = new Date();
  const proxy = embedded ? undefined : proxyRouteFor(baseUrl);
  const config = runConfigOf(options, {
    baseUrl, apiKey: embedded?.apiKey ?? options.apiKey ?? '', embedded: embedded !== undefined,
    runId: `${startedAt.toISOString().replace(/[-:]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`,
    startedAtMs: startedAt.getTime(), today: startedAt.toISOString().slice(0, 10),
    ...(proxy ? { proxy } : {}),
  });
  // What the run tells a person (waits, progress) goes to vitest's console; exchanges are the reports' business, and vitest writes none.
  const run = new RunContext(config, (event) => {
    if (event.kind === 'notice') console.error(`  … ${run.redactor.redact(event.text)}`);
  });
  return {
    run,
    close: async () => {
      await run.close();
      await embedded?.close();
    },
  };
}

const conformanceTest = test.extend<{ run: RunContext }>({
  run: [async ({}, use) => {
    const opened = await openRun(process.env);
    try {
      await use(opened.run);
    } finally {
      await opened.close();
    }
  }, { scope: 'worker' }],
});

/** Declares the suite's checks as vitest tests, in catalog order; consecutive concurrent checks run together, as in the engine. */
export function describeSuite(suite: Suite): void {
  describe(suite.area, () => {
    for (const check of suite.checks) {
      const declare = check.concurrent ? conformanceTest.concurrent : conformanceTest;
      declare(`${check.rule.id} ${check.rule.summary}`, async ({ run, skip, annotate }) => {
        const meta = await judgeCheck(check, run);
        for (const observation of meta.observations) await annotate(run.redactor.redact(observation));
        const message = run.redactor.redact(meta.message ?? '');
        if (meta.outcome === 'skipped') skip(message);
        // A test runner has no outcome for "no run could judge this here": a skip, with the reason saying so.
        if (meta.outcome === 'not-applicable') skip(`not applicable: ${message}`);
        if (meta.outcome === 'failed') throw new RuleViolation(message);
        if (meta.outcome === 'errored' || meta.outcome === 'suite-error') throw new Error(`${meta.outcome}: ${message}`);
      });
    }
  });
}
