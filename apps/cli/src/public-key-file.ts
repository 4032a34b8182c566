/**
 * doctl's `ssh-key import NAME --public-key-file PATH`: the key read from a file, checked to be one
 * OpenSSH public key before anything is sent. A private key, or anything else, is refused naming
 * the file only: its content never reaches a message.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { FlagError } from './flags.js';

/**
 * The longest public key the key tools take (core's LIMITS.publicKey), and so the most read of a
 * file. Written out: core's limits come with its argument schemas, which a start does not load.
 */
export const MAX_BYTES = 16_384;

/** The key types the platform takes, as the first word of a `.pub` line. */
const KEY_TYPES = new Set([
  'ssh-rsa',
  'ssh-dss',
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

const EXAMPLE = '"ssh-ed25519 AAAA... comment", as in ~/.ssh/id_ed25519.pub';

/** The public key in the file at `path`: its one key line. */
export function readPublicKeyFile(path: string, argument: string): string {
  const shown = JSON.stringify(path);
  const refuse = (why: string): never => {
    throw new FlagError(argument, `${shown} ${why}`);
  };
  let fd: number;
  try {
    // Non-blocking, so that a FIFO with no writer is refused below rather than waited on.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refuse(
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES' || code === 'EPERM'
          ? 'cannot be read (permission denied)'
          : `cannot be read (${code ?? 'error'})`,
    );
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) refuse('is not a file');
    if (stat.size > MAX_BYTES) refuse(`is ${stat.size} bytes: too large for an SSH public key`);
    // Read to the end, at most one byte past the limit (a file that grows as it is read).
    const buffer = Buffer.alloc(MAX_BYTES + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      read = readSync(fd, buffer, length, buffer.length - length, length);
    }
    if (length > MAX_BYTES) refuse('is too large for an SSH public key');
    text = buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----|^PuTTY-User-Key-File-/m.test(text)) {
    const pub = `${path}.pub`;
    return refuse(
      `is a private key, which stays on this machine; give the public key${existsSync(pub) ? ` (${JSON.stringify(pub)})` : ''}`,
    );
  }
  if (/^---- BEGIN SSH2 PUBLIC KEY ----/m.test(text)) {
    return refuse(`is an RFC 4716 public key; convert it with: ssh-keygen -i -f ${shown}`);
  }
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  if (lines.length === 0) return refuse(`is empty; expected one SSH public key such as ${EXAMPLE}`);
  if (!lines.every(isPublicKeyLine)) {
    return refuse(`is not an SSH public key; expected one line such as ${EXAMPLE}`);
  }
  if (lines.length > 1) return refuse(`holds ${lines.length} keys; give a file with one`);
  return (lines[0] as string).trim();
}

/**
 * Whether a line is `type base64 [comment]` whose base64 is a key of that type (its blob starts
 * with the type's name), as OpenSSH and the platform read it.
 */
function isPublicKeyLine(line: string): boolean {
  const [type = '', data = ''] = line.trim().split(/\s+/);
  if (!KEY_TYPES.has(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return false;
  const blob = Buffer.from(data, 'base64');
  return (
    blob.length > 4 + type.length &&
    blob.readUInt32BE(0) === type.length &&
    blob.subarray(4, 4 + type.length).toString('latin1') === type
  );
}
