import type { CheckResult } from './collector.js';
import type { Report, RuleResult } from './report.js';
import { getRule } from '../helpers/catalog.js';

const MARK: Record<RuleResult['status'], string> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', errored: 'ERR ' };

/** One progress line per finished check. */
export function progressLine(result: CheckResult): string {
  const rule = getRule(result.meta.ruleId);
  const mark = rule.level === 'INFO' && result.meta.outcome === 'passed' ? 'INFO' : MARK[result.meta.outcome];
  const note = result.meta.outcome === 'passed' ? result.meta.observations[0] : result.meta.message;
  return `  ${mark} ${rule.id.padEnd(9)} ${rule.summary}${note ? `\n         ${firstLine(note)}` : ''}`;
}

/** The closing summary: verdict, counts by level and outcome, then each failure with expected vs seen. */
export function summaryText(report: Report): string {
  const lines: string[] = [''];
  const incomplete = report.cancelled ? `INCOMPLETE (cancelled by ${report.cancelled})` : 'INCOMPLETE (MUST rules skipped)';
  const verdict = { certified: 'CERTIFIED', 'not-certified': 'NOT CERTIFIED', incomplete }[report.verdict];
  lines.push(`${verdict}: ${report.target.baseUrl}${report.target.embedded ? ' (bundled reference server)' : ''}`);
  lines.push('');
  lines.push('          passed  failed  skipped  errored');
  for (const level of ['MUST', 'SHOULD', 'INFO'] as const) {
    const c = report.counts[level];
    lines.push(`  ${level.padEnd(7)} ${String(c.passed).padStart(6)}  ${String(c.failed).padStart(6)}  ${String(c.skipped).padStart(7)}  ${String(c.errored).padStart(7)}`);
  }
  lines.push('');
  lines.push(`  ${report.requests.total} requests, ${report.created.count} pets created, ${(report.durationMs / 1000).toFixed(1)} s`);
  const problems = report.rules.filter((rule) => rule.status === 'failed' || rule.status === 'errored');
  if (problems.length > 0) lines.push('');
  for (const rule of problems) {
    lines.push(`${rule.status === 'failed' ? 'FAIL' : 'ERR '} ${rule.id} [${rule.level}] ${rule.summary}`);
    for (const evidence of rule.evidence.slice(0, 3)) {
      lines.push(`     ${evidence.message}`);
      if (evidence.expected) lines.push(`       expected: ${firstLine(evidence.expected)}`);
      if (evidence.seen) lines.push(`       seen:     ${firstLine(evidence.seen)}`);
      if (evidence.counterexample) lines.push(`       seed ${evidence.counterexample.seed}, counterexample: ${firstLine(evidence.counterexample.body)}`, `       replay: ${evidence.counterexample.replay}`);
      const curl = evidence.exchanges[0]?.curl;
      if (curl) lines.push(`       reproduce: ${curl}`);
    }
    if (rule.evidence.length === 0 && rule.message) lines.push(`     ${rule.message}`);
  }
  for (const error of report.suiteErrors) lines.push(`SUITE ERROR ${error}`);
  return lines.join('\n');
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
