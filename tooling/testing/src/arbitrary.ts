/**
 * fast-check arbitraries for tool arguments, from the JSON Schema the tools publish (the schema MCP
 * hosts and the CLI see), and a pool of hostile values to swap into them. The catalog's hostile
 * test (the library API) and the guard's (guardedRun, planCall) draw from the same ones.
 * The JSON Schema keywords handled are the ones zod's `toJSONSchema` gives our tools; anything
 * else generates "any JSON", which the tools must refuse cleanly anyway.
 */
import fc from 'fast-check';
import { PATH_HOSTILE } from './hostile.js';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** Keeps generated text short: long values come from the hostile pool, not from every sample. */
const TEXT_CAP = 40;

/** Values a schema accepts, or is meant to: refinements the schema cannot express are not honoured. */
export function arbitraryOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(arbitraryOf));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
    case 'number': {
      const min =
        schema.minimum ?? (schema.exclusiveMinimum === undefined ? -1e6 : schema.exclusiveMinimum + 1);
      const max = Math.min(schema.maximum ?? 1e6, Math.max(min, 0) + 1e6);
      return type === 'integer'
        ? fc.integer({ min: Math.max(min, -1e9), max })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? arbitraryOf(schema.items) : fc.jsonValue(), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object':
      return objectOf(schema);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * Pattern arbitraries by pattern and lengths. Building one costs milliseconds (fast-check tries
 * its built-in tricky strings against every character class, an exception each), and a few
 * dozen patterns recur across hundreds of tool schemas built again for every test; an arbitrary
 * holds no state between draws, so one built once draws the same values.
 */
const patterned = new Map<string, fc.Arbitrary<string>>();

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? TEXT_CAP, TEXT_CAP));
  const fits = (value: string) =>
    value.length >= minLength && value.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY);
  if (schema.pattern) {
    const key = JSON.stringify([schema.pattern, schema.minLength, schema.maxLength]);
    let arbitrary = patterned.get(key);
    if (!arbitrary) {
      arbitrary = patternOf(schema.pattern, maxLength, fits);
      patterned.set(key, arbitrary);
    }
    return arbitrary;
  }
  switch (schema.format) {
    case 'uri':
      return fc.webUrl().filter(fits);
    case 'uuid':
      return fc.uuid();
    case 'ipv4':
      return fc.ipV4();
    case 'ipv6':
      return fc.ipV6();
  }
  return fc.string({ minLength, maxLength });
}

function patternOf(
  source: string,
  maxLength: number,
  fits: (value: string) => boolean,
): fc.Arbitrary<string> {
  const pattern = new RegExp(source);
  try {
    return fc.stringMatching(pattern, { maxLength }).filter(fits);
  } catch {
    // stringMatching does not do lookarounds: strip them to generate, then keep what matches.
    const loose = new RegExp(source.replace(/\(\?<?[!=](?:[^()\\]|\\.)*\)/g, ''));
    return fc.stringMatching(loose, { maxLength }).filter((value) => fits(value) && pattern.test(value));
  }
}

function objectOf(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, arbitraryOf(value)])),
    { requiredKeys: Object.keys(properties).filter((key) => required.has(key)) },
  );
  if (Object.keys(properties).length || schema.additionalProperties === false) return known;
  const values =
    typeof schema.additionalProperties === 'object'
      ? arbitraryOf(schema.additionalProperties)
      : fc.jsonValue({ maxDepth: 1 });
  return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), values, { maxKeys: 3 });
}

/**
 * A value as JSON-like text for a failure message, cut at about `limit` characters: cheap however
 * long or deep the value (JSON.stringify of the hostile pool's 100,000-character string and
 * 10,000-deep value cost more than the call under test, on every call).
 */
export function preview(value: unknown, limit = 160): string {
  let text = '';
  const seen = new Set<object>();
  const walk = (item: unknown): void => {
    if (text.length > limit) return;
    if (typeof item === 'string') {
      text += JSON.stringify(item.length > limit ? item.slice(0, limit) : item);
    } else if (item === null || typeof item !== 'object') {
      text += typeof item === 'bigint' ? `${item}n` : String(item);
    } else if (seen.has(item)) {
      text += '[Circular]';
    } else {
      seen.add(item);
      const array = Array.isArray(item);
      text += array ? '[' : '{';
      let first = true;
      for (const key of array ? item.keys() : Object.keys(item)) {
        if (text.length > limit) break;
        if (!first) text += ',';
        first = false;
        if (!array) text += `${JSON.stringify(key)}:`;
        walk((item as Record<string | number, unknown>)[key]);
      }
      text += array ? ']' : '}';
      seen.delete(item);
    }
  };
  walk(value);
  return text.length > limit ? `${text.slice(0, limit - 3)}...` : text;
}

/** A value nested `depth` levels deep, built without recursion. */
export function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
  return value;
}

/** Values that have broken tools before, or could: path tricks, bad text, wrong types, sizes, depth. */
const HOSTILE_TEXT: readonly string[] = [
  ...PATH_HOSTILE,
  ' ',
  '...',
  '.%2E',
  '../droplets',
  '/',
  '\\',
  '..\\..',
  '?',
  '#',
  '%',
  '%zz',
  'x\u0000y',
  '\n',
  '\r\n',
  '\r\nX-Injected: 1',
  '\u007f',
  '\u0085',
  'x\ud800',
  '\udfff',
  '__proto__',
  'constructor',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'ftp://example.com/x',
  'https://example.com/a\r\nb',
  '😀',
  'é',
];

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<unknown>(...HOSTILE_TEXT) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      0,
      -1,
      1.5,
      2 ** 53,
      1e308,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      [],
      {},
      ['..'],
      { __proto__: { polluted: true } },
      // Own `__proto__` and `constructor` keys, as JSON.parse makes them from a request's text.
      JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('x'.repeat(100_000), nested(10_000), nested(40)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

const FIREWALL = 'fb6045f1-cf1d-4ca3-bfac-18832663025b';
const inbound = { Protocol: 'tcp', PortRange: '22', Sources: ['0.0.0.0/0'] };

/**
 * Valid arguments for the tools whose rules the JSON Schema cannot say (IP addresses, PEM text,
 * JSON text, port ranges, URLs are refined in code), so generation alone rarely finds one.
 */
export const TOOL_EXAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  'db-cluster-update-mysql-config': {
    ID: '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30',
    config_json: '{"wait_timeout":60}',
  },
  'domain-create': { Name: 'example.com', IPAddress: '192.0.2.1' },
  'custom-certificate-create': {
    Name: 'c',
    PrivateKey: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----',
    LeafCertificate: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----',
    CertificateChain: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----',
  },
  'firewall-create': {
    Name: 'web-fw',
    InboundProtocol: 'tcp',
    InboundPortRange: '80',
    InboundSource: '0.0.0.0/0',
    OutboundProtocol: 'tcp',
    OutboundPortRange: 'all',
    OutboundDestination: '0.0.0.0/0',
  },
  'firewall-add-rules': { ID: FIREWALL, InboundRules: [inbound] },
  'firewall-remove-rules': { ID: FIREWALL, InboundRules: [inbound] },
  'reserved-ip-release': { IP: '198.51.100.1', Type: 'ipv4' },
  'reserved-ip-assign': { IP: '2001:db8::1', VmID: 480000001, Type: 'ipv6' },
  'reserved-ip-unassign': { IP: '198.51.100.1', Type: 'ipv4' },
  'reserved-ip-get': { IP: '2001:db8::1' },
  'byoip-prefix-create': { Prefix: '203.0.113.0/24', Signature: 'sig', Region: 'nyc3' },
  // A forwarding rule's TlsPassthrough and CertificateID depend on its entry protocol.
  'load-balancer-create': {
    Name: 'lb',
    Region: 'nyc3',
    ForwardingRules: [{ EntryProtocol: 'http', EntryPort: 80, TargetProtocol: 'http', TargetPort: 8080 }],
  },
  'image-create': { Name: 'base', Url: 'https://example.com/a.img', Region: 'nyc3' },
  // Monitoring: someone to notify; an uptime check's target is a URL.
  'monitoring-alert-create': {
    Type: 'v1/insights/droplet/cpu',
    Compare: 'GreaterThan',
    Value: 80,
    Window: '5m',
    Description: 'cpu',
    Emails: ['ops@example.com'],
  },
  'monitoring-uptime-create': { Name: 'site', Target: 'https://example.com' },
  'monitoring-uptime-alert-create': {
    CheckID: '5a4981aa-9653-4bd1-bef5-d6bff52042e4',
    Name: 'down',
    Type: 'down',
    Period: '2m',
    Emails: ['ops@example.com'],
  },
  'spaces-key-create': { Name: 'ci', Grants: [{ Bucket: 'assets', Permission: 'readwrite' }] },
  'spaces-key-get': { AccessKey: 'DO00QWERTYUIOPASDFGH' },
  'spaces-key-update': { AccessKey: 'DO00QWERTYUIOPASDFGH', Name: 'ci-2' },
  'spaces-key-delete': { AccessKey: 'DO00QWERTYUIOPASDFGH' },
  'cdn-create': { Origin: 'assets.nyc3.digitaloceanspaces.com', TTL: 3600 },
  'cdn-update': { ID: '19f06b6a-3ace-4315-b086-499a0e521b76', TTL: 600 },
  // An app needs one component with one source.
  'app-create': { Spec: { name: 'web-1', services: [{ name: 'web', github: { repo: 'acme/web' } }] } },
  'app-update': {
    ID: '4f6c71e2-1e90-4762-9fee-6cc4a0a9f2cf',
    Spec: { name: 'web-1', services: [{ name: 'web', github: { repo: 'acme/web' } }] },
  },
  'app-validate-spec': { Spec: { name: 'web-1', services: [{ name: 'web', github: { repo: 'acme/web' } }] } },
  // No VM 1 exists: the wait ends with a 404 at its first poll.
  wait: { Kind: 'vm', ID: '1', TimeoutSeconds: 1 },
};

/** Arguments the sandbox could use to reach beyond loopback are pinned to it. */
export function confined(toolName: string, raw: unknown): unknown {
  if (toolName !== 'db-cluster-start-online-migration' || raw === null || typeof raw !== 'object') return raw;
  const args = raw as Record<string, unknown>;
  const source = args.source;
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return raw;
  return { ...args, source: { ...source, host: '127.0.0.1', port: 9 } };
}

/** A tool as these arbitraries see it: its name, published JSON Schema and argument names. */
export interface ToolShape {
  name: string;
  schema: JsonSchema;
  arguments: readonly string[];
}

/** Generated arguments for a tool, with its example (when it has one) among them. */
export function argumentsOf(tool: ToolShape): fc.Arbitrary<unknown> {
  const generated = arbitraryOf(tool.schema);
  const example = TOOL_EXAMPLES[tool.name];
  return example ? fc.oneof(generated, fc.constant(example)) : generated;
}

/**
 * What a caller may throw at a tool: its generated arguments, the same with one argument (or
 * `__proto__`, or an unknown one) swapped for a hostile value, or a hostile value instead of the
 * arguments object. Pinned to loopback by `confined`.
 */
export function hostileArgumentsOf(tool: ToolShape): fc.Arbitrary<unknown> {
  const valid = argumentsOf(tool);
  const keys = [...tool.arguments, '__proto__', 'constructor', 'unknown_argument'];
  const mutated = fc.tuple(valid, fc.constantFrom(...keys), hostileValue).map(([args, key, value]) =>
    // A computed key makes an own `__proto__` property, as JSON.parse does with one sent as text.
    args !== null && typeof args === 'object' ? { ...(args as object), [key]: value } : args,
  );
  return fc.oneof(valid, mutated, hostileValue).map((raw) => confined(tool.name, raw));
}
