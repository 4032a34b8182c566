/**
 * A small file read whole, with a bound: for the files a user names on a command line or in
 * settings (a policy, a client-keys file, a request body, the CLI's contexts), which must not
 * hang a start on a FIFO or read /dev/zero until memory runs out.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Why a file was not read; `message` says it without the path, for the caller to prefix. */
export class FileReadError extends Error {
  constructor(
    readonly reason: 'unreadable' | 'not-a-file' | 'too-large',
    message: string,
    /** The system's code when it could not be opened or read (`ENOENT`, `EACCES`...). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'FileReadError';
  }
}

/** What is read at a time past the size fstat gave. */
const READ_CHUNK = 64 * 1024;

/**
 * The text of the regular file at `path`, of at most `maxBytes`. A FIFO, a device, a socket or a
 * directory is refused before a byte is read: the file is opened without blocking, so a FIFO with
 * no writer cannot hang. Reads until the end, not to the size fstat gave (the file may grow, and
 * /proc's files say 0), and stops one byte past the bound. Throws a FileReadError.
 */
export function readBoundedFile(path: string, maxBytes: number): string {
  const cannot = (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    return new FileReadError('unreadable', `cannot be read (${code ?? String(error)})`, code);
  };
  const tooLarge = () => new FileReadError('too-large', `larger than ${sizeText(maxBytes)}`);
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. (Windows has none.)
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw cannot(error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new FileReadError('not-a-file', `not a regular file (${fileKind(stat)})`);
    if (stat.size > maxBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    let length = 0;
    for (let chunk = Math.min(stat.size + 1, maxBytes + 1); ; chunk = READ_CHUNK) {
      const buffer = Buffer.allocUnsafe(chunk);
      const read = readSync(fd, buffer, 0, chunk, null);
      if (read === 0) break;
      chunks.push(buffer.subarray(0, read));
      length += read;
      if (length > maxBytes) throw tooLarge();
    }
    return Buffer.concat(chunks, length).toString('utf8');
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw cannot(error);
  } finally {
    closeSync(fd);
  }
}

/** `1 MiB`, `64 KiB`, or bytes. */
function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function fileKind(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}
