// The report folder, written so that nothing but the suite's own files is ever replaced, and never half:
// a run refuses a folder that holds files it did not write (as `allure generate` refuses a folder in use),
// holds a lock on it for its whole length (so that two runs cannot mix their files), writes every report
// into a staging folder inside it, and only then renames each into place, manifest.json last. A full disk,
// or a run killed while writing, leaves the staging folder and the previous report whole.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync, type Stats } from 'node:fs';
import { UsageError } from '../usage-error.js';
import { MANIFEST_FILE } from './manifest.js';
import { TOOL } from '../tool.js';

/** The lock a run holds on its folder, beside its files. */
export const LOCK_FILE = '.petstore-conformance.lock';

/** What a staging folder's name begins with: `.petstore-conformance-<run id>-<token>.tmp`. */
const STAGING_PREFIX = '.petstore-conformance-';
const STAGING_SUFFIX = '.tmp';

/** The folder already holds files the suite did not write, or another run holds it: nothing was sent. */
export class ReportFolderRefused extends UsageError {
  override name = 'ReportFolderRefused';
}

/** The reports could not be written (a full disk, a file system gone read-only): the previous ones are left whole. */
export class ReportsNotWritten extends UsageError {
  override name = 'ReportsNotWritten';
}

/**
 * The entries of `dir` the suite did not write, by name (at most a few, for a message): every entry but
 * manifest.json and the files a manifest of a run lists (regular files, as a run writes them), the lock and
 * the staging folders of runs, and `exempt` (the baseline files this run reads or writes, by full path). A
 * symbolic link is never the suite's: a run writes none, and must write through none.
 */
export function foreignEntries(dir: string, exempt: readonly string[] = []): string[] {
  const listed = listedIn(dir);
  const ours = new Set([LOCK_FILE, ...(listed ? [MANIFEST_FILE, ...listed] : [])]);
  // A run killed while it moved its files in left its staging folder, whose manifest names them.
  for (const staging of stagingFolders(dir)) for (const name of listedIn(join(dir, staging)) ?? []) ours.add(name);
  const exempted = new Set(exempt.map((path) => resolve(path)));
  return readdirSync(dir).filter((name) => {
    if (exempted.has(join(dir, name)) || isStaging(name)) return false;
    const stats = lstatOf(join(dir, name));
    return !(ours.has(name) && stats?.isFile());
  });
}

/** The files a manifest of a run in `dir` lists, or undefined when there is no such manifest (a web app's manifest.json is not one). */
function listedIn(dir: string): string[] | undefined {
  const path = join(dir, MANIFEST_FILE);
  if (!lstatOf(path)?.isFile() || lstatOf(path)!.size > MAX_MANIFEST_BYTES) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as { tool?: { name?: unknown }; files?: unknown };
    if (manifest.tool?.name !== TOOL.name || !Array.isArray(manifest.files)) return undefined;
    return manifest.files.flatMap((entry: unknown) => {
      const file = (entry as { file?: unknown } | null)?.file;
      return typeof file === 'string' && /^[^/\\\0]+$/.test(file) && file !== '.' && file !== '..' ? [file] : [];
    });
  } catch {
    return undefined;
  }
}

/** More than any manifest of a run holds (a handful of entries). */
const MAX_MANIFEST_BYTES = 1024 * 1024;

function stagingFolders(dir: string): string[] {
  return readdirSync(dir).filter((name) => isStaging(name) && lstatOf(join(dir, name))?.isDirectory());
}

function isStaging(name: string): boolean {
  return name.startsWith(STAGING_PREFIX) && name.endsWith(STAGING_SUFFIX);
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Why a folder holding these entries is refused, in one line. */
export function foreignEntriesReason(dir: string, entries: readonly string[]): string {
  const named = entries.slice(0, 3).join(', ') + (entries.length > 3 ? `, and ${entries.length - 3} more` : '');
  return `${dir} holds files this suite did not write (${named}): a run writes only into a folder of its own, so that no file of yours is replaced; choose an empty or new folder with --report-dir`;
}

/** What a lock file says of the run that holds it. */
interface LockHolder {
  pid: number;
  host: string;
  runId: string;
  since: string;
}

/** A run's hold on its report folder, from its start until its reports are written. */
export class ReportFolderLock {
  private released = false;

  private constructor(private readonly path: string, private readonly holder: LockHolder) {}

  /**
   * Takes the folder's lock, created only if absent (O_EXCL), or refuses the run in one line naming the run
   * that holds it. A lock left by a run of this machine whose process is gone (killed, say) is taken over.
   */
  static take(dir: string, runId: string): ReportFolderLock {
    const path = join(dir, LOCK_FILE);
    const holder: LockHolder = { pid: process.pid, host: hostname(), runId, since: new Date().toISOString() };
    for (let attempt = 0; ; attempt++) {
      try {
        writeFileSync(path, `${JSON.stringify(holder)}\n`, { flag: 'wx' });
        return new ReportFolderLock(path, holder);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new ReportsNotWritten(`cannot write reports to ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
        const other = readHolder(path);
        if (attempt === 0 && (other === undefined || isGone(other))) {
          rmSync(path, { force: true });
          continue;
        }
        const who = other ? `run ${other.runId} (process ${other.pid} on ${other.host}, since ${other.since})` : 'another run';
        throw new ReportFolderRefused(`${dir} is being written by ${who}: two runs in one folder would mix their reports; wait for it to end, or choose another --report-dir`);
      }
    }
  }

  /** Gives the folder back; a lock another run took over meanwhile is left to it. */
  release(): void {
    if (this.released) return;
    this.released = true;
    const current = readHolder(this.path);
    if (current?.runId === this.holder.runId && current.pid === this.holder.pid) rmSync(this.path, { force: true });
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    return typeof holder.pid === 'number' && typeof holder.host === 'string' && typeof holder.runId === 'string' ? holder as LockHolder : undefined;
  } catch {
    return undefined;
  }
}

/** A run of this machine whose process no longer exists; a run of another machine (a shared folder) is never taken to be gone. */
function isGone(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** One report file to write: its name in the folder and its bytes, in as many chunks as it is rendered in. */
export interface ReportFile {
  file: string;
  chunks: Iterable<Buffer>;
}

/** How a file is written into the staging folder, chunk by chunk: a seam for the tests of a disk that fills up. */
export type WriteFile = (path: string, chunks: Iterable<Buffer>) => void;

/** A new file (wx: a file of that name is never written through), its chunks written as they come. */
const writeNew: WriteFile = (path, chunks) => {
  const fd = openSync(path, 'wx');
  try {
    for (const chunk of chunks) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
};

/**
 * A staging folder inside the report folder, for one run's files: written there in full, then moved into place.
 * Inside, not beside: the report folder may be a mount point (a container's volume), across which nothing renames.
 */
export class StagedReports {
  readonly path: string;
  private readonly written: string[] = [];

  constructor(private readonly dir: string, runId: string, private readonly write: WriteFile = writeNew) {
    for (const stale of stagingFolders(dir)) rmSync(join(dir, stale), { recursive: true, force: true });
    this.path = join(dir, `${STAGING_PREFIX}${runId}-${randomBytes(3).toString('hex')}${STAGING_SUFFIX}`);
    mkdirSync(this.path);
  }

  /** Writes one file into the staging folder; returns its SHA-256 and size, taken from the bytes written. */
  add(file: ReportFile): { file: string; sha256: string; bytes: number } {
    const hash = createHash('sha256');
    let bytes = 0;
    const counted = function* (chunks: Iterable<Buffer>): Generator<Buffer> {
      for (const chunk of chunks) {
        hash.update(chunk);
        bytes += chunk.length;
        yield chunk;
      }
    };
    this.write(join(this.path, file.file), counted(file.chunks));
    this.written.push(file.file);
    return { file: file.file, sha256: hash.digest('hex'), bytes };
  }

  /**
   * Moves every file into the report folder, each by one rename, manifest.json last, then removes what the
   * previous run's manifest listed that this run did not write. A file the suite did not write that appeared
   * meanwhile is not replaced: the run's files stay in the staging folder, and the error says where.
   */
  commit(): void {
    const previous = listedIn(this.dir) ?? [];
    const incoming = [...this.written.filter((file) => file !== MANIFEST_FILE), ...this.written.filter((file) => file === MANIFEST_FILE)];
    const foreign = foreignEntries(this.dir).filter((name) => incoming.includes(name));
    if (foreign.length > 0) {
      throw new ReportsNotWritten(`${foreignEntriesReason(this.dir, foreign)}; this run's reports are in ${this.path}`);
    }
    for (const file of incoming) renameSync(join(this.path, file), join(this.dir, file));
    for (const file of previous) {
      if (!incoming.includes(file) && lstatOf(join(this.dir, file))?.isFile()) unlinkSync(join(this.dir, file));
    }
    rmSync(this.path, { recursive: true, force: true });
  }

  /** The staging folder and what was written into it, gone: the report folder is as the previous run left it. */
  discard(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}
