import { join } from 'node:path';
import type { Exchange } from '../../helpers/http/exchange.js';
import { stringifyJson } from '../../helpers/json.js';
import type { Redactor } from '../../helpers/http/redact.js';
import { toJunit } from './junit.js';
import type { Report } from './report.js';
import { toBadge } from './badge.js';
import { harChunks } from './har.js';
import { toHtml } from './html.js';
import { toSummaryMarkdown } from './summary-md.js';
import { REPORTER_NAMES, type ReporterName } from './names.js';
import { jsonText } from './safe-text.js';
import { manifestBytes, MANIFEST_FILE } from './manifest.js';
import { ReportsNotWritten, StagedReports, type WriteFile } from './report-folder.js';

/** Each report file: its name in the folder, and how it is written: as one text, or in chunks (the recording, one exchange a chunk). */
interface Reporter {
  file: string;
  render: (report: Report, exchanges: readonly Exchange[]) => string | Iterable<string>;
}

/** The report files a run can write, by the name --reporter knows them by (names.ts): one for each name. */
export const REPORTERS: Readonly<Record<ReporterName, Reporter>> = {
  html: { file: 'report.html', render: (report: Report) => toHtml(report) },
  summary: { file: 'summary.md', render: (report: Report) => toSummaryMarkdown(report) },
  har: { file: 'exchanges.har', render: (report: Report, exchanges: readonly Exchange[]) => mapChunks(harChunks(report, exchanges), jsonText) },
  junit: { file: 'junit.xml', render: (report: Report) => toJunit(report) },
  json: { file: 'report.json', render: (report: Report) => jsonText(stringifyJson(report, 2)) },
  badge: { file: 'badge.svg', render: (report: Report) => toBadge(report) },
};

function* mapChunks(chunks: Iterable<string>, map: (chunk: string) => string): Generator<string> {
  for (const chunk of chunks) yield map(chunk);
}

/** A rendered report as the bytes written, each chunk through the run's redactor (a secret never spans two: a chunk is a whole JSON value). */
function* redactedBytes(rendered: string | Iterable<string>, redactor: Redactor): Generator<Buffer> {
  for (const chunk of typeof rendered === 'string' ? [rendered] : rendered) yield Buffer.from(redactor.redact(chunk));
}

/**
 * Writes the chosen reports and manifest.json, which vouches for them; every one goes through the run's redactor,
 * so its key appears in none. Each is written into a staging folder as it is rendered (one at a time in memory),
 * then all are moved into place (cli/reports/report-folder.ts): a disk that fills up, or a run killed meanwhile,
 * leaves the previous report whole, and the run exits 2 saying why. Returns the paths written.
 */
export function writeReportFiles(report: Report, exchanges: readonly Exchange[], dir: string, reporters: readonly ReporterName[], redactor: Redactor, today: string, write?: WriteFile): string[] {
  let staged: StagedReports | undefined;
  try {
    staged = new StagedReports(dir, report.runId, write);
    const files = REPORTER_NAMES.filter((name) => reporters.includes(name))
      .map((name) => staged!.add({ file: REPORTERS[name].file, chunks: redactedBytes(REPORTERS[name].render(report, exchanges), redactor) }));
    staged.add({ file: MANIFEST_FILE, chunks: [manifestBytes(report, today, files, redactor)] });
    staged.commit();
    return [...files.map(({ file }) => join(dir, file)), join(dir, MANIFEST_FILE)];
  } catch (error) {
    if (error instanceof ReportsNotWritten) throw error;
    staged?.discard();
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReportsNotWritten(`cannot write reports to ${dir} (${code ? fileSystemReason(code) : (error as Error).message}); the reports there before this run are left as they were`);
  }
}

function fileSystemReason(code: string): string {
  switch (code) {
    case 'ENOSPC': return 'no space left on the device (ENOSPC)';
    case 'EDQUOT': return 'the disk quota is spent (EDQUOT)';
    case 'EROFS': return 'the file system became read-only (EROFS)';
    case 'EACCES': case 'EPERM': return `not permitted (${code})`;
    default: return code;
  }
}
