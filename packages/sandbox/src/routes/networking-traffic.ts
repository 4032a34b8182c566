/** Firewalls and load balancers: what sits in front of VMs. */

import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import {
  FORWARDING_RULE_ENTRY_PROTOCOL,
  FORWARDING_RULE_TARGET_PROTOCOL,
  GLB_SETTINGS_TARGET_PROTOCOL,
  HEALTH_CHECK_PROTOCOL,
  LOAD_BALANCER_BASE_TYPE,
} from '@cloudcall/platform';
import {
  allocateAddress,
  type ForwardingRule,
  type LoadBalancerAlgorithm,
  type LoadBalancerSettings,
  type LoadBalancerType,
  POOLS,
  parseCidr,
  type RuleTarget,
  ready,
  type StoredFirewall,
  type StoredLoadBalancer,
  type StoredRule,
} from '../families/networking.js';
import { listBody, type Route, requireString, type SandboxRequest, unprocessable } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import {
  findOr404,
  liveDropletIds,
  regionView,
  requireDropletIds,
  requirePort,
  requireRegion,
  requireTags,
  vpcFor,
} from './networking-common.js';
import { assignToProject, dropFromProject, projectForCreate, projectOf } from './projects.js';
import { findDroplet } from './vms.js';

// ---------------------------------------------------------------- firewalls

const FIREWALL_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]+$/;
const PORTS = /^(\d{1,5})(?:-(\d{1,5}))?$/;

function checkPorts(ports: unknown, protocol: string, field: string): string {
  if (protocol === 'icmp' && (ports === undefined || ports === '')) return '0';
  if (typeof ports !== 'string') throw unprocessable(`${field}.ports is required for ${protocol} rules`);
  if (ports === 'all' || ports === '0') return ports;
  const match = PORTS.exec(ports);
  const low = Number(match?.[1]);
  const high = match?.[2] === undefined ? low : Number(match[2]);
  if (!match || low < 1 || high > 65535 || low > high) {
    throw unprocessable(
      `${field}.ports must be a port, a range such as 8000-9000, or all; got ${JSON.stringify(ports)}`,
    );
  }
  return ports;
}

const isAddress = (value: string) => isIP(value) !== 0 || parseCidr(value) !== undefined;

function checkTarget(world: World, value: unknown, field: string): RuleTarget {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw unprocessable(`${field} is required`);
  const raw = value as Record<string, unknown>;
  const target: RuleTarget = {};
  if (raw.addresses !== undefined) {
    if (!Array.isArray(raw.addresses)) throw unprocessable(`${field}.addresses must be an array`);
    for (const address of raw.addresses) {
      if (typeof address !== 'string' || !isAddress(address)) {
        throw unprocessable(
          `${field}.addresses: ${JSON.stringify(address)} is not an IP address or CIDR block`,
        );
      }
    }
    if (raw.addresses.length) target.addresses = raw.addresses as string[];
  }
  // An empty list names nothing and is left out. The API description sets no minItems on a
  // target's lists, and clients that send every list of a target (issue 25: two Python clients send
  // `"droplet_ids": [], "tags": []` beside `addresses`) get them accepted by the platform; godo
  // leaves them out with omitempty, which means the same. A rule must still name something (below).
  const given = (list: unknown) =>
    list !== undefined && list !== null && !(Array.isArray(list) && !list.length);
  if (given(raw.droplet_ids))
    target.droplet_ids = requireDropletIds(world, raw.droplet_ids, `${field}.droplet_ids`);
  if (given(raw.tags)) target.tags = requireTags(raw.tags, `${field}.tags`);
  if (given(raw.load_balancer_uids)) {
    if (!Array.isArray(raw.load_balancer_uids))
      throw unprocessable(`${field}.load_balancer_uids must be an array`);
    for (const id of raw.load_balancer_uids) {
      if (!world.loadBalancers.some((lb) => lb.id === id)) {
        throw unprocessable(
          `${field}.load_balancer_uids: load balancer ${JSON.stringify(id)} does not exist`,
        );
      }
    }
    target.load_balancer_uids = raw.load_balancer_uids as string[];
  }
  if (!target.addresses && !target.droplet_ids && !target.tags && !target.load_balancer_uids) {
    throw unprocessable(`${field} must name at least one address, droplet, tag or load balancer`);
  }
  return target;
}

function checkRules(
  world: World,
  value: unknown,
  field: string,
  direction: 'sources' | 'destinations',
): StoredRule[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw unprocessable(`${field} must be an array of rules`);
  return value.map((raw, index) => {
    const at = `${field}[${index}]`;
    if (raw === null || typeof raw !== 'object') throw unprocessable(`${at} must be a rule object`);
    const rule = raw as Record<string, unknown>;
    const protocol = rule.protocol;
    if (protocol !== 'tcp' && protocol !== 'udp' && protocol !== 'icmp') {
      throw unprocessable(`${at}.protocol must be tcp, udp or icmp`);
    }
    return {
      protocol,
      ports: checkPorts(rule.ports, protocol, at),
      target: checkTarget(world, rule[direction], `${at}.${direction}`),
    };
  });
}

/** A rule's identity, for de-duplication and removal. */
const ruleKey = (rule: StoredRule) =>
  JSON.stringify([
    rule.protocol,
    rule.ports,
    [...(rule.target.addresses ?? [])].sort(),
    [...(rule.target.droplet_ids ?? [])].sort(),
    [...(rule.target.tags ?? [])].sort(),
    [...(rule.target.load_balancer_uids ?? [])].sort(),
  ]);

const targetView = (world: World, target: RuleTarget) => ({
  ...target,
  ...(target.droplet_ids ? { droplet_ids: liveDropletIds(world, target.droplet_ids) } : {}),
});

function firewallView(world: World, fw: StoredFirewall, now: number) {
  const settled = ready(fw.changed_ms, now);
  const dropletIds = liveDropletIds(world, fw.droplet_ids);
  return {
    id: fw.id,
    name: fw.name,
    status: settled ? 'succeeded' : 'waiting',
    inbound_rules: fw.inbound.map((r) => ({
      protocol: r.protocol,
      ports: r.ports,
      sources: targetView(world, r.target),
    })),
    outbound_rules: fw.outbound.map((r) => ({
      protocol: r.protocol,
      ports: r.ports,
      destinations: targetView(world, r.target),
    })),
    created_at: iso(fw.created_ms),
    droplet_ids: dropletIds,
    tags: fw.tags,
    pending_changes: settled
      ? []
      : dropletIds.map((id) => ({ droplet_id: id, removing: false, status: 'waiting' })),
  };
}

/** What a create or a full update sets, checked as the platform checks it. */
function firewallSettings(world: World, body: Record<string, unknown>) {
  const name = requireString(body, 'name');
  if (!FIREWALL_NAME.test(name)) throw unprocessable('name must use letters, digits, "." and "-"');
  const inbound: StoredRule[] = [];
  const outbound: StoredRule[] = [];
  addUnique(inbound, checkRules(world, body.inbound_rules, 'inbound_rules', 'sources'), ruleKey);
  addUnique(outbound, checkRules(world, body.outbound_rules, 'outbound_rules', 'destinations'), ruleKey);
  const dropletIds =
    body.droplet_ids == null
      ? []
      : requireDropletIds(world, body.droplet_ids, 'droplet_ids', null, { allowEmpty: true });
  const noTags = body.tags == null || (Array.isArray(body.tags) && body.tags.length === 0);
  const tags = noTags ? [] : requireTags(body.tags, 'tags');
  return { name, inbound, outbound, droplet_ids: dropletIds, tags };
}

const findFirewall = (world: World, req: SandboxRequest) =>
  findOr404(world.firewalls, (fw) => fw.id === req.params.id);

function addUnique<T>(list: T[], items: T[], key: (item: T) => string = String): void {
  for (const item of items) if (!list.some((existing) => key(existing) === key(item))) list.push(item);
}

const firewallRoutes: Route[] = [
  {
    // The firewalls that apply to one VM: by its id or by one of its tags (godo's
    // `Droplets.Firewalls`, doctl's `compute droplet` firewall listing).
    method: 'GET',
    path: '/v2/droplets/{id}/firewalls',
    handler: (req, world) => {
      const droplet = findDroplet(world, req);
      const applies = (fw: StoredFirewall) =>
        fw.droplet_ids.includes(droplet.id) || fw.tags.some((tag) => droplet.tags.includes(tag));
      return {
        body: listBody('firewalls', world.firewalls.filter(applies), req, (fw) =>
          firewallView(world, fw, req.now),
        ),
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/firewalls',
    handler: (req, world) => ({
      body: listBody('firewalls', world.firewalls, req, (fw) => firewallView(world, fw, req.now)),
    }),
  },
  {
    method: 'POST',
    path: '/v2/firewalls',
    handler: (req, world) => {
      const fw: StoredFirewall = {
        id: randomUUID(),
        ...firewallSettings(world, req.body),
        created_ms: req.now,
        changed_ms: req.now,
      };
      world.firewalls.push(fw);
      return { status: 202, body: { firewall: firewallView(world, fw, req.now) } };
    },
  },
  {
    method: 'PUT',
    path: '/v2/firewalls/{id}',
    handler: (req, world) => {
      const fw = findFirewall(world, req);
      // A full update: what the body leaves out (rules of a direction, VMs, tags) is removed.
      const settings = firewallSettings(world, req.body);
      if (req.body.inbound_rules == null && req.body.outbound_rules == null) {
        throw unprocessable('inbound_rules or outbound_rules is required');
      }
      Object.assign(fw, settings, { changed_ms: req.now });
      return { body: { firewall: firewallView(world, fw, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/firewalls/{id}',
    handler: (req, world) => ({ body: { firewall: firewallView(world, findFirewall(world, req), req.now) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/firewalls/{id}',
    handler: (req, world) => {
      const fw = findFirewall(world, req);
      world.firewalls = world.firewalls.filter((f) => f !== fw);
      return { status: 204 };
    },
  },
  ...(['POST', 'DELETE'] as const).flatMap((method): Route[] => {
    const adding = method === 'POST';
    return [
      {
        method,
        path: '/v2/firewalls/{id}/tags',
        handler: (req, world) => {
          const fw = findFirewall(world, req);
          const tags = requireTags(req.body.tags, 'tags');
          fw.tags = adding ? [...new Set([...fw.tags, ...tags])] : fw.tags.filter((t) => !tags.includes(t));
          fw.changed_ms = req.now;
          return { status: 204 };
        },
      },
      {
        method,
        path: '/v2/firewalls/{id}/droplets',
        handler: (req, world) => {
          const fw = findFirewall(world, req);
          const ids = requireDropletIds(world, req.body.droplet_ids, 'droplet_ids');
          fw.droplet_ids = adding
            ? [...new Set([...fw.droplet_ids, ...ids])]
            : fw.droplet_ids.filter((id) => !ids.includes(id));
          fw.changed_ms = req.now;
          return { status: 204 };
        },
      },
      {
        method,
        path: '/v2/firewalls/{id}/rules',
        handler: (req, world) => {
          const fw = findFirewall(world, req);
          const inbound = checkRules(world, req.body.inbound_rules, 'inbound_rules', 'sources');
          const outbound = checkRules(world, req.body.outbound_rules, 'outbound_rules', 'destinations');
          if (!inbound.length && !outbound.length)
            throw unprocessable('inbound_rules or outbound_rules is required');
          if (adding) {
            addUnique(fw.inbound, inbound, ruleKey);
            addUnique(fw.outbound, outbound, ruleKey);
          } else {
            const remove = (set: StoredRule[], rules: StoredRule[], field: string) => {
              rules.forEach((rule, index) => {
                if (!set.some((r) => ruleKey(r) === ruleKey(rule))) {
                  throw unprocessable(`${field}[${index}] does not match a rule of the firewall`);
                }
              });
              const keys = new Set(rules.map(ruleKey));
              return set.filter((r) => !keys.has(ruleKey(r)));
            };
            fw.inbound = remove(fw.inbound, inbound, 'inbound_rules');
            fw.outbound = remove(fw.outbound, outbound, 'outbound_rules');
          }
          fw.changed_ms = req.now;
          return { status: 204 };
        },
      },
    ];
  }),
];

// ---------------------------------------------------------------- load balancers

const LB_TYPES: readonly string[] = LOAD_BALANCER_BASE_TYPE;
const ENTRY_PROTOCOLS: readonly string[] = FORWARDING_RULE_ENTRY_PROTOCOL;
const TARGET_PROTOCOLS: readonly string[] = FORWARDING_RULE_TARGET_PROTOCOL;
const LB_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]{0,254}$/;
/** The node count each of the older `size` slugs stands for. */
const LB_SIZES: Record<string, number> = { 'lb-small': 1, 'lb-medium': 3, 'lb-large': 6 };

function checkForwardingRules(
  world: World,
  value: unknown,
  type: LoadBalancerType,
  field = 'forwarding_rules',
): ForwardingRule[] {
  if (!Array.isArray(value) || value.length === 0)
    throw unprocessable(`${field} must be a non-empty array of rules`);
  const rules = value.map((raw, index): ForwardingRule => {
    const at = `${field}[${index}]`;
    if (raw === null || typeof raw !== 'object') throw unprocessable(`${at} must be a rule object`);
    const rule = raw as Record<string, unknown>;
    if (!ENTRY_PROTOCOLS.includes(String(rule.entry_protocol))) {
      throw unprocessable(`${at}.entry_protocol must be one of ${ENTRY_PROTOCOLS.join(', ')}`);
    }
    if (!TARGET_PROTOCOLS.includes(String(rule.target_protocol))) {
      throw unprocessable(`${at}.target_protocol must be one of ${TARGET_PROTOCOLS.join(', ')}`);
    }
    if (
      type === 'REGIONAL_NETWORK' &&
      (!['tcp', 'udp'].includes(String(rule.entry_protocol)) ||
        !['tcp', 'udp'].includes(String(rule.target_protocol)))
    ) {
      throw unprocessable(`${at}: a REGIONAL_NETWORK load balancer forwards tcp and udp only`);
    }
    if (rule.tls_passthrough !== undefined && typeof rule.tls_passthrough !== 'boolean') {
      throw unprocessable(`${at}.tls_passthrough must be a boolean`);
    }
    if (rule.tls_passthrough === true && rule.entry_protocol !== 'https') {
      throw unprocessable(`${at}.tls_passthrough needs an https entry_protocol`);
    }
    const certificate = rule.certificate_id;
    if (certificate !== undefined && certificate !== null && certificate !== '') {
      if (typeof certificate !== 'string' || !world.certificates.some((c) => c.id === certificate)) {
        throw unprocessable(
          `${at}.certificate_id: certificate ${JSON.stringify(certificate)} does not exist`,
        );
      }
      if (rule.tls_passthrough === true) {
        throw unprocessable(`${at}: give certificate_id or tls_passthrough, not both`);
      }
    }
    return {
      entry_protocol: String(rule.entry_protocol),
      entry_port: requirePort(rule.entry_port, `${at}.entry_port`),
      target_protocol: String(rule.target_protocol),
      target_port: requirePort(rule.target_port, `${at}.target_port`),
      ...(typeof rule.tls_passthrough === 'boolean' ? { tls_passthrough: rule.tls_passthrough } : {}),
      ...(typeof certificate === 'string' && certificate !== '' ? { certificate_id: certificate } : {}),
    };
  });
  checkDistinctEntries(rules, field);
  return rules;
}

function checkDistinctEntries(rules: ForwardingRule[], field: string) {
  const seen = new Set<string>();
  for (const rule of rules) {
    const key = `${rule.entry_protocol === 'udp' ? 'udp' : 'tcp'}:${rule.entry_port}`;
    if (seen.has(key)) throw unprocessable(`${field}: entry port ${rule.entry_port} is used by two rules`);
    seen.add(key);
  }
}

const forwardingKey = (rule: ForwardingRule) =>
  JSON.stringify([
    rule.entry_protocol,
    rule.entry_port,
    rule.target_protocol,
    rule.target_port,
    rule.tls_passthrough ?? false,
  ]);

function checkGlbSettings(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw unprocessable('glb_settings is required for a GLOBAL load balancer');
  }
  const settings = value as Record<string, unknown>;
  if (!(GLB_SETTINGS_TARGET_PROTOCOL as readonly string[]).includes(String(settings.target_protocol))) {
    throw unprocessable('glb_settings.target_protocol must be http, https or http2');
  }
  requirePort(settings.target_port, 'glb_settings.target_port');
  return settings;
}

/** A whole-number field within bounds, or the platform's 422 naming it. */
function intIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw unprocessable(`${field} must be an integer from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return value;
}

const HEALTH_PROTOCOLS: readonly string[] = HEALTH_CHECK_PROTOCOL;

/**
 * `health_check` as given: each field checked, the ones left out filled from `base` (what the
 * balancer had, or the default). A tcp check has no path.
 */
function checkHealthCheck(value: unknown, base: Record<string, unknown>): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw unprocessable('health_check must be an object');
  const given = value as Record<string, unknown>;
  const check = { ...base };
  if (given.protocol != null) {
    if (!HEALTH_PROTOCOLS.includes(String(given.protocol)))
      throw unprocessable(`health_check.protocol must be one of ${HEALTH_PROTOCOLS.join(', ')}`);
    check.protocol = given.protocol;
  }
  if (given.port != null) check.port = requirePort(given.port, 'health_check.port');
  if (given.path != null) {
    if (typeof given.path !== 'string' || !given.path.startsWith('/'))
      throw unprocessable('health_check.path must be a path starting with "/"');
    check.path = given.path;
  }
  const bounds = {
    check_interval_seconds: [3, 300],
    response_timeout_seconds: [3, 300],
    healthy_threshold: [2, 10],
    unhealthy_threshold: [2, 10],
  } as const;
  for (const [field, [min, max]] of Object.entries(bounds)) {
    if (given[field] != null) check[field] = intIn(given[field], `health_check.${field}`, min, max);
  }
  if (given.proxy_protocol != null) {
    if (typeof given.proxy_protocol !== 'boolean')
      throw unprocessable('health_check.proxy_protocol must be a boolean');
    check.proxy_protocol = given.proxy_protocol;
  }
  return check;
}

/** `sticky_sessions` as given: none, or cookies with the cookie's name and lifetime. */
function checkStickySessions(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw unprocessable('sticky_sessions must be an object');
  const given = value as Record<string, unknown>;
  const type = given.type ?? 'none';
  if (type === 'none') return { type };
  if (type !== 'cookies') throw unprocessable('sticky_sessions.type must be cookies or none');
  const name = given.cookie_name;
  if (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,40}$/.test(name)) {
    throw unprocessable('sticky_sessions.cookie_name is required for cookies: letters, digits, "_" and "-"');
  }
  const ttl = intIn(given.cookie_ttl_seconds, 'sticky_sessions.cookie_ttl_seconds', 1, 2_147_483_647);
  return { type, cookie_name: name, cookie_ttl_seconds: ttl };
}

/**
 * The health check a balancer has when none was given: the description's defaults (protocol http,
 * port 80, path `/`...), aimed at the first forwarding rule's target, tcp when that is not http(s).
 */
function defaultHealthCheck(rules: readonly ForwardingRule[]): Record<string, unknown> {
  const first = rules[0];
  return {
    protocol: first && ['http', 'https'].includes(first.target_protocol) ? first.target_protocol : 'tcp',
    port: first?.target_port ?? 80,
    path: '/',
    check_interval_seconds: 10,
    response_timeout_seconds: 5,
    healthy_threshold: 3,
    unhealthy_threshold: 5,
  };
}

/**
 * The optional settings of a create or update body. What the body leaves out keeps what the
 * balancer had (clients such as godo send back what they read, Terraform only what is set).
 */
function lbOptionalSettings(
  body: Record<string, unknown>,
  rules: readonly ForwardingRule[],
  existing?: StoredLoadBalancer,
): LoadBalancerSettings {
  const settings: LoadBalancerSettings = { ...existing?.settings };
  if (body.health_check != null) {
    settings.health_check = checkHealthCheck(
      body.health_check,
      settings.health_check ?? defaultHealthCheck(rules),
    );
  }
  if (body.sticky_sessions != null) settings.sticky_sessions = checkStickySessions(body.sticky_sessions);
  for (const field of [
    'redirect_http_to_https',
    'enable_proxy_protocol',
    'enable_backend_keepalive',
  ] as const) {
    const value = body[field];
    if (value == null) continue;
    if (typeof value !== 'boolean') throw unprocessable(`${field} must be a boolean`);
    settings[field] = value;
  }
  if (body.http_idle_timeout_seconds != null) {
    settings.http_idle_timeout_seconds = intIn(
      body.http_idle_timeout_seconds,
      'http_idle_timeout_seconds',
      30,
      600,
    );
  }
  return settings;
}

/** Everything a create or update body sets, checked as the platform checks it. */
function lbSettings(world: World, body: Record<string, unknown>, existing?: StoredLoadBalancer) {
  const name = requireString(body, 'name');
  if (!LB_NAME.test(name)) throw unprocessable('name must use letters, digits, "." and "-"');
  const type = (body.type ?? existing?.type ?? 'REGIONAL') as LoadBalancerType;
  if (!LB_TYPES.includes(type)) throw unprocessable(`type must be one of ${LB_TYPES.join(', ')}`);
  if (existing && existing.type !== type)
    throw unprocessable(`type cannot change (the load balancer is ${existing.type})`);
  const global = type === 'GLOBAL';
  if (!global && body.region === undefined)
    throw unprocessable(`region is required for a ${type} load balancer`);
  const region = body.region === undefined ? null : requireRegion(world, body.region).slug;
  if (existing && existing.region !== region && !global) throw unprocessable('region cannot change');
  const glb = global ? checkGlbSettings(body.glb_settings) : null;
  // A GLOBAL balancer given no rules listens on http 80 towards its targets' protocol and port.
  const glbDefault = glb && [
    {
      entry_protocol: 'http',
      entry_port: 80,
      target_protocol: String(glb.target_protocol),
      target_port: Number(glb.target_port),
    },
  ];
  const rules =
    body.forwarding_rules === undefined && (existing || glbDefault)
      ? (existing?.forwarding_rules ?? glbDefault ?? [])
      : checkForwardingRules(world, body.forwarding_rules, type);
  if (body.droplet_ids !== undefined && body.tag !== undefined)
    throw unprocessable('give droplet_ids or tag, not both');
  const dropletIds =
    body.droplet_ids === undefined
      ? []
      : requireDropletIds(world, body.droplet_ids, 'droplet_ids', region, { allowEmpty: true });
  const tag = body.tag === undefined ? null : (requireTags([body.tag], 'tag')[0] ?? null);
  if (!global && body.glb_settings !== undefined)
    throw unprocessable('glb_settings applies to GLOBAL load balancers only');
  if (!global && body.target_load_balancer_ids !== undefined) {
    throw unprocessable('target_load_balancer_ids applies to GLOBAL load balancers only');
  }
  let targets: string[] = [];
  if (global && body.target_load_balancer_ids !== undefined) {
    if (!Array.isArray(body.target_load_balancer_ids))
      throw unprocessable('target_load_balancer_ids must be an array');
    targets = body.target_load_balancer_ids.map((id) => {
      const target = world.loadBalancers.find((lb) => lb.id === id);
      if (!target)
        throw unprocessable(`target_load_balancer_ids: load balancer ${JSON.stringify(id)} does not exist`);
      if (target.type === 'GLOBAL') throw unprocessable(`target_load_balancer_ids: ${id} is itself GLOBAL`);
      return target.id;
    });
  }
  const network = body.network ?? existing?.network ?? 'EXTERNAL';
  if (network !== 'EXTERNAL' && network !== 'INTERNAL')
    throw unprocessable('network must be EXTERNAL or INTERNAL');
  const stack = body.network_stack ?? existing?.network_stack ?? 'IPV4';
  if (stack !== 'IPV4' && stack !== 'DUALSTACK')
    throw unprocessable('network_stack must be IPV4 or DUALSTACK');
  // `size` is the older way to size a balancer: each slug stands for a number of nodes.
  if (body.size != null && !Object.hasOwn(LB_SIZES, String(body.size))) {
    throw unprocessable(`size must be one of ${Object.keys(LB_SIZES).join(', ')}`);
  }
  // Both may come back from a client that read the balancer; they must then agree.
  if (body.size != null && body.size_unit != null && LB_SIZES[String(body.size)] !== body.size_unit) {
    throw unprocessable(`size ${body.size} and size_unit ${body.size_unit} disagree: give one of them`);
  }
  const size =
    body.size != null ? String(body.size) : body.size_unit == null ? (existing?.size ?? null) : null;
  const sizeUnit = body.size_unit ?? (size ? LB_SIZES[size] : undefined) ?? existing?.size_unit ?? 1;
  if (typeof sizeUnit !== 'number' || !Number.isInteger(sizeUnit) || sizeUnit < 1 || sizeUnit > 100) {
    throw unprocessable('size_unit must be an integer from 1 to 100');
  }
  const algorithm = body.algorithm ?? existing?.algorithm ?? 'round_robin';
  if (algorithm !== 'round_robin' && algorithm !== 'least_connections') {
    throw unprocessable('algorithm must be round_robin or least_connections');
  }
  const projectId = projectForCreate(world, body.project_id);
  return {
    name,
    type,
    region,
    forwarding_rules: rules,
    droplet_ids: dropletIds,
    tag,
    glb_settings: glb,
    target_load_balancer_ids: targets,
    network: network as 'EXTERNAL' | 'INTERNAL',
    network_stack: stack as 'IPV4' | 'DUALSTACK',
    size_unit: sizeUnit,
    size,
    algorithm: algorithm as LoadBalancerAlgorithm,
    project_id: projectId ?? existing?.project_id ?? null,
    settings: lbOptionalSettings(body, rules, existing),
  };
}

function lbDropletIds(world: World, lb: StoredLoadBalancer): number[] {
  if (lb.tag) return world.droplets.filter((d) => d.tags.includes(lb.tag as string)).map((d) => d.id);
  return liveDropletIds(world, lb.droplet_ids);
}

function loadBalancerView(world: World, lb: StoredLoadBalancer, now: number) {
  const active = ready(lb.created_ms, now);
  const settings = lb.settings ?? {};
  return {
    id: lb.id,
    name: lb.name,
    ip: active ? lb.ip : '',
    ...(lb.ipv6 && active ? { ipv6: lb.ipv6 } : {}),
    size_unit: lb.size_unit,
    ...(lb.size ? { size: lb.size } : {}),
    algorithm: lb.algorithm ?? 'round_robin',
    type: lb.type,
    status: active ? 'active' : 'new',
    created_at: iso(lb.created_ms),
    forwarding_rules: lb.forwarding_rules,
    health_check: settings.health_check ?? defaultHealthCheck(lb.forwarding_rules),
    sticky_sessions: settings.sticky_sessions ?? { type: 'none' },
    ...(lb.region ? { region: regionView(world, lb.region) } : {}),
    ...(lb.tag ? { tag: lb.tag } : {}),
    droplet_ids: lbDropletIds(world, lb),
    redirect_http_to_https: settings.redirect_http_to_https ?? false,
    enable_proxy_protocol: settings.enable_proxy_protocol ?? false,
    enable_backend_keepalive: settings.enable_backend_keepalive ?? false,
    http_idle_timeout_seconds: settings.http_idle_timeout_seconds ?? 60,
    ...(lb.vpc_uuid ? { vpc_uuid: lb.vpc_uuid } : {}),
    project_id: projectOf(world, { urn: `do:loadbalancer:${lb.id}`, created_ms: lb.created_ms }),
    disable_lets_encrypt_dns_records: false,
    firewall: { deny: [], allow: [] },
    network: lb.network,
    network_stack: lb.network_stack,
    tls_cipher_policy: 'DEFAULT',
    ...(lb.type === 'GLOBAL'
      ? { glb_settings: lb.glb_settings ?? {}, target_load_balancer_ids: lb.target_load_balancer_ids }
      : {}),
  };
}

const findLb = (world: World, req: SandboxRequest) =>
  findOr404(world.loadBalancers, (lb) => lb.id === req.params.id);

const loadBalancerRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/load_balancers',
    handler: (req, world) => ({
      body: listBody('load_balancers', world.loadBalancers, req, (lb) =>
        loadBalancerView(world, lb, req.now),
      ),
    }),
  },
  {
    method: 'POST',
    path: '/v2/load_balancers',
    handler: (req, world) => {
      const settings = lbSettings(world, req.body);
      if (!settings.region && req.body.vpc_uuid != null) {
        throw unprocessable('vpc_uuid applies to regional load balancers only');
      }
      const ip = allocateAddress(
        POOLS.loadBalancerV4,
        world.loadBalancers.map((lb) => lb.ip),
      );
      if (!ip) throw unprocessable('the sandbox has no load balancer addresses left');
      const ipv6 =
        settings.network_stack === 'DUALSTACK'
          ? (allocateAddress(
              POOLS.loadBalancerV6,
              world.loadBalancers.map((lb) => lb.ipv6 ?? ''),
            ) ?? null)
          : null;
      const lb: StoredLoadBalancer = {
        id: randomUUID(),
        ...settings,
        ip,
        ipv6,
        vpc_uuid: settings.region ? vpcFor(world, req.body.vpc_uuid, settings.region, req.now).id : null,
        created_ms: req.now,
      };
      world.loadBalancers.push(lb);
      assignToProject(world, `do:loadbalancer:${lb.id}`, settings.project_id ?? undefined, req.now);
      return { status: 202, body: { load_balancer: loadBalancerView(world, lb, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/load_balancers/{id}',
    handler: (req, world) => ({
      body: { load_balancer: loadBalancerView(world, findLb(world, req), req.now) },
    }),
  },
  {
    method: 'PUT',
    path: '/v2/load_balancers/{id}',
    handler: (req, world) => {
      const lb = findLb(world, req);
      // Clients PUT the whole object back, VPC included: the same VPC is fine, another one is refused.
      const vpc = req.body.vpc_uuid;
      if (vpc != null && vpc !== lb.vpc_uuid) {
        throw unprocessable(`vpc_uuid cannot change (the load balancer is in ${lb.vpc_uuid ?? 'no VPC'})`);
      }
      const before = lb.project_id;
      Object.assign(lb, lbSettings(world, req.body, lb));
      // A PUT naming another project moves the balancer there, as a create's project_id places it.
      if (lb.project_id && lb.project_id !== before)
        assignToProject(world, `do:loadbalancer:${lb.id}`, lb.project_id, req.now);
      return { body: { load_balancer: loadBalancerView(world, lb, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/load_balancers/{id}',
    handler: (req, world) => {
      const lb = findLb(world, req);
      const front = world.loadBalancers.find((g) => g.target_load_balancer_ids.includes(lb.id));
      if (front) throw unprocessable(`load balancer is a target of global load balancer ${front.id}`);
      world.loadBalancers = world.loadBalancers.filter((l) => l !== lb);
      dropFromProject(world, `do:loadbalancer:${lb.id}`);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/load_balancers/{id}/cache',
    handler: (req, world) => {
      const lb = findLb(world, req);
      if (lb.type !== 'GLOBAL') throw unprocessable('only GLOBAL load balancers have a CDN cache');
      return { status: 204 };
    },
  },
  ...(['POST', 'DELETE'] as const).flatMap((method): Route[] => {
    const adding = method === 'POST';
    return [
      {
        method,
        path: '/v2/load_balancers/{id}/droplets',
        handler: (req, world) => {
          const lb = findLb(world, req);
          if (lb.tag)
            throw unprocessable(
              `droplet_ids: the load balancer targets tag ${lb.tag}; change the tag instead`,
            );
          const ids = requireDropletIds(
            world,
            req.body.droplet_ids,
            'droplet_ids',
            adding ? lb.region : null,
          );
          lb.droplet_ids = adding
            ? [...new Set([...lb.droplet_ids, ...ids])]
            : lb.droplet_ids.filter((id) => !ids.includes(id));
          return { status: 204 };
        },
      },
      {
        method,
        path: '/v2/load_balancers/{id}/forwarding_rules',
        handler: (req, world) => {
          const lb = findLb(world, req);
          const rules = checkForwardingRules(world, req.body.forwarding_rules, lb.type);
          if (adding) {
            const merged = [...lb.forwarding_rules];
            for (const rule of rules)
              if (!merged.some((r) => forwardingKey(r) === forwardingKey(rule))) merged.push(rule);
            checkDistinctEntries(merged, 'forwarding_rules');
            lb.forwarding_rules = merged;
          } else {
            rules.forEach((rule, index) => {
              if (!lb.forwarding_rules.some((r) => forwardingKey(r) === forwardingKey(rule))) {
                throw unprocessable(`forwarding_rules[${index}] does not match a rule of the load balancer`);
              }
            });
            const keys = new Set(rules.map(forwardingKey));
            const left = lb.forwarding_rules.filter((r) => !keys.has(forwardingKey(r)));
            if (left.length === 0)
              throw unprocessable('forwarding_rules: a load balancer keeps at least one rule');
            lb.forwarding_rules = left;
          }
          return { status: 204 };
        },
      },
    ];
  }),
];

export const trafficRoutes: Route[] = [...firewallRoutes, ...loadBalancerRoutes];
