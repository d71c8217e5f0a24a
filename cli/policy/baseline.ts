import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { notARegularFile, readBoundedFile, UnreadableFile } from '../../helpers/bounded-file.js';
import type { Rule } from '../../helpers/spec/catalog.js';
import { failsTheRun, isFailing } from '../../helpers/judge/outcome-meaning.js';
import type { BaselineJudgement, Report, RuleResult } from '../reports/report.js';

/**
 * A baseline is the list of rules a target is known to fail, so a team can gate CI on regressions
 * while it works through them. The file is plain text, one rule ID per line:
 *
 *   # anything after a # is a comment
 *   LIST-02    # default page size is 10, fix planned for 2.4
 *
 * The list cannot rot: a listed rule that passes again fails the run (take it out), and so does an
 * ID the catalog does not know or no longer checks.
 */
export interface Baseline {
  /** The file as the user named it, for messages. */
  file: string;
  entries: BaselineEntry[];
}

export interface BaselineEntry {
  id: string;
  /** The comment on the entry's line, kept when the baseline is written again. */
  note?: string;
  line: number;
}

/** The baseline file is unusable: the message names the file, the line and the fix. */
export class BaselineError extends Error {
  override name = 'BaselineError';
}

/** Exit code of a run whose only problem is a stale baseline: a listed rule passes now. */
export const EXIT_BASELINE_STALE = 5;

const RULE_ID = /^[A-Z][A-Z0-9]*-\d+$/;

/** A list of rule IDs with comments: a few kilobytes; more is not a baseline. */
const MAX_BASELINE_BYTES = 1024 * 1024;

/** Reads --baseline FILE before anything is sent: a missing or malformed file, or one that is no regular file, is a usage error. */
export function readBaselineFile(file: string, catalog: readonly Rule[]): Baseline {
  let text: string;
  try {
    text = readBoundedFile(file, MAX_BASELINE_BYTES, 'a baseline').toString('utf8');
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    const hint = error.problem === 'missing' ? `write one with --write-baseline ${file}` : 'name the baseline file, one rule ID per line';
    throw new BaselineError(`cannot read baseline ${file} (${error.reason}): ${hint}`);
  }
  return parseBaseline(text, file, catalog);
}

/**
 * --write-baseline FILE is written at the end of the run: a folder that does not exist, or a FILE that is no
 * regular file (a FIFO would hold the run's end forever, a device swallow the list), is said before the run.
 */
export function checkBaselineTarget(file: string): void {
  const folder = dirname(resolve(file));
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new BaselineError(`cannot write baseline ${file}: the folder ${folder} does not exist`);
  }
  const kind = notARegularFile(file);
  if (kind) throw new BaselineError(`cannot write baseline ${file}: it is ${kind}, not a regular file; name a file`);
}

/**
 * Writes the baseline beside FILE and renames it into place: a run killed while writing leaves the previous list
 * whole, and a symbolic link at FILE is replaced, never followed.
 */
export function writeBaselineFile(file: string, text: string): void {
  checkBaselineTarget(file);
  const temporary = join(dirname(resolve(file)), `.${basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, text, { flag: 'wx' });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Reads the text of a baseline file; every ID must be a rule the catalog checks. */
export function parseBaseline(text: string, file: string, catalog: readonly Rule[]): Baseline {
  const byId = new Map(catalog.map((rule) => [rule.id, rule]));
  const entries: BaselineEntry[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const hash = raw.indexOf('#');
    const content = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    const note = hash === -1 ? undefined : raw.slice(hash + 1).trim() || undefined;
    if (content === '') return;
    if (!RULE_ID.test(content)) {
      throw new BaselineError(`baseline ${file} line ${line}: "${content}" is not one rule ID (write one ID per line, e.g. LIST-02; comments start with #)`);
    }
    const rule = byId.get(content);
    if (!rule) {
      throw new BaselineError(`baseline ${file} line ${line}: ${content} is not a rule of the catalog; remove it (petstore-conformance --list shows the rules)`);
    }
    if ((rule.state ?? 'active') !== 'active') {
      throw new BaselineError(`baseline ${file} line ${line}: ${content} is ${rule.state} in the catalog and no longer checked; remove it`);
    }
    if (!entries.some((entry) => entry.id === content)) entries.push({ id: content, note, line });
  });
  return { file, entries };
}

/** Sorts every rule of the run against the baseline. */
export function judgeBaseline(rules: readonly RuleResult[], baseline: Baseline, strict: boolean): BaselineJudgement {
  const listed = new Set(baseline.entries.map((entry) => entry.id));
  const judgement: BaselineJudgement = { file: baseline.file, known: [], nowPassing: [], notJudged: [], unlisted: [] };
  for (const rule of rules) {
    if (listed.has(rule.id)) {
      if (isFailing(rule.status)) judgement.known.push(rule.id);
      else if (rule.status === 'passed') judgement.nowPassing.push(rule.id);
      else judgement.notJudged.push(rule.id);
    } else if (failsTheRun(rule, strict)) {
      judgement.unlisted.push(rule.id);
    }
  }
  return judgement;
}

/** The rules that fail this run (MUST, and SHOULD under --strict): what --write-baseline lists. */
export function failingRules(report: Report): RuleResult[] {
  const strict = report.options.strict === true;
  return report.rules.filter((rule) => failsTheRun(rule, strict));
}

/** The rules that fail this run, as a baseline file; notes of a previous baseline are kept. */
export function formatBaseline(report: Report, previous?: Baseline): string {
  const failing = failingRules(report);
  const notes = new Map((previous?.entries ?? []).map((entry) => [entry.id, entry.note]));
  const width = Math.max(0, ...failing.map((rule) => rule.id.length)) + 2;
  const header = [
    '# petstore-conformance baseline: rules this target is known to fail.',
    '# Use it with --baseline FILE: these rules are reported but do not fail the run.',
    '# One rule ID per line; anything after # is a comment. When a listed rule passes',
    '# again the run fails (exit 5) until its line is removed, so the list cannot rot.',
    `# Written ${report.finishedAt.slice(0, 10)} from run ${report.runId} against ${report.target.baseUrl}`,
  ];
  const lines = failing.map((rule) => `${rule.id.padEnd(width)}# ${oneLine(notes.get(rule.id) ?? rule.summary)}`);
  return `${[...header, ...lines].join('\n')}\n`;
}

/** Lines for the terminal: what the baseline tolerated, and what must be done about it. */
export function baselineLines(judgement: BaselineJudgement): string[] {
  const lines = [`Baseline ${judgement.file}: ${judgement.known.length} known failure(s) tolerated${judgement.known.length > 0 ? ` (${judgement.known.join(', ')})` : ''}`];
  if (judgement.unlisted.length > 0) lines.push(`  NEW FAILURE(S) not in the baseline: ${judgement.unlisted.join(', ')}`);
  if (judgement.nowPassing.length > 0) {
    lines.push(`  NOW PASSING, remove from ${judgement.file}: ${judgement.nowPassing.join(', ')} (the run fails with exit ${EXIT_BASELINE_STALE} until they are removed)`);
  }
  if (judgement.notJudged.length > 0) lines.push(`  not judged in this run: ${judgement.notJudged.join(', ')}`);
  return lines;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
