/**
 * Realistic inputs for demos and tests of the sandbox.
 */
import { generateKeyPairSync } from 'node:crypto';

/** A fresh, valid OpenSSH public key line (`ssh-ed25519 <base64 blob> [comment]`). */
export function sshPublicKey(comment?: string): string {
  const der = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' });
  const raw = der.subarray(der.length - 32);
  const type = Buffer.from('ssh-ed25519');
  const blob = Buffer.alloc(4 + type.length + 4 + raw.length);
  blob.writeUInt32BE(type.length, 0);
  type.copy(blob, 4);
  blob.writeUInt32BE(raw.length, 4 + type.length);
  raw.copy(blob, 8 + type.length);
  return `ssh-ed25519 ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
}
