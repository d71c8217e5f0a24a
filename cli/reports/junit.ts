import type { Report, RuleResult } from '../report.js';

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
    const count = (status: RuleResult['status']) => rules.filter((rule) => junitStatus(rule, known) === status).length;
    const time = seconds(rules.reduce((sum, rule) => sum + rule.durationMs, 0));
    return `  <testsuite name="${escape(area)}" tests="${rules.length}" failures="${count('failed')}" errors="${count('errored') + count('suite-error')}" skipped="${count('skipped')}" time="${time}">\n${properties}\n${rules.map((rule) => testcase(rule, known)).join('\n')}\n  </testsuite>`;
  });
  const total = (status: RuleResult['status']) => report.rules.filter((rule) => junitStatus(rule, known) === status).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="petstore-conformance" tests="${report.rules.length}" failures="${total('failed')}" errors="${total('errored') + total('suite-error')}" skipped="${total('skipped')}" time="${seconds(report.durationMs)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/**
 * A failure the --baseline knows is shown as skipped, as test runners show an expected failure:
 * the run exits 0 for it, and a dashboard painting it red would contradict the gate.
 */
function junitStatus(rule: RuleResult, known: ReadonlySet<string>): RuleResult['status'] {
  return known.has(rule.id) && (rule.status === 'failed' || rule.status === 'errored') ? 'skipped' : rule.status;
}

function testcase(rule: RuleResult, known: ReadonlySet<string>): string {
  const open = `    <testcase classname="${escape(rule.area)}" name="${escape(`${rule.id} ${rule.summary}`)}" time="${seconds(rule.durationMs)}"`;
  const details = [rule.message ?? '', ...rule.evidence.flatMap((e) => e.exchanges.map((x) => x.curl)), ...rule.observations].filter(Boolean).join('\n');
  if (junitStatus(rule, known) !== rule.status) {
    return `${open}>\n      <skipped message="${escape(`known ${rule.status === 'failed' ? 'failure' : 'error'} (--baseline): ${rule.message ?? ''}`)}"/>\n    </testcase>`;
  }
  switch (rule.status) {
    case 'failed': return `${open}>\n      <failure message="${escape(rule.message ?? '')}" type="${rule.level}">${escape(details)}</failure>\n    </testcase>`;
    case 'suite-error': return `${open}>\n      <error message="${escape(`suite error, a bug of petstore-conformance: ${rule.message ?? ''}`)}" type="suite-error">${escape(details)}</error>\n    </testcase>`;
    case 'errored': return `${open}>\n      <error message="${escape(rule.message ?? '')}">${escape(details)}</error>\n    </testcase>`;
    case 'skipped': return `${open}>\n      <skipped message="${escape(rule.message ?? '')}"/>\n    </testcase>`;
    default: return rule.observations.length > 0 ? `${open}>\n      <system-out>${escape(rule.observations.join('\n'))}</system-out>\n    </testcase>` : `${open}/>`;
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function escape(text: string): string {
  // XML 1.0 forbids most control characters even escaped; a server's bytes can contain them.
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '�')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
