import type { UserConsoleLog } from 'vitest';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { RuleMeta } from '../helpers/judge/outcome.js';

/** One finished check as the collector saw it. */
export interface CheckResult {
  meta: RuleMeta;
  durationMs: number;
  /** vitest's own error text, when a check broke without a verdict of ours. */
  error?: string;
}

/**
 * A vitest reporter that gathers every check's RuleMeta in the CLI process, and passes the
 * worker's console lines (pacing notices) through to the person at the terminal.
 */
export class Collector implements Reporter {
  readonly results: CheckResult[] = [];
  /** Errors that broke a whole suite file, or the run: the suite itself broke. */
  readonly suiteErrors: string[] = [];
  /** The most messages the worker had sent on the run's channel when a check ended: the CLI waits for that many. */
  runMessages = 0;

  constructor(private readonly onResult: (result: CheckResult) => void, private readonly onLog: (line: string) => void) {}

  onTestCaseResult(testCase: TestCase): void {
    const result = testCase.result();
    const diagnostic = testCase.diagnostic();
    this.runMessages = Math.max(this.runMessages, testCase.meta().runMessages ?? 0);
    const meta = testCase.meta().rule;
    const error = result.errors?.[0];
    const errorText = error ? `${error.name ?? 'Error'}: ${error.message}` : undefined;
    if (!meta) {
      this.suiteErrors.push(`${testCase.name}: ${errorText ?? 'finished without a rule verdict'}`);
      this.passedOn.add(testCase.id);
      this.passOnInOrder(testCase.module);
      return;
    }
    // A check that vitest failed before it could classify (a timeout, say) is errored, never passed.
    if (result.state === 'failed' && meta.outcome === 'passed') {
      meta.outcome = 'errored';
      meta.message = errorText ?? 'the check failed without a verdict';
    }
    const collected = { meta, durationMs: diagnostic?.duration ?? 0, error: errorText };
    this.results.push(collected);
    this.finished.set(testCase.id, collected);
    this.passOnInOrder(testCase.module);
  }

  onTestModuleEnd(testModule: TestModule): void {
    for (const error of testModule.errors()) this.suiteErrors.push(`${testModule.moduleId}: ${error.message}`);
    this.passOnInOrder(testModule, true);
  }

  /** Finished checks not yet passed on, by test id: checks in flight together finish in any order. */
  private readonly finished = new Map<string, CheckResult>();
  private readonly passedOn = new Set<string>();

  /**
   * Passes results on in the suite's (the catalog's) order: each one once every check declared before it
   * has finished. At the module's end whatever is left goes, in order, so a check that never ran holds nothing back.
   */
  private passOnInOrder(testModule: TestModule, ended = false): void {
    for (const test of testModule.children.allTests()) {
      if (this.passedOn.has(test.id)) continue;
      const result = this.finished.get(test.id);
      if (!result) {
        if (ended) continue;
        return;
      }
      this.passedOn.add(test.id);
      this.finished.delete(test.id);
      this.onResult(result);
    }
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>): void {
    for (const error of unhandledErrors) this.suiteErrors.push(`unhandled: ${error.message ?? String(error)}`);
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    for (const line of log.content.split('\n')) if (line.trim()) this.onLog(line);
  }
}
