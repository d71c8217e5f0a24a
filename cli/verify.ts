import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseJson } from '../helpers/json.js';
import type { Report, RuleResult } from './report.js';
import { MANIFEST_FILE, sha256Of, type Manifest } from './reports/manifest.js';
import { DEFAULT_OPTIONS, type RunOptions } from './resolve-options.js';
import { certify } from './run.js';
import { TOOL } from './tool.js';

/** The outcome of `verify`: exit 0 with one line saying what was verified, or 1 naming the first difference. */
export interface Verification {
  ok: boolean;
  /** One line: what was verified, or the first file or rule that differs. */
  line: string;
  /** With a newer suite: the rules whose status changed, one line each. */
  changed: string[];
}

/** Thrown for a folder that cannot be verified at all (no manifest, unreadable): exit 2. */
export class NotAReportFolder extends Error {
  override name = 'NotAReportFolder';
}

// What report.options holds that is not a setting of the checks, or that cannot travel to another machine.
const NOT_REPLAYED = ['baseUrl', 'apiKey', 'reportDir', 'reporters', 'baseline', 'writeBaseline', 'caFile', 'today'] as const;

/**
 * Checks a report folder a reader did not produce: every hash of manifest.json, then the verdict re-judged
 * offline from the recorded exchanges, rule by rule against report.json.
 */
export async function verifyReportFolder(folder: string): Promise<Verification> {
  const dir = resolve(folder);
  const manifest = readManifest(dir);
  const altered = firstAlteredFile(dir, manifest);
  if (altered) return failed(altered);
  const report = parseJson(readFileSync(join(dir, 'report.json'), 'utf8')) as unknown as Report;
  const mismatch = manifestMismatch(manifest, report);
  if (mismatch) return failed(mismatch);
  const hashes = `${manifest.files.length} files match ${MANIFEST_FILE}`;
  if (report.cancelled) {
    return { ok: true, changed: [], line: `verified: ${hashes}; the run was cancelled (${report.cancelled}, verdict incomplete), so its rules were not re-judged` };
  }
  if (!manifest.files.some((file) => file.file === 'exchanges.har')) {
    return failed(`cannot re-judge: the run wrote no exchanges.har (its --reporter left it out), so the verdict cannot be checked against the evidence`);
  }
  const rejudged = await rejudge(dir, manifest, report);
  return compare(report, rejudged.report, rejudged.unmatched, hashes);
}

function readManifest(dir: string): Manifest {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) throw new NotAReportFolder(`${dir} holds no ${MANIFEST_FILE}: give the folder a run wrote its reports to (--report-dir)`);
  try {
    return parseJson(readFileSync(path, 'utf8')) as unknown as Manifest;
  } catch (error) {
    throw new NotAReportFolder(`${path} is not JSON (${(error as Error).message})`);
  }
}

/** The first file of the manifest that is missing or whose SHA-256 differs; report.json must be one of them. */
function firstAlteredFile(dir: string, manifest: Manifest): string | undefined {
  if (!manifest.files.some((file) => file.file === 'report.json')) return `${MANIFEST_FILE} vouches for no report.json`;
  for (const { file, sha256 } of manifest.files) {
    const path = join(dir, file);
    if (!existsSync(path)) return `${file} is listed in ${MANIFEST_FILE} but missing`;
    const seen = sha256Of(path);
    if (seen !== sha256) return `${file} was altered: ${MANIFEST_FILE} gives SHA-256 ${sha256}, the file has ${seen}`;
  }
  return undefined;
}

/** report.json and the manifest describe one run. */
function manifestMismatch(manifest: Manifest, report: Report): string | undefined {
  const pairs: Array<[string, unknown, unknown]> = [
    ['run ID', manifest.runId, report.runId],
    ['verdict', manifest.verdict, report.verdict],
    ['suite version', manifest.tool.version, report.tool.version],
    ['seed', manifest.seed, report.options.seed],
  ];
  const differing = pairs.find(([, a, b]) => a !== b);
  return differing && `report.json's ${differing[0]} (${String(differing[2])}) differs from ${MANIFEST_FILE}'s (${String(differing[1])})`;
}

/** The same run again, the recorded exchanges answering every request: same seed, run ID, options and date. */
async function rejudge(dir: string, manifest: Manifest, report: Report): Promise<{ report: Report; unmatched: string[] }> {
  const scratch = mkdtempSync(join(tmpdir(), 'petstore-verify-'));
  try {
    const recorded = Object.fromEntries(Object.entries(report.options).filter(([name]) => !(NOT_REPLAYED as readonly string[]).includes(name)));
    const options: RunOptions = {
      ...DEFAULT_OPTIONS,
      ...(recorded as Partial<RunOptions>),
      seed: manifest.seed,
      today: manifest.today,
      reportDir: scratch,
      reporters: ['json'],
      replay: { harPath: join(dir, 'exchanges.har'), runId: report.runId, startedAt: report.startedAt, target: report.target },
    };
    const result = await certify(options);
    return { report: result.report, unmatched: result.unmatched ?? [] };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function compare(recorded: Report, rejudged: Report, unmatched: readonly string[], hashes: string): Verification {
  const byId = new Map(rejudged.rules.map((rule) => [rule.id, rule]));
  const changes = recorded.rules.flatMap((rule) => {
    const now = byId.get(rule.id);
    return now?.status === rule.status ? [] : [changeLine(rule, now)];
  });
  const added = rejudged.rules.filter((rule) => !recorded.rules.some((old) => old.id === rule.id)).map((rule) => `${rule.id}: not in report.json, ${rule.status} now`);
  const newer = recorded.tool.version !== TOOL.version;
  if (newer) {
    // A newer suite may judge the same evidence differently; that is the answer a person upgrading wants.
    const all = [...changes, ...added];
    return {
      ok: true,
      changed: all,
      line: `verified: ${hashes}; re-judged offline with ${TOOL.name} ${TOOL.version} (the run used ${recorded.tool.version}): ${all.length === 0 ? 'no rule changed' : `${all.length} rule(s) changed`}, verdict ${rejudged.verdict} (recorded ${recorded.verdict})${unmatched.length > 0 ? `; ${unmatched.length} request(s) of the newer checks had no recorded answer` : ''}`,
    };
  }
  if (changes.length > 0 || added.length > 0) return failed(`the verdict does not follow from the recorded exchanges: ${[...changes, ...added][0]}`);
  if (rejudged.verdict !== recorded.verdict) return failed(`the verdict does not follow from the recorded exchanges: report.json says ${recorded.verdict}, the rules it reports give ${rejudged.verdict}`);
  if (unmatched.length > 0) return failed(`the recorded exchanges hold no answer to ${unmatched[0]}, which the re-judgment sent: the recording is incomplete or was altered`);
  return {
    ok: true,
    changed: [],
    line: `verified: ${hashes}; the ${rejudged.requests.total} recorded exchanges, re-judged offline by ${TOOL.name} ${TOOL.version}, give the same status for all ${recorded.rules.length} rules and the verdict ${recorded.verdict} (run ${recorded.runId})`,
  };
}

function changeLine(rule: RuleResult, now: RuleResult | undefined): string {
  return now ? `${rule.id}: report.json says ${rule.status}, the recorded exchanges give ${now.status}${now.status === 'passed' || !now.message ? '' : ` (${now.message.split('\n')[0]})`}` : `${rule.id}: ${rule.status} in report.json, no longer a rule`;
}

function failed(line: string): Verification {
  return { ok: false, line: `not verified: ${line}`, changed: [] };
}
