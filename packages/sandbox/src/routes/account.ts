/**
 * Account endpoints: account information, balance, billing history, invoices, SSH keys, actions.
 */
import { createHash } from 'node:crypto';
import {
  intParam,
  listBody,
  notFound,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { nextId, type SshKey, type World } from '../world.js';
import { actionListReply, actionReply } from './actions.js';

const KEY_TYPES = new Set([
  'ssh-rsa',
  'ssh-ed25519',
  'ssh-dss',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

/**
 * The platform's MD5 fingerprint of an OpenSSH public key (`type base64 [comment]`), or a 422 when
 * the text is not one. The key blob must start with its own type, as real keys do.
 */
export function fingerprintOf(publicKey: string): string {
  const [type, data] = publicKey.trim().split(/\s+/);
  const invalid = () => unprocessable('Key invalid, key should be of the format `type key [comment]`');
  if (!type || !data || !KEY_TYPES.has(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw invalid();
  const blob = Buffer.from(data, 'base64');
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : -1;
  if (length !== type.length || blob.subarray(4, 4 + length).toString('latin1') !== type) throw invalid();
  const hex = createHash('md5').update(blob).digest('hex');
  return hex.match(/../g)!.join(':');
}

/** An SSH key by numeric id or by fingerprint, as the platform addresses them. */
function findKey(world: World, request: SandboxRequest): SshKey {
  const ref = request.params.key ?? '';
  const key = /^\d+$/.test(ref)
    ? world.sshKeys.find((k) => k.id === Number(ref))
    : world.sshKeys.find((k) => k.fingerprint === ref);
  if (!key) throw notFound();
  return key;
}

export const accountRoutes: Route[] = [
  { method: 'GET', path: '/v2/account', handler: (_req, world) => ({ body: { account: world.account } }) },
  { method: 'GET', path: '/v2/customers/my/balance', handler: (_req, world) => ({ body: world.balance }) },
  {
    method: 'GET',
    path: '/v2/customers/my/billing_history',
    handler: (req, world) => ({ body: listBody('billing_history', world.billingHistory, req) }),
  },
  {
    method: 'GET',
    path: '/v2/customers/my/invoices',
    handler: (req, world) => ({
      body: { ...listBody('invoices', world.invoices, req), invoice_preview: world.invoicePreview },
    }),
  },
  {
    method: 'GET',
    path: '/v2/account/keys',
    handler: (req, world) => ({ body: listBody('ssh_keys', world.sshKeys, req) }),
  },
  {
    method: 'POST',
    path: '/v2/account/keys',
    handler: (req, world) => {
      const name = requireString(req.body, 'name');
      const publicKey = requireString(req.body, 'public_key').trim();
      const fingerprint = fingerprintOf(publicKey);
      if (world.sshKeys.some((k) => k.fingerprint === fingerprint)) {
        throw unprocessable('SSH Key is already in use on your account');
      }
      const key: SshKey = { id: nextId(world, 'sshKey'), fingerprint, public_key: publicKey, name };
      world.sshKeys.push(key);
      return { status: 201, body: { ssh_key: key } };
    },
  },
  {
    method: 'GET',
    path: '/v2/account/keys/{key}',
    handler: (req, world) => ({ body: { ssh_key: findKey(world, req) } }),
  },
  {
    method: 'PUT',
    path: '/v2/account/keys/{key}',
    handler: (req, world) => {
      const key = findKey(world, req);
      if (req.body.name !== undefined) key.name = requireString(req.body, 'name');
      return { body: { ssh_key: key } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/account/keys/{key}',
    handler: (req, world) => {
      const key = findKey(world, req);
      world.sshKeys = world.sshKeys.filter((k) => k !== key);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/actions',
    handler: (req, world) => actionListReply(world, req),
  },
  {
    method: 'GET',
    path: '/v2/actions/{id}',
    handler: (req, world) => actionReply(world, intParam(req, 'id'), req.now),
  },
];
