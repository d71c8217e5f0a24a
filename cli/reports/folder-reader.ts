import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { basename, join } from 'node:path';

/** A report folder that breaks the rules of what `verify` reads: it is refused, not judged (exit 2). */
export class NotAReportFolder extends Error {
  override name = 'NotAReportFolder';
}

/**
 * Reads one file a report folder names, as untrusted input: a plain name of a file directly in the
 * folder (no path that leaves it), a regular file (no symlink, no device, no pipe), at most `maxBytes`.
 * The checks hold on the open file itself, so a file swapped after they ran cannot slip past them, and
 * the read ends after `maxBytes` whatever the file claims. A file that is absent reads as undefined.
 */
export function readFileInFolder(dir: string, name: string, maxBytes: number): Buffer | undefined {
  if (!isPlainFileName(name)) throw new NotAReportFolder(`${JSON.stringify(name)} is not a file name of the report folder: a report folder names only files directly inside it`);
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink is refused by the open itself; O_NONBLOCK: a named pipe cannot hold the open forever.
    fd = openSync(join(dir, name), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw new NotAReportFolder(`${name} is a symbolic link: a report folder holds the files a run wrote, and verify reads no other`);
    throw new NotAReportFolder(`${name} cannot be read (${code ?? (error as Error).message})`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotAReportFolder(`${name} is not a regular file: a report folder holds the files a run wrote, and verify reads no other`);
    if (stats.size > maxBytes) throw new NotAReportFolder(`${name} holds ${stats.size} bytes, more than the ${maxBytes} verify reads of one file`);
    return readAtMost(fd, name, maxBytes);
  } finally {
    closeSync(fd);
  }
}

/** A name with no directory part: not empty, not `.` or `..`, no separator, no NUL. */
function isPlainFileName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name) && basename(name) === name;
}

/** The file's bytes, refused when it holds more than `maxBytes` (it may have grown since it was measured). */
function readAtMost(fd: number, name: string, maxBytes: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(1 << 20, maxBytes + 1 - total));
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
    if (total > maxBytes) throw new NotAReportFolder(`${name} holds more than the ${maxBytes} bytes verify reads of one file`);
  }
  return Buffer.concat(chunks, total);
}
