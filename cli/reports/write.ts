import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange } from '../../helpers/http/exchange.js';
import { stringifyJson } from '../../helpers/json.js';
import type { Redactor } from '../../helpers/http/redact.js';
import { toJunit } from './junit.js';
import type { Report } from '../report.js';
import { toBadge } from './badge.js';
import { toHar } from './har.js';
import { toHtml } from './html.js';
import { toSummaryMarkdown } from './summary-md.js';
import { REPORTER_NAMES, type ReporterName } from './names.js';
import { jsonText } from '../safe-text.js';

/** Each report file: its name in the folder, and how it is written. */
interface Reporter {
  file: string;
  render: (report: Report, exchanges: readonly Exchange[]) => string;
}

/** The report files a run can write, by the name --reporter knows them by (names.ts): one for each name. */
export const REPORTERS: Readonly<Record<ReporterName, Reporter>> = {
  html: { file: 'report.html', render: (report: Report) => toHtml(report) },
  summary: { file: 'summary.md', render: (report: Report) => toSummaryMarkdown(report) },
  har: { file: 'exchanges.har', render: (report: Report, exchanges: readonly Exchange[]) => jsonText(stringifyJson(toHar(report, exchanges), 2)) },
  junit: { file: 'junit.xml', render: (report: Report) => toJunit(report) },
  json: { file: 'report.json', render: (report: Report) => jsonText(stringifyJson(report, 2)) },
  badge: { file: 'badge.svg', render: (report: Report) => toBadge(report) },
};

/** Writes the chosen reports; every one goes through the run's redactor, so its key appears in none. Returns the paths. */
export function writeReportFiles(report: Report, exchanges: readonly Exchange[], dir: string, reporters: readonly ReporterName[], redactor: Redactor): string[] {
  return REPORTER_NAMES.filter((name) => reporters.includes(name)).map((name) => {
    const path = join(dir, REPORTERS[name].file);
    writeFileSync(path, redactor.redact(REPORTERS[name].render(report, exchanges)));
    return path;
  });
}
