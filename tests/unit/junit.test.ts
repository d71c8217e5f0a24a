import { describe, expect, it } from 'vitest';
import { toJunit } from '../../cli/reports/junit.js';
import { sampleReport } from '../support/sample-report.js';

describe('junit.xml', () => {
  it('writes a violated rule as <failure> and one that could not run as <error>, each named by its rule ID', () => {
    const xml = toJunit(sampleReport());
    expect(xml).toMatch(/<testcase classname="creating" name="CREATE-03 [^"]*"[^>]*>\s*<failure /);
    expect(xml).toMatch(/<testcase classname="auth" name="AUTH-06 [^"]*"[^>]*>\s*<error /);
  });

  it('shows a failure the baseline knows as skipped, so the dashboard agrees with the exit code', () => {
    const xml = toJunit(sampleReport({ baseline: { file: 'b.txt', known: ['CREATE-03'], nowPassing: [], notJudged: [], unlisted: ['FUZZ-01'] } }));
    expect(xml).toMatch(/name="CREATE-03 [^"]*"[^>]*>\s*<skipped message="known failure \(--baseline\): /);
    expect(xml).toMatch(/name="FUZZ-01 [^"]*"[^>]*>\s*<failure /);
    const creating = xml.match(/<testsuite name="creating"[^>]*>/)?.[0] ?? '';
    expect(creating).toContain('failures="0"');
  });
});
