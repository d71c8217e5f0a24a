import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseOwnJson, type Json } from '../helpers/json.js';
import type { Report, RuleResult } from './reports/report.js';
import { NotAReportFolder, readFileInFolder } from './reports/folder-reader.js';
import { MANIFEST_FILE, sha256OfBytes, type Manifest } from './reports/manifest.js';
import { resolveRunOptions, UsageError, type GivenOptions } from './resolve-options.js';
import { certify } from './run.js';
import { TOOL } from './tool.js';
import { judgeRun } from './policy/verdict.js';
import { gt, valid } from 'semver';

export { NotAReportFolder } from './reports/folder-reader.js';

/** The outcome of `verify`: exit 0 with one line saying what was verified, or 1 naming the first difference. */
export interface Verification {
  ok: boolean;
  /** One line: what was verified, or the first file or rule that differs. */
  line: string;
  /** With a newer suite: the rules whose status changed, one line each. */
  changed: string[];
}

/**
 * The most verify reads of one file of the folder. The manifest lists a handful of files; report.json and
 * exchanges.har of a whole run measure a few tens of MB (a record keeps 16 KiB of a body, and its strings of
 * 4 KiB). A recording past the cap is refused, not read: it would take a gigabyte to re-judge (a string of
 * 512 MB is more than V8 holds at all).
 */
const MAX_MANIFEST_BYTES = 1024 * 1024;
const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** More files than any run writes (one per reporter): a longer list is not a manifest of a run. */
const MAX_MANIFEST_FILES = 32;

// What report.options holds that is not a setting of the checks, or that cannot travel to another machine;
// and the hooks of a live run, which a forged report.json could name and no run records.
const NOT_REPLAYED = ['baseUrl', 'apiKey', 'reportDir', 'reporters', 'baseline', 'writeBaseline', 'caFile', 'cert', 'certKey', 'today', 'print', 'detail', 'width', 'status', 'signal', 'replay'] as const;

/**
 * Checks a report folder a reader did not produce: every hash of manifest.json, then the verdict re-judged
 * offline from the recorded exchanges, rule by rule against report.json. The folder is untrusted input: only
 * regular files directly inside it are read, each within a size bound, and the options it records pass the
 * same checks as the CLI's; a folder that breaks these rules is refused (NotAReportFolder, exit 2).
 */
export async function verifyReportFolder(folder: string): Promise<Verification> {
  const dir = existingFolder(folder);
  const manifest = readManifest(dir);
  const files = new Map<string, Buffer>();
  const altered = firstAlteredFile(dir, manifest, files);
  if (altered) return failed(altered);
  const report = readReport(files.get('report.json')!);
  const mismatch = manifestMismatch(manifest, report);
  if (mismatch) return failed(mismatch);
  const hashes = `${manifest.files.length} files match ${MANIFEST_FILE}`;
  // Nothing the folder says switches the re-judgment off: a cancelled run is re-judged for the rules it finished,
  // and a version is judged by this one unless it is newer (refused here) or no version at all.
  checkRecordedVersion(report.tool.version);
  if (!manifest.files.some((file) => file.file === 'exchanges.har')) {
    return failed(`cannot re-judge: the run wrote no exchanges.har (its --reporter left it out), so the verdict cannot be checked against the evidence`);
  }
  const har = files.get('exchanges.har')!;
  const recordedCancellation = checkHar(har);
  if (recordedCancellation !== report.cancelled) {
    return failed(report.cancelled
      ? `report.json says the run was cancelled (${report.cancelled}), exchanges.har does not: the folder does not describe one run`
      : `exchanges.har says the run was cancelled (${String(recordedCancellation)}), report.json does not: the folder does not describe one run`);
  }
  const rejudged = await rejudge(har, manifest, report);
  return compare(report, rejudged.report, rejudged.unmatched, hashes);
}

/**
 * The suite version report.json names: one this suite can judge for. A version that is none (`banana`) is no
 * report of a run; a newer one may hold rules and checks this one does not know, and is verified with it.
 */
function checkRecordedVersion(version: string): void {
  if (valid(version) === null) throw new NotAReportFolder(`report.json names ${TOOL.name} ${JSON.stringify(version)}, which is no version of it: the folder is no report of a run`);
  if (gt(version, TOOL.version)) {
    throw new NotAReportFolder(`report.json was written by ${TOOL.name} ${version}, newer than this ${TOOL.version}, which cannot judge for it: verify it with npx ${TOOL.name}@${version} verify`);
  }
}

/** The folder, resolved: one that does not exist is named as such, before anything is looked for in it. */
function existingFolder(folder: string): string {
  const dir = resolve(folder);
  let isFolder: boolean;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch {
    throw new NotAReportFolder(`${folder}: no such folder; give the folder a run wrote its reports to (--report-dir)`);
  }
  if (!isFolder) throw new NotAReportFolder(`${folder} is not a folder; give the folder a run wrote its reports to (--report-dir)`);
  return dir;
}

function readManifest(dir: string): Manifest {
  const bytes = readFileInFolder(dir, MANIFEST_FILE, MAX_MANIFEST_BYTES);
  if (!bytes) throw new NotAReportFolder(`${dir} holds no ${MANIFEST_FILE}: give the folder a run wrote its reports to (--report-dir)`);
  let manifest: Json;
  try {
    manifest = parseOwnJson(bytes.toString('utf8'));
  } catch (error) {
    throw new NotAReportFolder(`${join(dir, MANIFEST_FILE)} is not JSON (${(error as Error).message})`);
  }
  const problem = manifestShapeProblem(manifest);
  if (problem) throw new NotAReportFolder(`${MANIFEST_FILE} is not a manifest of a run: ${problem}`);
  return manifest as unknown as Manifest;
}

/** What verify relies on in manifest.json, or undefined when it all holds. */
function manifestShapeProblem(manifest: Json): string | undefined {
  if (!isObject(manifest)) return 'it is not a JSON object';
  const { files } = manifest;
  if (!Array.isArray(files) || files.length > MAX_MANIFEST_FILES) return `"files" is not a list of at most ${MAX_MANIFEST_FILES} files`;
  if (!files.every((entry) => isObject(entry) && typeof entry.file === 'string' && typeof entry.sha256 === 'string')) return 'an entry of "files" lacks its file name or SHA-256';
  if (!isObject(manifest.tool) || typeof manifest.tool.version !== 'string') return '"tool.version" is missing';
  if (typeof manifest.runId !== 'string' || typeof manifest.today !== 'string' || typeof manifest.seed !== 'number') return '"runId", "today" or "seed" is missing';
  return undefined;
}

/**
 * The first file of the manifest that is missing or whose SHA-256 differs; report.json and exchanges.har must
 * be among them. Each file is read once, checked as it is hashed, and kept in `files` for what follows, so
 * the bytes re-judged are the bytes whose hash matched.
 */
function firstAlteredFile(dir: string, manifest: Manifest, files: Map<string, Buffer>): string | undefined {
  if (!manifest.files.some((file) => file.file === 'report.json')) return `${MANIFEST_FILE} vouches for no report.json`;
  for (const { file, sha256 } of manifest.files) {
    const bytes = readFileInFolder(dir, file, MAX_FILE_BYTES);
    if (!bytes) return `${file} is listed in ${MANIFEST_FILE} but missing`;
    const seen = sha256OfBytes(bytes);
    if (seen !== sha256) return `${file} was altered: ${MANIFEST_FILE} gives SHA-256 ${sha256}, the file has ${seen}`;
    if (file === 'report.json' || file === 'exchanges.har') files.set(file, bytes);
  }
  return undefined;
}

/** report.json, with what verify relies on checked: a file that matches its hash may still be forged. */
function readReport(bytes: Buffer): Report {
  let report: Json;
  try {
    report = parseOwnJson(bytes.toString('utf8'));
  } catch (error) {
    throw new NotAReportFolder(`report.json is not JSON (${(error as Error).message})`);
  }
  const problem = reportShapeProblem(report);
  if (problem) throw new NotAReportFolder(`report.json is not a report of a run: ${problem}`);
  return report as unknown as Report;
}

function reportShapeProblem(report: Json): string | undefined {
  if (!isObject(report)) return 'it is not a JSON object';
  if (!isObject(report.tool) || typeof report.tool.version !== 'string') return '"tool.version" is missing';
  if (typeof report.runId !== 'string' || typeof report.verdict !== 'string') return '"runId" or "verdict" is missing';
  if (typeof report.startedAt !== 'string' || Number.isNaN(Date.parse(report.startedAt))) return '"startedAt" is not a date';
  if (!isObject(report.target) || typeof report.target.baseUrl !== 'string' || typeof report.target.embedded !== 'boolean') return '"target" lacks its base URL';
  if (!isObject(report.options)) return '"options" is missing';
  if (!Array.isArray(report.rules) || !report.rules.every((rule) => isObject(rule) && typeof rule.id === 'string' && typeof rule.status === 'string')) return '"rules" is not a list of rules with their status';
  if (!isObject(report.requests) || typeof report.requests.total !== 'number') return '"requests.total" is missing';
  return undefined;
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

/**
 * The same run again, the recorded exchanges answering every request: same seed, run ID, options and date.
 * The recorded options pass the one resolver of options, as the CLI's and the API's do: a folder that
 * records a value the CLI would refuse (a concurrency of 0 would wait forever for a free slot) is refused.
 * The replay reads a copy of the exchanges verify hashed, in a scratch folder of its own.
 */
async function rejudge(har: Buffer, manifest: Manifest, report: Report): Promise<{ report: Report; unmatched: string[] }> {
  checkHar(har);
  const scratch = mkdtempSync(join(tmpdir(), 'petstore-verify-'));
  try {
    const harPath = join(scratch, 'recorded.har');
    writeFileSync(harPath, har);
    const reportDir = join(scratch, 'reports');
    const recorded = Object.fromEntries(Object.entries(report.options).filter(([name]) => !(NOT_REPLAYED as readonly string[]).includes(name)));
    const given: GivenOptions = {
      ...recorded,
      ...replayedHeaders(report.options.headers as Json | undefined),
      seed: manifest.seed,
      today: manifest.today,
      reportDir,
      reporters: ['json'],
      replay: { harPath, runId: report.runId, startedAt: report.startedAt, target: report.target },
    };
    const result = await certify(recordedOptions(given));
    return { report: result.report, unmatched: result.unmatched ?? [] };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The headers of --header as the replay sends them: by the names report.json records, each with a stand-in for the
 * value it never saw. The requests are recorded with each header's variable, whatever its value, so they match the
 * recording's; a name the CLI would refuse is refused as the CLI refuses it.
 */
function replayedHeaders(recorded: Json | undefined): Pick<GivenOptions, 'headers'> {
  if (recorded === undefined) return {};
  if (!isObject(recorded)) return { headers: recorded };
  return { headers: Object.fromEntries(Object.keys(recorded).map((name) => [name, `replay-${randomBytes(12).toString('hex')}`])) };
}

/** The recorded options, checked as the CLI checks its own; no key and no variable of this environment enter them. */
function recordedOptions(given: GivenOptions): ReturnType<typeof resolveRunOptions> {
  try {
    return resolveRunOptions(given, {});
  } catch (error) {
    if (error instanceof UsageError) throw new NotAReportFolder(`report.json records options this suite refuses: ${error.message}`);
    throw error;
  }
}

/** exchanges.har as the replay reads it: JSON with a list of entries. Returns the signal that cancelled the run it recorded, if one did. */
function checkHar(har: Buffer): string | undefined {
  let parsed: Json;
  try {
    parsed = parseOwnJson(har.toString('utf8'));
  } catch (error) {
    throw new NotAReportFolder(`exchanges.har is not JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed) || !isObject(parsed.log) || !Array.isArray(parsed.log.entries)) throw new NotAReportFolder('exchanges.har is not a HAR: it holds no log.entries');
  const cancelled = parsed.log._cancelled;
  return typeof cancelled === 'string' ? cancelled : undefined;
}

/**
 * Every rule's status and the verdict, as the re-judgment gives them, against report.json's: the verdict stated is
 * always the re-judgment's. A cancelled run is held to the rules it finished (those it did not reach are skipped
 * in both, or judge in the re-judgment what the run never came to), and its verdict is what a cancelled run's is.
 */
function compare(recorded: Report, rejudged: Report, unmatched: readonly string[], hashes: string): Verification {
  const byId = new Map(rejudged.rules.map((rule) => [rule.id, rule]));
  const judged = recorded.cancelled ? recorded.rules.filter((rule) => !notReached(rule)) : recorded.rules;
  const changes = judged.flatMap((rule) => {
    const now = byId.get(rule.id);
    return now?.status === rule.status ? [] : [changeLine(rule, now)];
  });
  const added = rejudged.rules.filter((rule) => !recorded.rules.some((old) => old.id === rule.id)).map((rule) => `${rule.id}: not in report.json, ${rule.status} now`);
  const { verdict } = judgeRun({
    rules: rejudged.rules, strict: recorded.options.strict === true, suiteErrors: rejudged.suiteErrors, diagnosis: rejudged.diagnosis, cancelledBy: recorded.cancelled,
  });
  if (recorded.tool.version !== TOOL.version) {
    // An older run judged again by this suite: it may judge the same evidence otherwise (README, Suite versions), and
    // a team upgrading wants the list; the verdict it states is this suite's, and must be the one the folder claims.
    const all = [...changes, ...added];
    const line = `re-judged offline with ${TOOL.name} ${TOOL.version} (the run used ${recorded.tool.version}): ${all.length === 0 ? 'no rule changed' : `${all.length} rule(s) changed`}, verdict ${verdict}${unmatched.length > 0 ? `; ${unmatched.length} request(s) of the newer checks had no recorded answer` : ''}`;
    if (verdict !== recorded.verdict) return { ok: false, changed: all, line: `not verified: ${line}, where report.json says ${recorded.verdict}` };
    return { ok: true, changed: all, line: `verified: ${hashes}; ${line} (recorded ${recorded.verdict})` };
  }
  if (changes.length > 0 || added.length > 0) return failed(`the verdict does not follow from the recorded exchanges: ${[...changes, ...added][0]}`);
  if (verdict !== recorded.verdict) return failed(`the verdict does not follow from the recorded exchanges: report.json says ${recorded.verdict}, the rules it reports give ${verdict}`);
  if (unmatched.length > 0) return failed(`the recorded exchanges hold no answer to ${unmatched[0]}, which the re-judgment sent: the recording is incomplete or was altered`);
  const rules = recorded.cancelled
    ? `the ${judged.length} rules the run finished before it was cancelled (${recorded.cancelled})`
    : `all ${recorded.rules.length} rules`;
  return {
    ok: true,
    changed: [],
    line: `verified: ${hashes}; the ${rejudged.requests.total} recorded exchanges, re-judged offline by ${TOOL.name} ${TOOL.version}, give the same status for ${rules} and the verdict ${verdict} (run ${recorded.runId})`,
  };
}

/** A rule a cancelled run did not come to: skipped for the cancellation (helpers/http/cancellation.ts words it). */
function notReached(rule: RuleResult): boolean {
  return rule.status === 'skipped' && /^the run was cancelled \(.*\) before this rule was judged$/.test(rule.message ?? '');
}

function changeLine(rule: RuleResult, now: RuleResult | undefined): string {
  return now ? `${rule.id}: report.json says ${rule.status}, the recorded exchanges give ${now.status}${now.status === 'passed' || !now.message ? '' : ` (${now.message.split('\n')[0]})`}` : `${rule.id}: ${rule.status} in report.json, no longer a rule`;
}

function failed(line: string): Verification {
  return { ok: false, line: `not verified: ${line}`, changed: [] };
}
