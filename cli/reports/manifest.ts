import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { arch, release, platform } from 'node:os';
import { stringifyJson } from '../../helpers/json.js';
import type { Redactor } from '../../helpers/http/redact.js';
import type { Report } from './report.js';
import { jsonText } from './safe-text.js';

export const MANIFEST_FILE = 'manifest.json';

/** One file the run wrote, as the manifest vouches for it. */
export interface ManifestFile {
  file: string;
  sha256: string;
  bytes: number;
}

/**
 * What a reader needs to check a report folder without having run it: the hash of every file written,
 * and everything that made the run's requests what they were (suite, spec, options, seed, run ID, the date
 * the run took as today), so `petstore-conformance verify` can re-judge the recorded exchanges.
 */
export interface Manifest {
  tool: { name: string; version: string };
  specVersion: string;
  runId: string;
  verdict: Report['verdict'];
  seed: number;
  /** The date the date-aware checks took as today (YYYY-MM-DD). */
  today: string;
  /** The run's options, the key redacted (as in report.json). */
  options: Record<string, unknown>;
  target: Report['target'];
  runtime: { node: string; os: string };
  startedAt: string;
  finishedAt: string;
  files: ManifestFile[];
}

export function sha256Of(path: string): string {
  return sha256OfBytes(readFileSync(path));
}

export function sha256OfBytes(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** manifest.json of the files a run writes, as its bytes: the hash of each, and what made the run's requests what they were. */
export function manifestBytes(report: Report, today: string, files: readonly ManifestFile[], redactor: Redactor): Buffer {
  const manifest: Manifest = {
    tool: report.tool,
    specVersion: report.specVersion,
    runId: report.runId,
    verdict: report.verdict,
    seed: report.options.seed as number,
    today,
    options: report.options,
    target: report.target,
    runtime: { node: process.version, os: `${platform()} ${release()} ${arch()}` },
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    files: [...files],
  };
  return Buffer.from(jsonText(redactor.redact(stringifyJson(manifest, 2))));
}
