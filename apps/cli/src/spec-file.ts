/**
 * doctl's `apps create --spec FILE` and `apps update APP --spec FILE`: an app spec read from a
 * YAML or JSON file, or from standard input for `-`, at most MAX_SPEC_BYTES. A spec wrapped as
 * `spec:` (an app as `apps get -o yaml` prints it, a deploy template) is unwrapped. Inline JSON
 * (`--spec '{"name":...}'`) is the argument's own form and passes through. What the spec holds is
 * the tool's schema's to check, naming the field.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FlagError } from './flags.js';

/** Far above any real app spec, far below what would be a mistake (a binary, a log). */
export const MAX_SPEC_BYTES = 262_144;

/** The bytes of `fd` up to one past the limit, so that a larger input is seen to be one. */
function readAll(fd: number): Buffer {
  const buffer = Buffer.alloc(MAX_SPEC_BYTES + 1);
  let length = 0;
  while (length < buffer.length) {
    let read: number;
    try {
      read = readSync(fd, buffer, length, buffer.length - length, null);
    } catch (error) {
      // A non-blocking standard input with nothing in it yet: wait a little for the writer.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      continue;
    }
    if (read === 0) break;
    length += read;
  }
  return buffer.subarray(0, length);
}

/** The spec in the file at `path` (`-`: standard input), as an object. */
export function readSpecFile(path: string, argument: string): unknown {
  if (path.trim().startsWith('{')) return undefined;
  const shown = path === '-' ? 'standard input' : JSON.stringify(path);
  const refuse = (why: string): never => {
    throw new FlagError(argument, `${shown} ${why}`);
  };
  let bytes: Buffer;
  if (path === '-') {
    bytes = readAll(0);
  } else {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return refuse(code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`);
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) refuse('is not a file');
      if (stat.size > MAX_SPEC_BYTES)
        refuse(`is ${stat.size} bytes: an app spec is at most ${MAX_SPEC_BYTES}`);
      bytes = readAll(fd);
    } finally {
      closeSync(fd);
    }
  }
  if (bytes.length > MAX_SPEC_BYTES)
    refuse(`is larger than ${MAX_SPEC_BYTES} bytes: too large for an app spec`);
  const text = bytes.toString('utf8');
  if (text.trim() === '') return refuse('is empty; expected an app spec in YAML or JSON');
  let value: unknown;
  try {
    // YAML is JSON's superset; the parser is loaded for this flag only.
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    value = parse(text, { maxAliasCount: 100 });
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return refuse(`is not YAML or JSON: ${why}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refuse('does not hold an app spec: expected a mapping such as "name: shop" with services');
  }
  const record = value as Record<string, unknown>;
  const wrapped = record.spec;
  return typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped) && !('name' in record)
    ? wrapped
    : value;
}
