/**
 * Functions: namespaces (by region, with a label unique in the account), their scheduled triggers
 * and their access keys. A namespace is named in paths by its `fn-` id. A trigger runs its function
 * on a cron schedule while enabled: `scheduled_runs` is derived from the cron expression and the
 * sandbox clock (the last run at or before now since the schedule was last set or enabled, the next
 * one after now), so a client that advances the clock sees runs come and go. An access key's secret
 * is shown once, in the answer that creates it. Deleting a namespace deletes its triggers and keys.
 *
 * The platform's error ids as its examples give them: a missing or malformed field is a 400
 * (`bad_request`), a namespace or trigger that is not there a 404 (`namespace not found`,
 * `trigger not found`), a name taken a 409.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { StoredAccessKey, StoredNamespace, StoredTrigger } from '../families/functions.js';
import { badRequest, HttpError, notFound, type Route, type SandboxRequest, unprocessable } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { type Cron, lastRun, nextRun, parseCron } from './functions-cron.js';

/** The regions Functions runs in (`doctl serverless namespaces list-regions`). */
export const FUNCTIONS_REGIONS = ['ams3', 'blr1', 'fra1', 'lon1', 'nyc1', 'sfo3', 'sgp1', 'syd1', 'tor1'];

/** A trigger's name: letters, digits, `-`, `_` and `.`, at most 128 characters. */
const TRIGGER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/;
/** A function as a namespace names it: `function` or `package/function`. */
const FUNCTION_NAME = /^[a-zA-Z0-9_][a-zA-Z0-9_.@ -]*(\/[a-zA-Z0-9_][a-zA-Z0-9_.@ -]*)?$/;
/** An access key's lifetime: `<int>h` or `<int>d`, at least an hour. */
const EXPIRES_IN = /^([1-9]\d{0,5})([hd])$/;

const conflict = (message: string) => new HttpError(409, 'conflict', message);

function namespaceView(ns: StoredNamespace) {
  return {
    api_host: ns.api_host,
    namespace: ns.namespace,
    created_at: iso(ns.created_ms),
    updated_at: iso(ns.updated_ms),
    label: ns.label,
    region: ns.region,
    uuid: ns.uuid,
    key: ns.key,
  };
}

const cronOf = (trigger: StoredTrigger): Cron => parseCron(trigger.cron);

/** The last run of a trigger at `now`: on its current schedule if it has run on it, else before. */
function lastRunOf(trigger: StoredTrigger, now: number): number | null {
  const current =
    trigger.running_since_ms === null ? null : lastRun(cronOf(trigger), now, trigger.running_since_ms);
  return current ?? trigger.last_run_ms;
}

function triggerView(trigger: StoredTrigger, now: number) {
  const last = lastRunOf(trigger, now);
  const next = trigger.is_enabled ? nextRun(cronOf(trigger), now) : null;
  return {
    namespace: trigger.namespace,
    name: trigger.name,
    function: trigger.function,
    type: trigger.type,
    is_enabled: trigger.is_enabled,
    created_at: iso(trigger.created_ms),
    updated_at: iso(trigger.updated_ms),
    scheduled_details: { cron: trigger.cron, body: trigger.body === null ? null : { ...trigger.body } },
    scheduled_runs: {
      last_run_at: last === null ? null : iso(last),
      next_run_at: next === null ? null : iso(next),
    },
  };
}

function accessKeyView(key: StoredAccessKey) {
  return {
    id: key.id,
    name: key.name,
    expires_at: key.expires_ms === null ? null : iso(key.expires_ms),
    created_at: iso(key.created_ms),
    updated_at: iso(key.updated_ms),
  };
}

function findNamespace(world: World, req: SandboxRequest): StoredNamespace {
  const ns = world.functionNamespaces.find((n) => n.namespace === req.params.namespace);
  if (!ns) throw notFound('namespace not found');
  return ns;
}

function findTrigger(world: World, req: SandboxRequest): StoredTrigger {
  const ns = findNamespace(world, req);
  const trigger = world.functionTriggers.find(
    (t) => t.namespace === ns.namespace && t.name === req.params.trigger,
  );
  if (!trigger) throw notFound('trigger not found');
  return trigger;
}

function findKey(world: World, req: SandboxRequest): StoredAccessKey {
  const ns = findNamespace(world, req);
  const key = world.functionAccessKeys.find((k) => k.namespace === ns.namespace && k.id === req.params.key);
  if (!key) throw notFound('access key not found');
  return key;
}

/** The `scheduled_details` of a request: a valid cron expression, and an optional body object. */
function scheduledDetails(
  value: unknown,
  context: string,
): { cron: string; body: Record<string, unknown> | null } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`${context}: validation error: missing source details`);
  }
  const { cron, body } = value as Record<string, unknown>;
  if (typeof cron !== 'string' || cron.trim() === '') {
    throw badRequest(`${context}: validation error: missing cron expression`);
  }
  try {
    parseCron(cron);
  } catch (error) {
    throw badRequest(`${context}: validation error: invalid cron expression: ${(error as Error).message}`);
  }
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw badRequest(`${context}: validation error: body must be an object`);
  }
  return { cron: cron.trim(), body: (body as Record<string, unknown> | null | undefined) ?? null };
}

/** Folds the runs of the trigger's schedule so far into `last_run_ms` before it changes. */
function closeSchedule(trigger: StoredTrigger, now: number): void {
  trigger.last_run_ms = lastRunOf(trigger, now);
  trigger.running_since_ms = null;
}

export const functionsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/functions/namespaces',
    handler: (_req, world) => ({ body: { namespaces: world.functionNamespaces.map(namespaceView) } }),
  },
  {
    method: 'POST',
    path: '/v2/functions/namespaces',
    handler: (req, world) => {
      const { region, label } = req.body;
      if (typeof label !== 'string' || label.trim() === '')
        throw badRequest('Invalid request payload: missing label field');
      if (typeof region !== 'string' || region === '')
        throw badRequest('Invalid request payload: missing region field');
      if (!FUNCTIONS_REGIONS.includes(region)) {
        throw unprocessable(
          `region ${JSON.stringify(region)} does not run Functions; use one of ${FUNCTIONS_REGIONS.join(', ')}`,
        );
      }
      if (world.functionNamespaces.some((n) => n.label === label)) {
        throw unprocessable(`a namespace labelled ${JSON.stringify(label)} already exists`);
      }
      const uuid = randomUUID();
      const host = createHash('sha256').update(uuid).digest('hex').slice(0, 8);
      const ns: StoredNamespace = {
        namespace: `fn-${uuid}`,
        uuid,
        label,
        region,
        api_host: `https://faas-${region}-${host}.doserverless.co`,
        key: randomBytes(48)
          .toString('base64url')
          .toLowerCase()
          .replace(/[^a-z0-9]/g, '')
          .slice(0, 64),
        created_ms: req.now,
        updated_ms: req.now,
      };
      world.functionNamespaces.push(ns);
      return { body: { namespace: namespaceView(ns) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/functions/namespaces/{namespace}',
    handler: (req, world) => ({ body: { namespace: namespaceView(findNamespace(world, req)) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/functions/namespaces/{namespace}',
    handler: (req, world) => {
      const ns = findNamespace(world, req).namespace;
      world.functionNamespaces = world.functionNamespaces.filter((n) => n.namespace !== ns);
      world.functionTriggers = world.functionTriggers.filter((t) => t.namespace !== ns);
      world.functionAccessKeys = world.functionAccessKeys.filter((k) => k.namespace !== ns);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/functions/namespaces/{namespace}/triggers',
    handler: (req, world) => {
      const ns = findNamespace(world, req).namespace;
      const triggers = world.functionTriggers
        .filter((t) => t.namespace === ns)
        .map((t) => triggerView(t, req.now));
      return { body: { triggers } };
    },
  },
  {
    method: 'POST',
    path: '/v2/functions/namespaces/{namespace}/triggers',
    handler: (req, world) => {
      const ns = findNamespace(world, req).namespace;
      const { name, function: fn, type, is_enabled: enabled } = req.body;
      const missing = [
        typeof name === 'string' && name !== '' ? undefined : 'missing trigger name',
        typeof fn === 'string' && fn !== '' ? undefined : 'missing function name',
        req.body.scheduled_details == null ? 'missing source details' : undefined,
      ].filter((problem) => problem !== undefined);
      if (missing.length)
        throw badRequest(`validating create trigger: validation error: ${missing.join(', ')}`);
      if (!TRIGGER_NAME.test(name as string)) {
        throw badRequest(
          'validating create trigger: validation error: the trigger name may hold letters, digits, "-", "_" and "." (at most 128)',
        );
      }
      if (!FUNCTION_NAME.test(fn as string)) {
        throw badRequest(
          'validating create trigger: validation error: the function is named "function" or "package/function"',
        );
      }
      if (type !== 'SCHEDULED') {
        throw badRequest(
          `validating create trigger: validation error: type must be SCHEDULED (the only trigger type); got ${JSON.stringify(type)}`,
        );
      }
      if (typeof enabled !== 'boolean') {
        throw badRequest('validating create trigger: validation error: is_enabled must be a boolean');
      }
      const details = scheduledDetails(req.body.scheduled_details, 'validating create trigger');
      if (world.functionTriggers.some((t) => t.namespace === ns && t.name === name)) {
        throw conflict(`a trigger named ${JSON.stringify(name)} already exists in the namespace`);
      }
      const trigger: StoredTrigger = {
        namespace: ns,
        name: name as string,
        function: fn as string,
        type: 'SCHEDULED',
        is_enabled: enabled,
        cron: details.cron,
        body: details.body,
        created_ms: req.now,
        updated_ms: req.now,
        running_since_ms: enabled ? req.now : null,
        last_run_ms: null,
      };
      world.functionTriggers.push(trigger);
      return { body: { trigger: triggerView(trigger, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/functions/namespaces/{namespace}/triggers/{trigger}',
    handler: (req, world) => ({ body: { trigger: triggerView(findTrigger(world, req), req.now) } }),
  },
  {
    method: 'PUT',
    path: '/v2/functions/namespaces/{namespace}/triggers/{trigger}',
    handler: (req, world) => {
      const trigger = findTrigger(world, req);
      const { is_enabled: enabled, scheduled_details: given } = req.body;
      if (enabled !== undefined && typeof enabled !== 'boolean') {
        throw badRequest('validating update trigger: validation error: is_enabled must be a boolean');
      }
      const details = given === undefined ? undefined : scheduledDetails(given, 'validating update trigger');
      const nowEnabled = enabled ?? trigger.is_enabled;
      const rescheduled = details !== undefined && details.cron !== trigger.cron;
      if (rescheduled || nowEnabled !== trigger.is_enabled) {
        closeSchedule(trigger, req.now);
        trigger.running_since_ms = nowEnabled ? req.now : null;
      }
      trigger.is_enabled = nowEnabled;
      if (details) {
        trigger.cron = details.cron;
        trigger.body = details.body;
      }
      trigger.updated_ms = req.now;
      return { body: { trigger: triggerView(trigger, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/functions/namespaces/{namespace}/triggers/{trigger}',
    handler: (req, world) => {
      const { namespace, name } = findTrigger(world, req);
      world.functionTriggers = world.functionTriggers.filter(
        (t) => !(t.namespace === namespace && t.name === name),
      );
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/functions/namespaces/{namespace}/keys',
    handler: (req, world) => {
      const ns = findNamespace(world, req).namespace;
      const keys = world.functionAccessKeys.filter((k) => k.namespace === ns).map(accessKeyView);
      return { body: { access_keys: keys, count: keys.length } };
    },
  },
  {
    method: 'POST',
    path: '/v2/functions/namespaces/{namespace}/keys',
    handler: (req, world) => {
      const ns = findNamespace(world, req).namespace;
      const name = keyName(req.body);
      if (world.functionAccessKeys.some((k) => k.namespace === ns && k.name === name)) {
        throw conflict(`the namespace already has an access key named ${JSON.stringify(name)}`);
      }
      let expires: number | null = null;
      const expiresIn = req.body.expires_in;
      if (expiresIn !== undefined && expiresIn !== null && expiresIn !== '') {
        const match = typeof expiresIn === 'string' ? EXPIRES_IN.exec(expiresIn) : null;
        if (!match) {
          throw badRequest(
            `expires_in must be a duration such as 12h or 7d (hours or days, at least 1h); got ${JSON.stringify(expiresIn)}`,
          );
        }
        expires = req.now + Number(match[1]) * (match[2] === 'h' ? 3_600_000 : 86_400_000);
      }
      const key: StoredAccessKey = {
        id: `dof_v1_${randomBytes(16).toString('hex')}`,
        namespace: ns,
        name,
        created_ms: req.now,
        updated_ms: req.now,
        expires_ms: expires,
      };
      world.functionAccessKeys.push(key);
      // The secret is shown here only: the sandbox keeps no copy of it.
      const secret = randomBytes(32).toString('base64url');
      return { status: 201, body: { access_key: { ...accessKeyView(key), secret } } };
    },
  },
  {
    method: 'PUT',
    path: '/v2/functions/namespaces/{namespace}/keys/{key}',
    handler: (req, world) => {
      const key = findKey(world, req);
      const name = keyName(req.body);
      if (
        world.functionAccessKeys.some(
          (k) => k.namespace === key.namespace && k.id !== key.id && k.name === name,
        )
      ) {
        throw conflict(`the namespace already has an access key named ${JSON.stringify(name)}`);
      }
      key.name = name;
      key.updated_ms = req.now;
      return { body: { access_key: accessKeyView(key) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/functions/namespaces/{namespace}/keys/{key}',
    handler: (req, world) => {
      const { id } = findKey(world, req);
      world.functionAccessKeys = world.functionAccessKeys.filter((k) => k.id !== id);
      return { body: {} };
    },
  },
];

function keyName(body: Record<string, unknown>): string {
  const name = body.name;
  if (typeof name !== 'string' || name.trim() === '')
    throw badRequest('Invalid request payload: missing name field');
  return name;
}
