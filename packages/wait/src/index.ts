/**
 * @cloudcall/wait: waiting, the layer both apps share. `wait` polls an action until it completes,
 * or a VM, database cluster or replica, load balancer, certificate, custom image, VPC peering or
 * BYOIP prefix until it is ready, or an App Platform deployment until it is live, so an agent makes one call instead of a dozen reads; each kind is
 * read with its own GET, mapped here like any tool's request. `waitAfter` and `pendingWaits` wait
 * for (or name the waits for) what a tool call started, as the tool's `wait` field says: the CLI's
 * `--wait` and the note after an MCP tool result that says which `wait` call comes next. It depends on core alone, never on a family;
 * the `wait` tool is listed in the account family (which owns actions), as it always was.
 */
import {
  ApiError,
  annotations,
  CancelledError,
  defineTool,
  type RequestMapping,
  sendRequest,
  TimeoutError,
  type ToolClock,
  type ToolContext,
  type ToolProgress,
  type ToolWait,
  type WaitKind as ToolWaitKind,
  WaitFailedError,
  type WaitTarget,
  WaitTimeoutError,
} from '@cloudcall/core';
import { rateLimitSpacing, sleep, UUID_PATTERN } from '@cloudcall/core/internal';
import { z } from 'zod';

interface WaitKind {
  /** The GET that reads it. */
  request: RequestMapping<{ ID: string; Name?: string }>;
  /** The member of the answer that holds it, such as `droplet`. */
  key: string;
  /** The field that holds its status (a Kubernetes cluster's is `status.state`). */
  field: 'status' | 'state' | 'phase' | 'status.state';
  /** The status that ends the wait. */
  ready: string;
  /** Statuses it never leaves for `ready`: they end the wait with a WaitFailedError. */
  failed: readonly string[];
  /** Numeric ids or UUIDs, and the tool that lists them. */
  id: 'numeric' | 'uuid';
  from: string;
  /** For a kind addressed by its parent's id and a name of its own: the tool that lists the names. */
  name?: string;
  /**
   * For a kind with no GET of its own (a registry's garbage collection): the list its GET
   * answers, and the field of each item that holds the id sought.
   */
  within?: { list: string; idField: string };
  /**
   * A status it stays in until an action moves it (a VM that is `off`). Seen with no action in
   * progress on it (its actions read newest first, with this GET), the wait ends at once: nothing
   * is going to make it ready. With an action in progress (a power-on), the wait goes on.
   */
  idle?: {
    status: string;
    actions: RequestMapping<{ ID: string; PerPage: number }>;
    /** What to do instead, the end of the answer. */
    advice: string;
  };
}

/** What `wait` waits for, as the platform's API description gives the statuses. */
export const WAIT_KINDS = {
  action: {
    request: { method: 'GET', path: '/v2/actions/{ID}' },
    key: 'action',
    field: 'status',
    ready: 'completed',
    failed: ['errored'],
    id: 'numeric',
    from: 'action-list or the tool that started it',
  },
  vm: {
    request: { method: 'GET', path: '/v2/droplets/{ID}' },
    key: 'droplet',
    field: 'status',
    ready: 'active',
    failed: [],
    id: 'numeric',
    from: 'vm-list',
    idle: {
      status: 'off',
      actions: { method: 'GET', path: '/v2/droplets/{ID}/actions', query: { per_page: 'PerPage' } },
      advice:
        'Power it on (power-on-vm), then wait for that action or for the VM: a VM that is booting or being powered on is waited for until it is active.',
    },
  },
  database: {
    request: { method: 'GET', path: '/v2/databases/{ID}' },
    key: 'database',
    field: 'status',
    ready: 'online',
    failed: [],
    id: 'uuid',
    from: 'db-cluster-list',
  },
  'load-balancer': {
    request: { method: 'GET', path: '/v2/load_balancers/{ID}' },
    key: 'load_balancer',
    field: 'status',
    ready: 'active',
    failed: ['errored'],
    id: 'uuid',
    from: 'load-balancer-list',
  },
  certificate: {
    request: { method: 'GET', path: '/v2/certificates/{ID}' },
    key: 'certificate',
    field: 'state',
    ready: 'verified',
    failed: ['error'],
    id: 'uuid',
    from: 'certificate-list',
  },
  // A custom image imported from a URL (image-create): NEW until the import is done.
  image: {
    request: { method: 'GET', path: '/v2/images/{ID}' },
    key: 'image',
    field: 'status',
    ready: 'available',
    failed: ['deleted', 'retired'],
    id: 'numeric',
    from: 'image-list',
  },
  'vpc-peering': {
    request: { method: 'GET', path: '/v2/vpc_peerings/{ID}' },
    key: 'vpc_peering',
    field: 'status',
    ready: 'ACTIVE',
    failed: ['DELETING'],
    id: 'uuid',
    from: 'vpc-peering-list',
  },
  // A read-only replica (db-cluster-create-replica): its cluster's UUID and its own name.
  'database-replica': {
    request: { method: 'GET', path: '/v2/databases/{ID}/replicas/{Name}' },
    key: 'replica',
    field: 'status',
    ready: 'online',
    failed: [],
    id: 'uuid',
    from: 'db-cluster-list',
    name: 'db-cluster-list-replicas',
  },
  // A prefix being brought to the platform (byoip-prefix-create): active once validated. The
  // description names no failed status (a failure shows in `failure_reason`), so none ends the wait.
  'byoip-prefix': {
    request: { method: 'GET', path: '/v2/byoip_prefixes/{ID}' },
    key: 'byoip_prefix',
    field: 'status',
    ready: 'active',
    failed: [],
    id: 'uuid',
    from: 'byoip-prefix-list',
  },
  // An App Platform deployment (app-create, app-update, app-create-deployment...): the app's UUID
  // and the deployment's. Live once ACTIVE; a canceled, failed or replaced one never will be.
  'app-deployment': {
    request: { method: 'GET', path: '/v2/apps/{ID}/deployments/{Name}' },
    key: 'deployment',
    field: 'phase',
    ready: 'ACTIVE',
    failed: ['ERROR', 'CANCELED', 'SUPERSEDED'],
    id: 'uuid',
    from: 'app-list',
    name: 'app-list-deployments',
  },
  // A Kubernetes cluster being created (its control plane and first nodes) or upgraded.
  'kubernetes-cluster': {
    request: { method: 'GET', path: '/v2/kubernetes/clusters/{ID}' },
    key: 'kubernetes_cluster',
    field: 'status.state',
    ready: 'running',
    failed: ['error', 'deleting', 'deleted'],
    id: 'uuid',
    from: 'kubernetes-cluster-list',
  },
  // A registry's garbage collection (registry-garbage-collection-start), found by its UUID among
  // the registry's collections (newest first): the platform reads one only while it runs.
  'registry-garbage-collection': {
    request: { method: 'GET', path: '/v2/registries/{Name}/garbage-collections' },
    key: 'garbage_collection',
    within: { list: 'garbage_collections', idField: 'uuid' },
    field: 'status',
    ready: 'succeeded',
    failed: ['failed', 'cancelling', 'cancelled'],
    id: 'uuid',
    from: 'registry-garbage-collection-list',
    name: 'registry-list',
  },
} as const satisfies Record<ToolWaitKind, WaitKind>;

export type WaitKindName = keyof typeof WAIT_KINDS;

/**
 * The longest wait one call may ask for, in seconds. A database cluster takes several minutes to
 * come online, so 30 minutes covers every kind with room to spare, while no single call holds a
 * host's session (and its tool-call slot) for hours; a longer wait is another call, which picks up
 * where the last one stopped.
 */
export const MAX_WAIT_SECONDS = 1800;

/** How long a wait lasts when the call gives no TimeoutSeconds. */
export const DEFAULT_WAIT_SECONDS = 300;

/**
 * How long the CLI's `--wait` waits for a kind when not told: twice what it usually takes, and
 * never less than DEFAULT_WAIT_SECONDS or more than MAX_WAIT_SECONDS (a VM 5 minutes, a database
 * or an app's deployment 10, a Kubernetes cluster 14).
 */
export function waitSecondsFor(kind: WaitKindName): number {
  return Math.min(MAX_WAIT_SECONDS, Math.max(DEFAULT_WAIT_SECONDS, 2 * TYPICAL_SECONDS[kind]));
}

/**
 * Roughly how long the platform takes to make each kind ready, in seconds, from the moment it is
 * asked: what a wait's progress is measured against, so that a host's progress bar moves across
 * its width rather than creeping along a timeout. Estimates of the usual case, not promises; a
 * wait that runs longer goes on approaching the end of the bar without reaching it.
 */
export const TYPICAL_SECONDS: Readonly<Record<WaitKindName, number>> = {
  action: 30,
  vm: 45,
  database: 300,
  'database-replica': 300,
  'load-balancer': 90,
  certificate: 60,
  image: 300,
  'vpc-peering': 60,
  // Validating a prefix brought to the platform takes longer than one wait lasts.
  'byoip-prefix': MAX_WAIT_SECONDS,
  // A build and a deploy.
  'app-deployment': 300,
  'kubernetes-cluster': 420,
  'registry-garbage-collection': 300,
};

/** Actions whose usual length differs from an action's (`TYPICAL_SECONDS.action`). */
export const TYPICAL_ACTION_SECONDS: Readonly<Record<string, number>> = {
  snapshot: 300,
  image_snapshot: 300,
  restore: 300,
  rebuild: 120,
  resize: 120,
  convert: 300,
  transfer: 300,
  power_on: 20,
  power_off: 15,
  shutdown: 30,
  reboot: 30,
  power_cycle: 30,
  attach_volume: 10,
  detach_volume: 10,
  resize_volume: 10,
  assign_ip: 10,
  unassign_ip: 10,
};

/** What progress counts to: a wait's progress is a percentage of its usual length (`progressAt`). */
export const PROGRESS_TOTAL = 100;

/**
 * The progress of a wait `elapsedSeconds` in, for one that usually takes `typicalSeconds`: 63% at
 * the usual length, 86% at twice it, and never the whole (only the end of the wait reports that).
 */
export function progressAt(elapsedSeconds: number, typicalSeconds: number): number {
  const share = 1 - Math.exp(-Math.max(0, elapsedSeconds) / typicalSeconds);
  return Math.min(99, Math.round(share * PROGRESS_TOTAL * 100) / 100);
}

/** The polling schedule: the first pause, how much each pause grows, and the longest pause. */
export const POLL = { firstMs: 1_000, growth: 1.5, maxMs: 15_000 } as const;

const realClock: ToolClock = { now: Date.now, sleep };

const kinds = Object.keys(WAIT_KINDS) as [WaitKindName, ...WaitKindName[]];
const kindsWithName = kinds.filter((kind) => (WAIT_KINDS[kind] as WaitKind).name !== undefined);
/** A replica's name as the platform takes it; never a dot segment, a slash or a control character. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

const input = z
  .strictObject({
    Kind: z.enum(kinds).describe('What to wait for.'),
    // A numeric id sent as a JSON number is taken as its text: one argument holds both id forms.
    ID: z
      .preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string().max(64))
      .describe('Action/VM/image id; UUID'),
    Name: z.string().max(63).optional().describe('Replica/registry/deploy'),
    TimeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_WAIT_SECONDS)
      .default(DEFAULT_WAIT_SECONDS)
      .describe('Give up after, seconds.'),
  })
  .superRefine((args, context) => {
    const kind: WaitKind = WAIT_KINDS[args.Kind];
    const ok = kind.id === 'numeric' ? /^[1-9]\d{0,15}$/.test(args.ID) : UUID_PATTERN.test(args.ID);
    if (!ok) {
      const expected =
        kind.id === 'numeric'
          ? `the numeric id of the ${args.Kind}`
          : `the UUID of the ${args.Kind}, such as "9cc10173-e9ea-4176-9dbc-a4cee4c4ff30"`;
      context.addIssue({
        code: 'custom',
        path: ['ID'],
        // parseArgs adds the value given.
        message: `for Kind ${args.Kind}, expected ${expected} (from ${kind.from})`,
      });
    }
    if (kind.name !== undefined && (args.Name === undefined || !NAME_PATTERN.test(args.Name))) {
      context.addIssue({
        code: 'custom',
        path: ['Name'],
        message: `for Kind ${args.Kind}, expected the name of the ${args.Kind} (from ${kind.name}): letters, digits, "_", "." and "-", starting with a letter or digit`,
      });
    } else if (kind.name === undefined && args.Name !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['Name'],
        message: `Name goes only with Kind ${kindsWithName.join(' or ')}`,
      });
    }
  });

export type WaitArgs = z.output<typeof input>;

export const waitTool = defineTool({
  name: 'wait',
  family: 'account',
  beyondSpec: true,
  title: 'Wait for an action or resource',
  description: 'Waits until an action is done or a resource (VM, DB, LB, cert...) is ready.',
  details: [
    'Ready means: action completed, vm active, database online, database-replica online, load-balancer active, certificate verified, image available, vpc-peering ACTIVE, byoip-prefix active, app-deployment ACTIVE, kubernetes-cluster running, registry-garbage-collection succeeded.',
    'A registry-garbage-collection is named by its UUID (ID) and its registry (Name).',
    'A database-replica is named by its cluster (ID, a UUID from db-cluster-list) and its Name (from db-cluster-list-replicas); an app-deployment by its app (ID, from app-list) and the deployment id as Name (from app-list-deployments).',
    'An errored action, an errored load balancer, a certificate in error, a deleted or retired image, a deleting peering, an app deployment in ERROR, CANCELED or SUPERSEDED, a Kubernetes cluster in error or being deleted, or a failed or cancelled garbage collection ends the wait with that error.',
    'A VM that is off with no action in progress on it ends the wait at once (nothing would make it active); one being powered on or booting is waited for.',
    `Polls every 1 s at first, then less often (at most every 15 s), more slowly when the API rate limit runs low. Sends progress when the caller asks for it: a percentage of how long the platform usually takes (100 when ready), with the name and status of what it waits for. TimeoutSeconds is at most ${MAX_WAIT_SECONDS}: on timeout the error shows the last state, and calling wait again resumes. Answers the resource as its get tool would.`,
  ].join(' '),
  input,
  annotations: annotations.read,
  handler: (args, context) => waitFor(args, context),
});

/**
 * Polls until the target is ready; throws WaitTimeoutError, WaitFailedError (an error state, or an
 * idle one nothing is moving it out of: a VM off with no action in progress) or CancelledError.
 * `about` names what an action works on (`volume logs`) for its progress, when the caller knows it
 * better than the action does (a volume's action names no volume).
 */
export async function waitFor(
  args: WaitArgs,
  context: ToolContext,
  about?: string,
): Promise<Record<string, unknown>> {
  const kind: WaitKind = WAIT_KINDS[args.Kind];
  const clock = context.clock ?? realClock;
  const target: WaitTarget = { kind: args.Kind, id: args.ID, ...(args.Name ? { name: args.Name } : {}) };
  const label = args.Name ? `${args.Kind} ${args.Name} of ${args.ID}` : `${args.Kind} ${args.ID}`;
  const again = `Kind ${args.Kind} and ID ${args.ID}${args.Name ? ` and Name ${args.Name}` : ''}`;
  const started = clock.now();
  const deadline = started + args.TimeoutSeconds * 1000;
  const elapsedSeconds = () => Math.max(0, clock.now() - started) / 1000;
  let pause: number = POLL.firstMs;
  let lastObserved: Record<string, unknown> | undefined;
  let lastStatus: string | undefined;
  let lastProgress = 0;
  let reported = false;
  /** What progress calls it, by name once read (`vm web-1`); the ids stay in errors, to resume by. */
  let subject: string | undefined;
  let typical: number = TYPICAL_SECONDS[args.Kind];

  const timedOut = (cause?: unknown) => {
    const waited = Math.round(elapsedSeconds());
    const seen = lastStatus === undefined ? 'no status was read yet' : `its status was ${lastStatus}`;
    const head =
      cause instanceof ApiError
        ? `Gave up after ${waited} s of ${args.TimeoutSeconds} s waiting for ${label} to be ${kind.ready}: the API asked for a longer pause than the wait had left (${cause.summary})`
        : `Timed out after ${waited} s waiting for ${label} to be ${kind.ready}`;
    return new WaitTimeoutError(
      `${head}; ${seen}. Nothing failed: call wait again with ${again} to keep waiting.`,
      { target, lastObserved, lastStatus, waitedSeconds: waited, cause },
    );
  };
  const rest = async (ms: number) => {
    try {
      await clock.sleep(ms, context.signal);
    } catch {
      throw new CancelledError();
    }
  };

  for (;;) {
    if (context.signal?.aborted) throw new CancelledError();
    // The client may wait out a short Retry-After, never past the end of this wait.
    const requestDeadline = Date.now() + Math.max(0, deadline - clock.now());
    let answer: Record<string, unknown>;
    /** Seen in its idle status with no action in progress: nothing will make it ready. */
    let idle = false;
    try {
      answer = await sendRequest<Record<string, unknown>, { ID: string; Name?: string }>(
        kind.request,
        { ID: args.ID, ...(args.Name ? { Name: args.Name } : {}) },
        context,
        {
          deadline: requestDeadline,
        },
      );
      idle =
        kind.idle !== undefined &&
        statusOf(kind, answer) === kind.idle.status &&
        !(await actionInProgress(kind.idle, args.ID, context, requestDeadline));
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        // Rate limited for longer than the client would wait: wait it out here if it fits.
        const after = Math.max(pause, (error.retryAfterSeconds ?? 0) * 1000);
        if (clock.now() + after >= deadline) throw timedOut(error);
        await rest(after);
        continue;
      }
      if (error instanceof TimeoutError && Date.now() >= requestDeadline - 1_000) throw timedOut(error);
      throw error;
    }
    if (kind.within) answer = itemOf(kind, kind.within, answer, args, target, elapsedSeconds());
    lastObserved = answer;
    lastStatus = statusOf(kind, answer);
    if (lastStatus === kind.ready) {
      // A bar that was drawn is filled: the wait is over.
      if (reported) {
        report(context, {
          progress: PROGRESS_TOTAL,
          total: PROGRESS_TOTAL,
          subject: subject ?? label,
          status: lastStatus,
          message: `${subject ?? label}: ${lastStatus} after ${Math.round(elapsedSeconds())} s`,
        });
      }
      return answer;
    }
    if (lastStatus !== undefined && kind.failed.includes(lastStatus)) {
      const named = args.Kind === 'action' ? undefined : subjectOf(args, answer);
      throw new WaitFailedError(
        `${named && named !== label ? `${named} (${label})` : label} is ${lastStatus}, an error state: it will never be ${kind.ready}, so waiting again cannot help.`,
        { target, lastObserved, lastStatus, waitedSeconds: Math.round(elapsedSeconds()) },
      );
    }
    if (idle && kind.idle) {
      const { status, advice } = kind.idle;
      throw new WaitFailedError(
        `${label} is ${status} and no action is in progress on it: it will not be ${kind.ready} by itself, so the wait ended at once. ${advice}`,
        { target, lastObserved, lastStatus: status, waitedSeconds: Math.round(elapsedSeconds()) },
      );
    }
    if (context.progress) {
      if (subject === undefined) {
        const named = await describe(args, answer, context, requestDeadline, about);
        subject = named.subject;
        typical = named.typical ?? typical;
      }
      // MCP wants each report's progress above the last one's, even two polls in the same
      // millisecond; the nudge is small enough that many polls never reach the total.
      const progress = Math.max(progressAt(elapsedSeconds(), typical), lastProgress + 0.0001);
      lastProgress = progress;
      reported = true;
      const status = lastStatus ?? 'unknown';
      report(context, {
        progress,
        total: PROGRESS_TOTAL,
        subject,
        status,
        // The give-up time too: a server may cut the TimeoutSeconds asked for (--max-wait-seconds).
        message: `${subject}: ${status} → ${kind.ready} (${Math.round(elapsedSeconds())} s, usually about ${duration(typical)}, gives up at ${args.TimeoutSeconds} s)`,
      });
    }
    const left = deadline - clock.now();
    if (left <= 0) throw timedOut();
    // A low request budget stretches the pause so that what is left lasts until the reset.
    const spacing = rateLimitSpacing(context.client.rateLimit, clock.now());
    await rest(Math.min(Math.max(pause, spacing), left));
    pause = Math.min(POLL.maxMs, Math.round(pause * POLL.growth));
  }
}

/** `45 s`, `5 min`, `30 min`. */
function duration(seconds: number): string {
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

/** The field that names a resource of each kind, where it is not `name`. */
const NAME_FIELDS: Partial<Record<WaitKindName, string>> = { 'byoip-prefix': 'prefix' };

/**
 * What an action works on, in the CLI's words, and the GET that reads its name, for the resource
 * types that have one (an IP address is its own name).
 */
const ACTION_RESOURCES: Record<
  string,
  { word: string; read?: { request: RequestMapping<{ ID: string }>; key: string } }
> = {
  droplet: { word: 'vm', read: { request: { method: 'GET', path: '/v2/droplets/{ID}' }, key: 'droplet' } },
  volume: { word: 'volume', read: { request: { method: 'GET', path: '/v2/volumes/{ID}' }, key: 'volume' } },
  image: { word: 'image', read: { request: { method: 'GET', path: '/v2/images/{ID}' }, key: 'image' } },
  floating_ip: { word: 'reserved IP' },
  reserved_ip: { word: 'reserved IP' },
  reserved_ipv6: { word: 'reserved IPv6' },
};

/**
 * How progress names what a wait is for: its kind and name (`vm web-1`, `database pg-main`), or
 * for an action, its type and what it works on (`action power_off on vm web-1`), whose name costs
 * one read, made only for a caller that listens to progress. The id stands wherever no name is to
 * be had; naming never fails the wait. An action's type also gives its usual length.
 */
async function describe(
  args: WaitArgs,
  answer: Record<string, unknown>,
  context: ToolContext,
  deadline: number,
  about: string | undefined,
): Promise<{ subject: string; typical?: number | undefined }> {
  if (args.Kind !== 'action') return { subject: subjectOf(args, answer) };
  const resource = answer[WAIT_KINDS[args.Kind].key];
  const field = (name: string) => {
    const value =
      typeof resource === 'object' && resource !== null
        ? (resource as Record<string, unknown>)[name]
        : undefined;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  };
  const type = field('type');
  const typical = type === undefined ? undefined : TYPICAL_ACTION_SECONDS[type];
  const head = `action ${type ?? args.ID}`;
  if (about) return { subject: `${head} on ${about}`, typical };
  const resourceType = field('resource_type');
  // A volume's actions name it by UUID (`resource_uuid`), their numeric `resource_id` null.
  const resourceId = field('resource_id') ?? field('resource_uuid');
  if (resourceType === undefined || resourceId === undefined) return { subject: head, typical };
  const resourceKind = ACTION_RESOURCES[resourceType];
  let name: string | undefined;
  if (resourceKind?.read) {
    try {
      const read = await sendRequest<Record<string, unknown>, { ID: string }>(
        resourceKind.read.request,
        { ID: resourceId },
        context,
        { deadline },
      );
      const found = (read[resourceKind.read.key] as Record<string, unknown> | undefined)?.name;
      if (typeof found === 'string' && found) name = found;
    } catch {
      // Gone (the action of a VM since deleted) or unreadable: its id names it well enough.
    }
  }
  const word = resourceKind?.word ?? resourceType.replace(/_/g, ' ');
  return { subject: `${head} on ${word} ${name ?? resourceId}`, typical };
}

/**
 * How a resource is named in progress and errors: its kind and name (`vm web-1`); an app's
 * deployment by its app's name, from the spec it deploys (`app shop deployment 3f2a9c1e`).
 */
function subjectOf(args: WaitArgs, answer: Record<string, unknown>): string {
  const resource = answer[WAIT_KINDS[args.Kind].key];
  const field = (path: string) => idText(valueAt(resource, path));
  if (args.Kind === 'app-deployment') {
    const app = field('spec.name') ?? args.ID;
    return `app ${app} deployment ${(args.Name ?? '').slice(0, 8)}`;
  }
  return `${args.Kind} ${args.Name ?? field(NAME_FIELDS[args.Kind] ?? 'name') ?? args.ID}`;
}

/**
 * The item of a list answer that a wait is for, wrapped as its own GET would answer it; a
 * WaitFailedError when the list does not hold it (it is not that registry's, or is gone).
 */
function itemOf(
  kind: WaitKind,
  within: NonNullable<WaitKind['within']>,
  answer: Record<string, unknown>,
  args: WaitArgs,
  target: WaitTarget,
  waited: number,
): Record<string, unknown> {
  const items = answer[within.list];
  const item = Array.isArray(items)
    ? items.find((each) => typeof each === 'object' && each !== null && each[within.idField] === args.ID)
    : undefined;
  if (item === undefined) {
    throw new WaitFailedError(
      `${args.Kind} ${args.ID} is not among the newest of ${args.Name ?? 'its parent'} (from ${kind.from}): there is nothing to wait for.`,
      { target, lastObserved: answer, lastStatus: 'absent', waitedSeconds: Math.round(waited) },
    );
  }
  return { [kind.key]: item };
}

/** The status (or state) an answer shows, or undefined when it holds none. */
function statusOf(kind: WaitKind, answer: Record<string, unknown>): string | undefined {
  return statusIn(kind, answer[kind.key]);
}

/** The status a resource shows, at its kind's field (a dotted path), or undefined. */
function statusIn(kind: WaitKind, resource: unknown): string | undefined {
  const value = valueAt(resource, kind.field);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The newest actions read to see whether one is in progress. The platform runs one action at a
 * time on a resource ("already has a pending event"), and lists the newest first.
 */
const RECENT_ACTIONS = 20;

/** Whether an action on the resource is still in progress: what may yet move it out of idle. */
async function actionInProgress(
  idle: NonNullable<WaitKind['idle']>,
  id: string,
  context: ToolContext,
  deadline: number,
): Promise<boolean> {
  const answer = await sendRequest<{ actions?: unknown }, { ID: string; PerPage: number }>(
    idle.actions,
    { ID: id, PerPage: RECENT_ACTIONS },
    context,
    { deadline },
  );
  const actions = Array.isArray(answer.actions) ? answer.actions : [];
  return actions.some(
    (action) => typeof action === 'object' && action !== null && action.status === 'in-progress',
  );
}

/** Passes a report on; a listener that throws never ends the wait. */
function report(context: ToolContext, update: ToolProgress): void {
  try {
    context.progress?.(update);
  } catch {
    // Progress is advisory.
  }
}

/** One thing to wait for: its id, and the name that completes it for a database-replica. */
export interface WaitTargetArgs {
  ID: string;
  Name?: string;
}

/**
 * What a tool's answer yields to wait for, as the tool's `wait` field says: the answer's resource
 * (`droplet.id`, `action.id`...), each of its `actions` for a tool that starts several, the
 * answer's own `idField` (`{ uuid, status }`), or the arguments `idArgument` (and `nameArgument`)
 * when the answer holds none; `idPaths` and `namePaths` read a parent's id and the thing's own
 * where the answer holds them (an app's id and its new deployment's).
 */
export function waitTargets(
  wait: ToolWait,
  args: Record<string, unknown>,
  result: unknown,
): WaitTargetArgs[] {
  if (wait.idArgument !== undefined || wait.idPaths !== undefined) {
    const id =
      wait.idArgument !== undefined ? idText(args[wait.idArgument]) : firstAt(result, wait.idPaths ?? []);
    if (id === undefined) return [];
    if (wait.namePaths !== undefined) {
      const name = firstAt(result, wait.namePaths);
      return name === undefined ? [] : [{ ID: id, Name: name }];
    }
    if (wait.nameArgument === undefined) return [{ ID: id }];
    const name = idText(args[wait.nameArgument]);
    return name === undefined ? [] : [{ ID: id, Name: name }];
  }
  const name = wait.nameArgument === undefined ? undefined : idText(args[wait.nameArgument]);
  if (wait.nameArgument !== undefined && name === undefined) return [];
  return answerResources(wait, result).flatMap((resource) => {
    const id = idText(resource[resourceIdField(wait)]);
    return id === undefined ? [] : [name === undefined ? { ID: id } : { ID: id, Name: name }];
  });
}

/**
 * The `wait` calls that would block until what a tool's answer started is ready: one per target
 * (see `waitTargets`) that the answer does not already show as ready. For an agent, the arguments
 * to pass next; empty when there is nothing to wait for.
 */
export function pendingWaits(
  wait: ToolWait,
  args: Record<string, unknown>,
  result: unknown,
): ({ Kind: ToolWait['kind'] } & WaitTargetArgs)[] {
  const kind: WaitKind = WAIT_KINDS[wait.kind];
  const ready = new Set(
    answerResources(wait, result)
      .filter((resource) => statusIn(kind, resource) === kind.ready)
      .map((resource) => idText(resource[resourceIdField(wait)])),
  );
  return waitTargets(wait, args, result)
    .filter((target) => target.Name !== undefined || !ready.has(target.ID))
    .map((target) => ({ Kind: wait.kind, ...target }));
}

/** The field of an answer's resource that holds its id: `id`, or as the kind or tool says. */
function resourceIdField(wait: ToolWait): string {
  return wait.idField ?? (WAIT_KINDS[wait.kind] as WaitKind).within?.idField ?? 'id';
}

/**
 * The resources a tool's answer shows: the answer itself when it is not wrapped (`idField`), else
 * its resource (`droplet`) or each of several (`actions`).
 */
function answerResources(wait: ToolWait, result: unknown): Record<string, unknown>[] {
  const answer = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  if (wait.idField !== undefined) return [answer];
  const key = WAIT_KINDS[wait.kind].key;
  const many = answer[`${key}s`];
  const found = Array.isArray(many) ? many : [answer[key]];
  return found.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

/**
 * The context for the `index`th of `count` waits in a row: its progress reported as that share of
 * one bar, so that the whole goes from 0 to the total once, never back.
 */
function shareOfProgress(context: ToolContext, index: number, count: number): ToolContext {
  const { progress } = context;
  if (!progress || count === 1) return context;
  return {
    ...context,
    progress: (update) =>
      progress({
        ...update,
        progress: (index * PROGRESS_TOTAL + update.progress) / count,
        message: `${index + 1} of ${count}: ${update.message}`,
      }),
  };
}

/** The first of the dotted paths into `value` that holds an id. */
function firstAt(value: unknown, paths: readonly string[]): string | undefined {
  for (const path of paths) {
    const id = idText(valueAt(value, path));
    if (id !== undefined) return id;
  }
  return undefined;
}

/** What a dotted path (`status.state`, `app.pending_deployment.id`) reaches in `value`. */
function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function idText(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/**
 * Waits for what a tool's answer yields (see `waitTargets`), all within `timeoutSeconds`, and answers
 * as `wait` does: the ready resource, or `{ actions: [...] }` for several actions.
 */
export async function waitAfter(
  wait: ToolWait,
  args: Record<string, unknown>,
  result: unknown,
  context: ToolContext,
  timeoutSeconds: number,
  /** What the tool worked on, as the caller names it (`volume logs`): see `waitFor`. */
  about?: string,
): Promise<unknown> {
  const targets = waitTargets(wait, args, result);
  if (targets.length === 0) return result;
  return waitForTargets(wait.kind, targets, context, timeoutSeconds, about);
}

/**
 * Waits for each of `targets` of one kind in turn, all within `timeoutSeconds`, with one progress
 * bar for the whole, and answers as `wait` does: the ready resource, or `{ actions: [...] }` for
 * several. `waitAfter` once it has the targets; also what picks up a wait whose targets were
 * recorded earlier (the MCP server's tasks, on another replica).
 */
export async function waitForTargets(
  kind: WaitKindName,
  targets: readonly WaitTargetArgs[],
  context: ToolContext,
  timeoutSeconds: number,
  about?: string,
): Promise<Record<string, unknown>> {
  const clock = context.clock ?? realClock;
  const deadline = clock.now() + timeoutSeconds * 1000;
  const answers: Record<string, unknown>[] = [];
  let shown = 0;
  const share = {
    ...context,
    progress:
      context.progress &&
      ((update: ToolProgress) => {
        shown = update.progress;
        context.progress?.(update);
      }),
  };
  for (const [index, target] of targets.entries()) {
    const left = Math.max(1, Math.ceil((deadline - clock.now()) / 1000));
    answers.push(
      await waitFor(
        { Kind: kind, ...target, TimeoutSeconds: left },
        shareOfProgress(share, index, targets.length),
        about,
      ),
    );
  }
  // The last ones were ready at once, with no report of their own: the bar is filled all the same.
  if (shown > 0 && shown < PROGRESS_TOTAL) {
    const ready = WAIT_KINDS[kind].ready;
    const subject = `${targets.length} ${kind}s`;
    report(context, {
      progress: PROGRESS_TOTAL,
      total: PROGRESS_TOTAL,
      subject,
      status: ready,
      message: `${subject}: ${ready}`,
    });
  }
  const key = WAIT_KINDS[kind].key;
  return answers.length === 1
    ? (answers[0] as Record<string, unknown>)
    : { [`${key}s`]: answers.map((answer) => answer[key]) };
}
