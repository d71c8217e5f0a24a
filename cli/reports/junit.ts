import type { Report, RuleResult } from './report.js';
import { isFailing, isOurBug, junitKind, type JunitKind } from '../../helpers/judge/outcome-meaning.js';
import { MARKUP_MARKS, visibleControls, withoutWorkflowCommands } from './safe-text.js';

/** JUnit XML for CI dashboards: one testcase per rule, <failure> for a violation, <error> for a check that could not run. */
export function toJunit(report: Report): string {
  const areas = [...new Set(report.rules.map((rule) => rule.area))];
  const known = new Set(report.baseline?.known ?? []);
  // A verdict means something only with the suite and spec versions that gave it: a new suite version may add rules.
  // A run that stopped at its first answers shows every rule skipped: the dashboard needs the reason beside them.
  const diagnosis = report.diagnosis ? `\n      <property name="diagnosis" value="${escape(`not judged: ${report.diagnosis.problem}; ${report.diagnosis.hint}`)}"/>` : '';
  const properties = `    <properties>\n      <property name="tool.version" value="${escape(report.tool.version)}"/>\n      <property name="specVersion" value="${escape(report.specVersion)}"/>${diagnosis}\n    </properties>`;
  const suites = areas.map((area) => {
    const rules = report.rules.filter((rule) => rule.area === area);
    const count = tally(rules, known);
    const time = seconds(rules.reduce((sum, rule) => sum + rule.durationMs, 0));
    return `  <testsuite name="${escape(area)}" tests="${rules.length}" failures="${count.failure}" errors="${count.error}" skipped="${count.skipped}" time="${time}">\n${properties}\n${rules.map((rule) => testcase(rule, known)).join('\n')}\n  </testsuite>`;
  });
  const total = tally(report.rules, known);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="petstore-conformance" tests="${report.rules.length}" failures="${total.failure}" errors="${total.error}" skipped="${total.skipped}" time="${seconds(report.durationMs)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** How many rules junit.xml shows as each of its kinds. */
function tally(rules: readonly RuleResult[], known: ReadonlySet<string>): Record<JunitKind, number> {
  const counts: Record<JunitKind, number> = { failure: 0, error: 0, skipped: 0, passed: 0 };
  for (const rule of rules) counts[junitKindOf(rule, known)] += 1;
  return counts;
}

/**
 * A failure the --baseline knows is shown as skipped, as test runners show an expected failure:
 * the run exits 0 for it, and a dashboard painting it red would contradict the gate.
 */
function junitKindOf(rule: RuleResult, known: ReadonlySet<string>): JunitKind {
  return known.has(rule.id) && isFailing(rule.status) ? 'skipped' : junitKind(rule.status);
}

function testcase(rule: RuleResult, known: ReadonlySet<string>): string {
  const open = `    <testcase classname="${escape(rule.area)}" name="${escape(`${rule.id} ${rule.summary}`)}" time="${seconds(rule.durationMs)}"`;
  const details = [rule.message ?? '', ...rule.evidence.flatMap((e) => e.exchanges.map((x) => x.curl)), ...rule.observations].filter(Boolean).join('\n');
  if (junitKindOf(rule, known) !== junitKind(rule.status)) {
    return `${open}>\n      <skipped message="${escape(`known ${junitKind(rule.status)} (--baseline): ${rule.message ?? ''}`)}"/>\n    </testcase>`;
  }
  switch (junitKind(rule.status)) {
    case 'failure': return `${open}>\n      <failure message="${escape(rule.message ?? '')}" type="${rule.level}">${escape(details)}</failure>\n    </testcase>`;
    case 'error': return isOurBug(rule.status)
      ? `${open}>\n      <error message="${escape(`suite error, a bug of petstore-conformance: ${rule.message ?? ''}`)}" type="suite-error">${escape(details)}</error>\n    </testcase>`
      : `${open}>\n      <error message="${escape(rule.message ?? '')}">${escape(details)}</error>\n    </testcase>`;
    case 'skipped': return `${open}>\n      <skipped message="${escape(rule.message ?? '')}"/>\n    </testcase>`;
    default: return rule.observations.length > 0 ? `${open}>\n      <system-out>${escape(rule.observations.join('\n'))}</system-out>\n    </testcase>` : `${open}/>`;
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function escape(text: string): string {
  // XML 1.0 forbids most control characters even escaped, and a CI log that prints the file acts on the rest:
  // a server's bytes can hold both. Each is shown as a visible mark, and a workflow command is no longer one.
  const xml = visibleControls(text)
    .replace(/[\ufffe\uffff]/g, '�')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return withoutWorkflowCommands(xml, MARKUP_MARKS);
}
