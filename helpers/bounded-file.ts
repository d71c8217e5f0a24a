// Reading a file a person or a folder named, as input from outside: a regular file, within a size, or a refusal
// saying why. A FIFO nobody writes to once held a run before it began, and /dev/zero grew one to gigabytes.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Why a file was refused: absent, a symbolic link where none is followed, no regular file, too large, or the OS's code. */
export type Unreadable = 'missing' | 'link' | 'not-regular' | 'too-large' | 'other';

/** The file cannot be read as the input it is meant to be: `reason` says why, for a message of one line. */
export class UnreadableFile extends Error {
  override name = 'UnreadableFile';

  constructor(readonly reason: string, readonly problem: Unreadable) {
    super(reason);
  }
}

/**
 * The bytes of `path`, which must be a regular file of at most `maxBytes` (`what` names it in the reason:
 * "a baseline"). `noFollow`: a symbolic link is refused too. The checks hold on the open file itself, so a file
 * swapped after they ran cannot slip past them, and the read ends after `maxBytes` whatever the file claims.
 */
export function readBoundedFile(path: string, maxBytes: number, what: string, options: { noFollow?: boolean } = {}): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO no one writes to returns at once, to be refused below, instead of waiting forever.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (options.noFollow ? constants.O_NOFOLLOW ?? 0 : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UnreadableFile('no such file', 'missing');
    if (code === 'ELOOP' || code === 'EMLINK') throw new UnreadableFile('a symbolic link, which is not followed here', 'link');
    throw new UnreadableFile(code ?? (error as Error).message, 'other');
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UnreadableFile(`${kindOfFile(stats)}, not a regular file`, 'not-regular');
    if (stats.size > maxBytes) throw new UnreadableFile(`it holds more than the ${maxBytes} bytes ${what} may`, 'too-large');
    return readAtMost(fd, maxBytes, what);
  } finally {
    closeSync(fd);
  }
}

/** Larger than a whole system's bundle of trusted CAs (some 200 KB): a CA file is a few kilobytes. */
export const MAX_CA_FILE_BYTES = 4 * 1024 * 1024;

/** The CA certificate(s) of --ca-file, read as the option's check read them, wherever a connection needs them. */
export function readCaFile(path: string): Buffer {
  return readBoundedFile(path, MAX_CA_FILE_BYTES, 'a CA file');
}

/** Larger than any certificate chain a client presents, or its key: each is a few kilobytes. */
export const MAX_CLIENT_CERTIFICATE_BYTES = 1024 * 1024;

/** The PEM files of --cert and --cert-key, read as the options' check read them, wherever a connection needs them. */
export function readClientCertificate(certFile: string, keyFile: string): { cert: Buffer; key: Buffer } {
  return {
    cert: readBoundedFile(certFile, MAX_CLIENT_CERTIFICATE_BYTES, 'a client certificate'),
    key: readBoundedFile(keyFile, MAX_CLIENT_CERTIFICATE_BYTES, 'a private key'),
  };
}

/** What stands at `path` when something other than a regular file does (a folder, a FIFO), or undefined. */
export function notARegularFile(path: string): string | undefined {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch {
    return undefined;
  }
  return stats.isFile() || stats.isSymbolicLink() ? undefined : kindOfFile(stats);
}

/** "a FIFO", "a folder": what a file is, for a message. */
export function kindOfFile(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'a file';
}

/** The file's bytes, refused when it holds more than `maxBytes` (it may have grown since it was measured). */
function readAtMost(fd: number, maxBytes: number, what: string): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(1 << 20, maxBytes + 1 - total));
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
    if (total > maxBytes) throw new UnreadableFile(`it holds more than the ${maxBytes} bytes ${what} may`, 'too-large');
  }
  return Buffer.concat(chunks, total);
}
