// Writing the report folder: all of a run's files, or none of them. A disk that fills up while the reports are
// written once left a folder mixed from two runs, and was reported as a bug of the suite.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../helpers/http/redact.js';
import { foreignEntries, ReportsNotWritten } from '../../cli/reports/report-folder.js';
import { writeReportFiles } from '../../cli/reports/write.js';
import { harChunks, toHar } from '../../cli/reports/har.js';
import { stringifyJson } from '../../helpers/json.js';
import { UsageError } from '../../cli/resolve-options.js';
import { hostileExchange, sampleReport } from '../support/sample-report.js';

const ALL = ['html', 'summary', 'har', 'junit', 'json', 'badge'] as const;

function contentsOf(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((name) => [name, readFileSync(join(dir, name), 'latin1')]));
}

/** A writer whose disk fills up at its `nth` file, as writeFileSync would fail then. */
function fillingUpAt(nth: number): (path: string, chunks: Iterable<Buffer>) => void {
  let written = 0;
  return (path, chunks) => {
    written += 1;
    if (written === nth) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC' });
    writeFileSync(path, Buffer.concat([...chunks]), { flag: 'wx' });
  };
}

describe('reports written into a folder', () => {
  const exchanges = [hostileExchange(1)];

  it('on a disk that fills up mid-way, leave the previous report whole and say why, as bad configuration (exit 2), not a bug', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-folder-'));
    writeReportFiles(sampleReport({ runId: 'previous-run' }), exchanges, dir, ALL, new Redactor(), '2026-01-02');
    const before = contentsOf(dir);
    expect(Object.keys(before)).toEqual(['badge.svg', 'exchanges.har', 'junit.xml', 'manifest.json', 'report.html', 'report.json', 'summary.md']);
    let thrown: unknown;
    try {
      writeReportFiles(sampleReport({ runId: 'next-run' }), exchanges, dir, ALL, new Redactor(), '2026-01-03', fillingUpAt(3));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ReportsNotWritten);
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toBe(`cannot write reports to ${dir} (no space left on the device (ENOSPC)); the reports there before this run are left as they were`);
    expect(contentsOf(dir)).toEqual(before);
  });

  it('replace a previous run\'s report by the next one whole, leaving nothing of the writing behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-folder-'));
    writeReportFiles(sampleReport({ runId: 'previous-run' }), exchanges, dir, ALL, new Redactor(), '2026-01-02');
    writeReportFiles(sampleReport({ runId: 'next-run' }), exchanges, dir, ['json'], new Redactor(), '2026-01-03');
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', 'report.json']);
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toContain('"runId": "next-run"');
    expect(foreignEntries(dir)).toEqual([]);
  });

  it('write the recording one exchange at a time, as the whole document would read', () => {
    const report = sampleReport({ cancelled: 'SIGTERM' });
    const many = [hostileExchange(1), hostileExchange(2), hostileExchange(3)];
    expect([...harChunks(report, many)].join('')).toBe(stringifyJson(toHar(report, many), 2));
    expect([...harChunks(report, [])].join('')).toBe(stringifyJson(toHar(report, []), 2));
  });

  it('count a manifest.json that is no manifest of a run (a web app\'s) as a file of the person\'s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-folder-'));
    writeFileSync(join(dir, 'manifest.json'), '{"name":"My App","icons":[]}');
    expect(foreignEntries(dir)).toEqual(['manifest.json']);
  });
});
