import { join, basename } from 'node:path';
import { readBoundedFile, UnreadableFile } from '../../helpers/bounded-file.js';

/** A report folder that breaks the rules of what `verify` reads: it is refused, not judged (exit 2). */
export class NotAReportFolder extends Error {
  override name = 'NotAReportFolder';
}

/**
 * Reads one file a report folder names, as untrusted input: a plain name of a file directly in the
 * folder (no path that leaves it), a regular file (no symlink, no device, no pipe), at most `maxBytes`.
 * The checks hold on the open file itself (helpers/bounded-file.ts), so a file swapped after they ran
 * cannot slip past them. A file that is absent reads as undefined.
 */
export function readFileInFolder(dir: string, name: string, maxBytes: number): Buffer | undefined {
  if (!isPlainFileName(name)) throw new NotAReportFolder(`${JSON.stringify(name)} is not a file name of the report folder: a report folder names only files directly inside it`);
  try {
    return readBoundedFile(join(dir, name), maxBytes, 'one file of a report folder', { noFollow: true });
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    switch (error.problem) {
      case 'missing': return undefined;
      case 'link': throw new NotAReportFolder(`${name} is a symbolic link: a report folder holds the files a run wrote, and verify reads no other`);
      case 'not-regular': throw new NotAReportFolder(`${name} is not a regular file: a report folder holds the files a run wrote, and verify reads no other`);
      case 'too-large': throw new NotAReportFolder(`${name}: ${error.reason}`);
      default: throw new NotAReportFolder(`${name} cannot be read (${error.reason})`);
    }
  }
}

/** A name with no directory part: not empty, not `.` or `..`, no separator, no NUL. */
function isPlainFileName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name) && basename(name) === name;
}
