/**
 * The start of a stdio session, answered before the MCP SDK loads.
 *
 * A host spawns the server and sends `initialize`, `notifications/initialized` and `tools/list`
 * before anything else; the answers to all three are known at build time (the listing, the
 * protocol versions of the bundled SDK) or from the flags. Loading the SDK (its zod schemas for
 * every protocol message) costs more than the rest of start-up together, so `EarlyStdio` reads
 * those first lines itself and answers them, and loads the SDK server only when a message needs
 * it (or, when it takes no calls, as soon as the tool list is out). It then hands everything over through
 * `StdioLineTransport`: the `initialize` request (so the SDK server knows the client's
 * capabilities and protocol version; its second answer is dropped) and every byte not yet
 * answered, in order. Anything unusual (a line that is not JSON, an unknown method, a cursor, a
 * malformed `initialize`) is left to the SDK server, which answers it as it always has.
 *
 * Plain `tools/call`s are handed to the session's call router (fast-call.ts), which runs them
 * without the SDK: a session of plain calls from a client that declared no elicitation never
 * loads it.
 *
 * Nothing here imports the SDK; `handshake.test.ts` checks these answers against the SDK server's
 * own for the same requests.
 */
import type { Readable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { type CallRouter, plainCallParams } from './fast-call.js';
import { PROTOCOL } from './protocol.generated.js';

/** The first protocol version without JSON-RPC batches (stdio.ts, http.ts). */
export const BATCHES_REMOVED_IN = '2025-06-18';

/** The `_meta` key by which a request claims revision 2026-07-28 or later (its protocol version). */
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * Whether a message claims the 2026-07-28 revision (or a later one): its `_meta` names a protocol
 * version, or the MCP-Protocol-Version header does. Cheap, and without the SDK: 2025 traffic
 * never pays for loading it. The SDK judges the claim itself (a malformed one is its to refuse).
 */
export function hasModernClaim(body: unknown, versionHeader?: string): boolean {
  if (versionHeader !== undefined && versionHeader >= '2026-') return true;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const params = (body as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_KEY in meta;
}

/** A JSON-RPC id. */
export type Id = string | number;

/** What the server says of itself in `initialize`, shared with the SDK server (`server.ts`). */
export interface ServerIdentity {
  version: string;
  sandbox: boolean;
  showSecrets: boolean;
  dynamic: boolean;
}

/**
 * What every tool has in common, said once here instead of in 142 descriptions: the server's
 * instructions reach the model once per session, the tool list on every turn.
 */
const INSTRUCTIONS = `cloudcall manages DigitalOcean-compatible infrastructure: account and billing, managed databases, networking (domains, certificates, firewalls, load balancers, reserved IPs, VPCs), VMs (droplets), images and sizes.
- Results are the platform's JSON, also as structuredContent. Ids come from the matching *-list tool (vm-list, db-cluster-list...); slugs for regions and sizes from size-list, images from image-list.
- Lists are paged: Page from 1, PerPage up to 200; links.pages.next is present while more pages exist.
- Creates and actions return at once: a VM starts "new", a cluster "creating", a load balancer "new", an action "in-progress". Call wait (Kind and ID) to block until ready instead of polling get tools.
- Errors are isError results whose structuredContent has status, error_id, request_id, retryable, retry_after_seconds and a hint saying what to do next.
- Destructive tools (destructiveHint) delete or replace data; confirm with the user first.`;

const SECRETS_NOTE =
  '\n- Secrets in results (database passwords, also inside connection URIs) are hidden; the person running this server can start it with --show-secrets to include them.';

const SANDBOX_NOTE =
  '\n- This server is connected to the cloudcall SANDBOX, an offline emulation of the platform: nothing created here is real or billed, and state lives only on this machine.';

const DYNAMIC_NOTE =
  '\n- Tools are enabled on demand: toolset-list shows the families and their tools, toolset-enable adds families or tools to the tool list.';

export function instructionsFor(identity: ServerIdentity): string {
  return (
    INSTRUCTIONS +
    (identity.showSecrets ? '' : SECRETS_NOTE) +
    (identity.sandbox ? SANDBOX_NOTE : '') +
    (identity.dynamic ? DYNAMIC_NOTE : '')
  );
}

export function serverInfo(version: string) {
  return { name: 'cloudcall', title: 'cloudcall', version };
}

export function capabilitiesFor(identity: Pick<ServerIdentity, 'dynamic'>) {
  return { tools: { listChanged: identity.dynamic } };
}

/**
 * The `initialize` result the SDK server gives (`Server._oninitialize`): the client's protocol
 * version when the bundled SDK supports it, else the latest. Undefined when the params are not
 * plainly well formed, so that the SDK server answers them with its own error.
 */
export function initializeResult(params: unknown, identity: ServerIdentity) {
  if (!isObject(params)) return undefined;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== 'string' || !isObject(capabilities) || !isObject(clientInfo))
    return undefined;
  if (!Object.values(capabilities).every(isObject)) return undefined;
  if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') return undefined;
  return {
    protocolVersion: PROTOCOL.supported.includes(protocolVersion) ? protocolVersion : PROTOCOL.latest,
    capabilities: capabilitiesFor(identity),
    serverInfo: serverInfo(identity.version),
    instructions: instructionsFor(identity),
  };
}

/** What `StdioLineTransport` takes over: the messages to replay, and the bytes not yet read. */
export interface StdioHandover {
  /** `initialize` and `notifications/initialized`, as received, for the SDK server to see first. */
  readonly replay: readonly Record<string, unknown>[];
  /** Ids answered here whose answer from the SDK server is dropped (the replayed `initialize`). */
  readonly answered: Set<Id>;
  /** What was answered for each of those ids, to compare with the SDK server's answer. */
  readonly sent: Map<Id, unknown>;
  /** Stops reading input here; gives what was read and not answered, and whether input ended. */
  take(): { bytes: Buffer; ended: boolean };
}

export interface EarlyStdioOptions {
  input: Readable;
  /** Writes one answer line. */
  write: (line: string | Uint8Array) => void;
  /** Lines longer than this are left to the transport, which refuses them. */
  maxMessageBytes: number;
  identity: ServerIdentity;
  /**
   * The tools/list entries as the JSON text of their array, or its bytes (the build's as they are,
   * for every tool or the default ones), or undefined when only the SDK server can list them
   * (dynamic mode).
   */
  listTools: (() => string | Uint8Array) | undefined;
  /** Called once, when the SDK server is needed: a message only it answers, or the list is out. */
  needServer: () => void;
  /**
   * Where plain tools/calls go (fast-call.ts) before the SDK server loads, when given: the SDK
   * then loads only when a message needs it, not once the list is out. Calls from a client that
   * declared elicitation (a destructive call may ask it to confirm, through the SDK server) are
   * left to the SDK server.
   */
  calls?: CallRouter | undefined;
  /** The tool list is out and calls are taken here: the client is about to call one. */
  listed?: (() => void) | undefined;
  /**
   * Input ended while calls were taken here and nothing was left to the SDK server: the session
   * is over (its calls stop, as the transport's end stops them) without loading the SDK.
   */
  ended?: (() => void) | undefined;
}

const NEWLINE = 0x0a;

export class EarlyStdio implements StdioHandover {
  readonly replay: Record<string, unknown>[] = [];
  readonly answered = new Set<Id>();
  readonly sent = new Map<Id, unknown>();
  private chunks: Buffer[] = [];
  /** The bytes in `chunks`. */
  private buffered = 0;
  private ended = false;
  /** Set once a message is left for the SDK server: from then on, bytes are only kept. */
  private waiting = false;
  private initialized = false;
  private asked = false;
  /** Whether plain calls are taken here: `calls` given, and the client declared no elicitation. */
  private takesCalls = false;
  /**
   * The session opened at protocol revision 2026-07-28 (`server/discover`, or a request claiming
   * it): the SDK's v2 server answers it all (modern.ts), from its first message.
   */
  modern = false;

  constructor(private readonly options: EarlyStdioOptions) {}

  start(): void {
    this.options.input.on('data', this.onData);
    this.options.input.on('end', this.onEnd);
    this.options.input.on('error', this.onEnd);
  }

  take(): { bytes: Buffer; ended: boolean } {
    const { input } = this.options;
    input.off('data', this.onData);
    input.off('end', this.onEnd);
    input.off('error', this.onEnd);
    const bytes = Buffer.concat(this.chunks);
    this.chunks = [];
    this.buffered = 0;
    return { bytes, ended: this.ended };
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.chunks.push(bytes);
    this.buffered += bytes.length;
    if (this.waiting) return;
    // Only a chunk with a newline ends a line: until one comes, the line's chunks are kept as they
    // are (joining them on every chunk made a long line cost its length squared). A line past the
    // limit is the transport's to refuse.
    if (bytes.includes(NEWLINE)) this.answerLines();
    else if (this.buffered > this.options.maxMessageBytes) this.leave();
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    if (this.takesCalls && !this.waiting && this.options.ended) {
      this.take();
      this.options.ended();
      return;
    }
    this.leave();
  };

  /** Answers complete lines from the front of the input while it can; leaves the rest. */
  private answerLines(): void {
    let buffer = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    for (;;) {
      const newline = buffer.indexOf(NEWLINE);
      if (newline === -1) {
        // A line this long is the transport's to refuse.
        if (buffer.length > this.options.maxMessageBytes) this.leave();
        break;
      }
      if (newline > this.options.maxMessageBytes || !this.answer(buffer.subarray(0, newline))) {
        this.leave();
        break;
      }
      buffer = buffer.subarray(newline + 1);
    }
    this.chunks = buffer.length ? [buffer] : [];
    this.buffered = buffer.length;
  }

  /** Answers one line, or returns false to leave it (and all after it) to the SDK server. */
  private answer(bytes: Buffer): boolean {
    const text = bytes.toString('utf8').trim();
    if (text === '') return true;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return false;
    }
    if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') return false;
    const { id, method, params } = message;
    if (!this.initialized && (method === 'server/discover' || hasModernClaim(message))) {
      this.modern = true;
      return false;
    }
    if (id === undefined) {
      if (method === 'notifications/cancelled' && this.takesCalls) {
        // Only calls taken here can be running: the SDK server has not loaded.
        this.options.calls?.cancelled(message as JSONRPCMessage);
        return true;
      }
      if (method !== 'notifications/initialized' || !this.initialized) return false;
      this.replay.push(message);
      return true;
    }
    if (!(typeof id === 'string' || Number.isSafeInteger(id))) return false;
    if (method === 'tools/call') {
      // A call of another shape, or one whose id is still running, is the SDK server's.
      const plain = this.takesCalls ? plainCallParams(message) : undefined;
      return plain !== undefined && this.options.calls?.call(id as Id, plain) === true;
    }
    const result = this.resultFor(method, params);
    if (result === undefined) return false;
    if (method === 'initialize') {
      this.initialized = true;
      this.takesCalls =
        this.options.calls !== undefined &&
        isObject(params) &&
        isObject(params.capabilities) &&
        params.capabilities.elicitation === undefined;
      this.replay.push(message);
      this.answered.add(id as Id);
      this.sent.set(id as Id, result);
    }
    // As the SDK writes an answer, JSON.stringify({ result, jsonrpc, id }), with the tool list's
    // text or bytes as they came.
    const json = typeof result === 'string' || result instanceof Uint8Array ? result : JSON.stringify(result);
    this.options.write(answerLine(id as Id, json));
    // The client has its tools and is about to call one: load what calls need now (the SDK
    // server only when calls are its to answer).
    if (method === 'tools/list')
      setImmediate(() => (this.takesCalls ? this.options.listed?.() : this.leave()));
    return true;
  }

  /**
   * The result to answer with (as JSON text or its bytes for tools/list), or undefined to leave the
   * message.
   */
  private resultFor(method: string, params: unknown): unknown {
    if (method === 'initialize') {
      return this.initialized ? undefined : initializeResult(params, this.options.identity);
    }
    if (!this.initialized) return undefined;
    if (method === 'ping') return params === undefined || isObject(params) ? {} : undefined;
    if (method === 'tools/list' && this.options.listTools) {
      // A cursor, or params of another shape, are the SDK server's to judge.
      const plain = params === undefined || (isObject(params) && params.cursor === undefined);
      return plain ? wrapJson('{"tools":', this.options.listTools(), '}') : undefined;
    }
    return undefined;
  }

  /** From here on the SDK server answers: keep every byte for it, and have it loaded. */
  private leave(): void {
    this.waiting = true;
    if (this.asked) return;
    this.asked = true;
    this.options.needServer();
  }
}

/** JSON text or bytes between a head and a tail, as text or bytes as it came. */
function wrapJson(head: string, json: string | Uint8Array, tail: string): string | Uint8Array {
  return typeof json === 'string'
    ? `${head}${json}${tail}`
    : Buffer.concat([Buffer.from(head), json, Buffer.from(tail)]);
}

/**
 * An answer line as the SDK writes one, JSON.stringify({ result, jsonrpc, id }), the result given
 * as JSON text or bytes. The build's tool list stays bytes, outside V8's heap: as text, reading,
 * slicing and joining it put about 190 KB in V8's young generation at start, which filled it,
 * and a collection of the start's objects (about 3 ms) ran before the answer went out.
 */
function answerLine(id: Id, json: string | Uint8Array): string | Uint8Array {
  return wrapJson('{"result":', json, `,"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
