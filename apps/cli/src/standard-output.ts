/**
 * The command's standard output and the questions asked of its file descriptors, without the
 * streams Node makes for them. `process.stdout` for a pipe is a socket, and asking whether a
 * descriptor is a terminal loads node:tty: either loads Node's net and stream modules (about 30
 * of them), which a one-shot command that writes its answer to a pipe or a file does not need.
 */
import { fstatSync, statSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';

/**
 * Whether a file descriptor is a terminal. One that is not a character device (a pipe, a file, a
 * socket), is /dev/null (what `< /dev/null`, `2> /dev/null` and a spawn's ignored stdio give) or
 * is not open is not one, known from fstat; another character device is asked of node:tty (which
 * the CLI's build loads only then).
 */
export function isTerminal(fd: number): boolean {
  if (process.platform !== 'win32') {
    try {
      const stat = fstatSync(fd);
      if (!stat.isCharacterDevice()) return false;
      if (stat.rdev === statSync('/dev/null').rdev) return false;
    } catch {
      return false;
    }
  }
  return isatty(fd);
}

/**
 * A writer of standard output. Not a terminal: each text is written to descriptor 1 whole before
 * the call returns (as Node's stream does for pipes and files on Linux and macOS), so nothing is
 * left to flush at exit. A terminal, or a pipe left non-blocking by the program reading it (which
 * answers EAGAIN when full), is written through `process.stdout`, which waits for it. A reader
 * that went away (`cloudcall vm-list | head -1`) calls `onClosed`: not an error. The options are
 * for tests: another descriptor, and the stream that takes over from it.
 */
export function standardOutput(
  onClosed: () => void,
  {
    terminal = isTerminal(1),
    fd = 1,
    stream: makeStream = () => process.stdout,
  }: { terminal?: boolean; fd?: number; stream?: () => NodeJS.WritableStream } = {},
): (text: string) => void {
  let stream: NodeJS.WritableStream | undefined;
  const throughStream = (text: string | Buffer) => {
    if (!stream) {
      stream = makeStream();
      stream.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error;
        onClosed();
      });
    }
    stream.write(text);
  };
  if (terminal) return throughStream;
  return (text) => {
    if (stream) return throughStream(text);
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(fd, bytes, written);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return onClosed();
      if (code !== 'EAGAIN') throw error;
      throughStream(bytes.subarray(written));
    }
  };
}
