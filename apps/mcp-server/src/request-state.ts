/**
 * The state a confirmation question carries between rounds (protocol revision 2026-07-28's
 * multi round-trip requests): the server answers a destructive call with the question and this
 * state, the client calls again with the answer and the state as it was, and that call may land
 * on any replica. The client holds the state, so it is sealed: AES-256-GCM under a key the
 * replicas share (`--request-state-key`), so that nobody can read it (the resource's name) or
 * forge it. It names the caller, the tool and a digest of its arguments, expires after a few
 * minutes, and its nonce is spent on use, in Redis when the replicas share one (`--redis`).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** What a question's state says, once opened. */
export interface ConfirmState {
  /** Who was asked: the caller (a client key's name, a token's hash; '' for the local user). */
  caller: string;
  tool: string;
  /** The SHA-256 of the call's arguments (argumentsDigest). */
  args: string;
  /** What the person was asked to type: the resource's name or id. */
  expected: string;
  /** When the question expires, in ms since the epoch. */
  expires: number;
  /** Spent by the round that answers it. */
  nonce: string;
}

/** A state that cannot be opened: forged, damaged, sealed with another key, or expired. */
export class StateRefused extends Error {
  override name = 'StateRefused';
  constructor(readonly reason: 'expired' | 'invalid') {
    super(
      reason === 'expired'
        ? 'The confirmation question has expired'
        : 'The confirmation state was not made by this service (or was sealed with another --request-state-key)',
    );
  }
}

/** How long a question stays open: a person reads it and types a name. */
export const QUESTION_TTL_MS = 5 * 60_000;

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bound into every seal: a ciphertext made for something else under the same key is refused. */
const ASSOCIATED = Buffer.from('cloudcall mcp confirmation v1');

export interface StateSeal {
  seal(state: Omit<ConfirmState, 'expires' | 'nonce'>): string;
  open(text: string): ConfirmState;
}

/**
 * Seals and opens question states under `secret` (the shared key, any length from 32 bytes; the
 * cipher's key is derived from it with HKDF), or, without one, under a random key of this
 * process's own. `now` is the clock expiry is judged by. The key is derived (and a random one
 * drawn) with the first state sealed or opened: a server checks a given key's length at start,
 * but loads node:crypto (about 20 of Node's modules) only once a question is asked.
 */
export function stateSeal(
  secret: Buffer | undefined,
  options: { ttlMs?: number; now?: () => number } = {},
): StateSeal {
  if (secret !== undefined && secret.length < 32)
    throw new Error('--request-state-key must be at least 32 bytes');
  let derived: Buffer | undefined;
  const cipherKey = () =>
    (derived ??= Buffer.from(
      hkdfSync('sha256', secret ?? randomBytes(32), 'cloudcall', 'mcp request state', 32),
    ));
  const ttlMs = options.ttlMs ?? QUESTION_TTL_MS;
  const now = options.now ?? Date.now;
  return {
    seal(state) {
      const key = cipherKey();
      const full: ConfirmState = {
        ...state,
        expires: now() + ttlMs,
        nonce: randomBytes(16).toString('base64url'),
      };
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(ASSOCIATED);
      const body = Buffer.concat([cipher.update(JSON.stringify(full), 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(text) {
      const [version, sealed, extra] = text.split('.');
      if (version !== VERSION || sealed === undefined || extra !== undefined)
        throw new StateRefused('invalid');
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length < IV_BYTES + TAG_BYTES + 2) throw new StateRefused('invalid');
      let state: ConfirmState;
      try {
        const decipher = createDecipheriv('aes-256-gcm', cipherKey(), bytes.subarray(0, IV_BYTES));
        decipher.setAAD(ASSOCIATED);
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]);
        state = JSON.parse(plain.toString('utf8')) as ConfirmState;
      } catch {
        throw new StateRefused('invalid');
      }
      if (!(state.expires > now())) throw new StateRefused('expired');
      return state;
    },
  };
}

/**
 * The key from `--request-state-key` (base64, hex or plain text of 32 bytes or more), or
 * undefined without one: stateSeal then uses a random key, and only this process can open its
 * questions' states, which is right for one process (stdio, one replica) and says so when a
 * retry lands elsewhere.
 */
export function stateKey(text: string | undefined): Buffer | undefined {
  if (text === undefined || text === '') return undefined;
  const trimmed = text.trim();
  if (/^[0-9a-f]+$/i.test(trimmed) && trimmed.length >= 64) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) && trimmed.length >= 44) {
    const decoded = Buffer.from(trimmed, 'base64');
    if (decoded.length >= 32) return decoded;
  }
  return Buffer.from(trimmed, 'utf8');
}

/** The arguments as one digest: the same for the same arguments in any key order. */
export function argumentsDigest(args: unknown): string {
  return createHash('sha256').update(canonical(args)).digest('base64url');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Where spent nonces are kept until their question would have expired. */
export interface SpentNonces {
  /** True the first time a nonce is spent; false ever after (until it expires). */
  spend(nonce: string, expires: number): Promise<boolean>;
  readonly where: string;
}

/** This process's spent nonces: enough for one process; replicas share Redis's (redisSpent). */
export function memorySpent(now: () => number = Date.now): SpentNonces {
  const spent = new Map<string, number>();
  return {
    where: 'this process',
    async spend(nonce, expires) {
      const time = now();
      for (const [key, until] of spent) if (until <= time) spent.delete(key);
      if (spent.has(nonce)) return false;
      spent.set(nonce, expires);
      return true;
    },
  };
}

/** Spent nonces in Redis, for every replica: SET NX, kept until the question would expire. */
export function redisSpent(
  redis: { where: string; command(args: readonly string[]): Promise<unknown> },
  prefix = 'cloudcall:confirm:',
): SpentNonces {
  return {
    where: redis.where,
    async spend(nonce, expires) {
      const reply = await redis.command(['SET', `${prefix}${nonce}`, '1', 'NX', 'PXAT', String(expires)]);
      return reply === 'OK';
    },
  };
}
