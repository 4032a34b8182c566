/**
 * The key file of `ssh-key import --public-key-file`, read from real files: one public key is
 * taken (its line, trimmed), anything else refused naming the file, never quoting it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS } from '@cloudcall/core/internal';
import { sshPublicKey } from '@cloudcall/sandbox';
import { describe, expect, it } from 'vitest';
import { FlagError } from './flags.js';
import { MAX_BYTES, readPublicKeyFile } from './public-key-file.js';

const folder = mkdtempSync(join(tmpdir(), 'cloudcall-keys-'));
const file = (name: string, text: string | Buffer) => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};

/** The refusal for a file, checked not to quote what the file holds. */
function refusal(path: string): string {
  try {
    readPublicKeyFile(path, 'PublicKey');
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    const { argument, detail } = error as FlagError;
    expect(argument).toBe('PublicKey');
    expect(detail).not.toMatch(/SECRET/);
    return detail;
  }
  throw new Error(`${path} was taken`);
}

describe('readPublicKeyFile', () => {
  it('takes one OpenSSH public key of each type the platform takes, trimmed, comments and blank lines aside', () => {
    const key = sshPublicKey('me@host');
    expect(readPublicKeyFile(file('one.pub', `\n# my laptop\n  ${key}  \r\n\n`), 'PublicKey')).toBe(key);
    // Another type: the blob names the type it is.
    const blob = Buffer.concat([Buffer.from([0, 0, 0, 7]), Buffer.from('ssh-rsa'), Buffer.alloc(20, 1)]);
    const rsa = `ssh-rsa ${blob.toString('base64')}`;
    expect(readPublicKeyFile(file('rsa.pub', rsa), 'PublicKey')).toBe(rsa);
  });

  it('refuses private keys of every common form, naming the .pub beside one', () => {
    const body = '\nSECRETSECRET\n';
    for (const header of [
      'OPENSSH PRIVATE KEY',
      'RSA PRIVATE KEY',
      'EC PRIVATE KEY',
      'PRIVATE KEY',
      'ENCRYPTED PRIVATE KEY',
    ]) {
      const path = file(
        `${header.replace(/ /g, '_')}`,
        `-----BEGIN ${header}-----${body}-----END ${header}-----\n`,
      );
      expect(refusal(path), header).toBe(
        `"${path}" is a private key, which stays on this machine; give the public key`,
      );
    }
    const putty = file('putty.ppk', `PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1${body}`);
    expect(refusal(putty)).toMatch(/is a private key/);
    const withPub = file('id_ecdsa', `-----BEGIN OPENSSH PRIVATE KEY-----${body}`);
    file('id_ecdsa.pub', sshPublicKey());
    expect(refusal(withPub)).toBe(
      `"${withPub}" is a private key, which stays on this machine; give the public key ("${withPub}.pub")`,
    );
  });

  it('refuses what is not one public key: text, a forged blob, two keys, RFC 4716, empty, binary, too large', () => {
    const expected =
      'is not an SSH public key; expected one line such as "ssh-ed25519 AAAA... comment", as in ~/.ssh/id_ed25519.pub';
    const text = file('notes.txt', 'password=SECRET\n');
    expect(refusal(text)).toBe(`"${text}" ${expected}`);
    const forged = file(
      'forged.pub',
      `ssh-rsa ${Buffer.from('\0\0\0\x0bssh-ed25519SECRET').toString('base64')}`,
    );
    expect(refusal(forged)).toBe(`"${forged}" ${expected}`);
    // The type's name first in the blob, but its length another's: no key.
    const long = file('long.pub', `ssh-rsa ${Buffer.from('\0\0\0\x0bssh-rsaSECRET').toString('base64')}`);
    expect(refusal(long)).toMatch(/is not an SSH public key/);
    const truncated = file(
      'short.pub',
      `ssh-ed25519 ${Buffer.from('\0\0\0\x0bssh-ed25519').toString('base64')}`,
    );
    expect(refusal(truncated)).toMatch(/is not an SSH public key/);
    const mixed = file('mixed.pub', `${sshPublicKey()}\nSECRET line\n`);
    expect(refusal(mixed)).toMatch(/is not an SSH public key/);
    const two = file('two.pub', `${sshPublicKey()}\n${sshPublicKey()}\n`);
    expect(refusal(two)).toBe(`"${two}" holds 2 keys; give a file with one`);
    const rfc = file('rfc.pub', '---- BEGIN SSH2 PUBLIC KEY ----\nSECRET\n---- END SSH2 PUBLIC KEY ----\n');
    expect(refusal(rfc)).toBe(
      `"${rfc}" is an RFC 4716 public key; convert it with: ssh-keygen -i -f "${rfc}"`,
    );
    const empty = file('empty.pub', '\n# nothing\n');
    expect(refusal(empty)).toMatch(/^".*" is empty; expected one SSH public key/);
    const binary = file('binary.pub', Buffer.from([0, 1, 2, 0xff, 0x53, 0x45, 0x43]));
    expect(refusal(binary)).toMatch(/is not an SSH public key/);
    // One byte past the longest key the tools take.
    expect(MAX_BYTES).toBe(LIMITS.publicKey);
    const big = file('big.pub', `ssh-ed25519 ${'A'.repeat(16_373)}`);
    expect(refusal(big)).toBe(`"${big}" is 16385 bytes: too large for an SSH public key`);
  });

  it('refuses what is no regular file, or cannot be read, without reading it', () => {
    expect(refusal(join(folder, 'missing.pub'))).toMatch(/" does not exist$/);
    expect(refusal(folder)).toBe(`"${folder}" is not a file`);
    expect(refusal('/dev/zero')).toBe('"/dev/zero" is not a file');
  });
});
