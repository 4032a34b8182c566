/** Domains, DNS records and certificates. */

import { createHash, createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import {
  NETWORK_LIFECYCLE_MS,
  ready,
  type StoredCertificate,
  type StoredRecord,
} from '../families/networking.js';
import {
  intParam,
  listBody,
  paginate,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { derived, settled } from '../journal.js';
import { iso } from '../time.js';
import { nextId, type World } from '../world.js';
import { findOr404 } from './networking-common.js';
import { dropFromProject } from './projects.js';

const DOMAIN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const HOST =
  /^(\*\.)?([a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.)*[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.?$/;
const isHost = (value: string) => value === '@' || HOST.test(value);
const DEFAULT_TTL = 1800;
const NAME_SERVERS = [
  'ns1.sandbox.cloudcall.test.',
  'ns2.sandbox.cloudcall.test.',
  'ns3.sandbox.cloudcall.test.',
];
const RECORD_TYPES = new Set(['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'SRV', 'TXT']);

function findDomain(world: World, request: SandboxRequest) {
  const name = (request.params.domain ?? '').toLowerCase();
  return findOr404(world.domains, (domain) => domain.name === name);
}

function findRecord(world: World, request: SandboxRequest): StoredRecord {
  const domain = findDomain(world, request);
  const id = intParam(request, 'record');
  return findOr404(world.domainRecords, (record) => record.domain === domain.name && record.id === id);
}

const recordView = ({ domain: _domain, ...record }: StoredRecord) => record;

/**
 * A domain's records, in the account's order: from an index of every record by domain, built once
 * for the records as they are (`derived`), so that a page of domains does not pass over every
 * record of the account for each domain. Plain data: look an item up through the world to change it.
 */
function recordsOf(changing: World, domain: string): readonly StoredRecord[] {
  const world = settled(changing);
  const records = world.domainRecords;
  const index = derived('records by domain', world, ['domainRecords'], () => {
    const byDomain = new Map<string, StoredRecord[]>();
    for (const record of records) {
      const list = byDomain.get(record.domain);
      if (list) list.push(record);
      else byDomain.set(record.domain, [record]);
    }
    return byDomain;
  });
  return index.get(domain) ?? [];
}

function zoneFile(world: World, domain: string, records = recordsOf(world, domain)): string {
  const lines = [`$ORIGIN ${domain}.`, `$TTL ${DEFAULT_TTL}`];
  for (const r of records) {
    const extra =
      r.type === 'MX'
        ? `${r.priority} `
        : r.type === 'SRV'
          ? `${r.priority} ${r.weight} ${r.port} `
          : r.type === 'CAA'
            ? `${r.flags} ${r.tag} `
            : '';
    const data = r.type === 'TXT' || r.type === 'CAA' ? `"${r.data}"` : r.data;
    lines.push(`${r.name} IN ${r.type} ${extra}${data}`);
  }
  return `${lines.join('\n')}\n`;
}

const uint16 = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535;

/** The record fields of a create or edit body, checked as the platform checks them. */
function recordFields(body: Record<string, unknown>) {
  const type = requireString(body, 'type');
  if (!RECORD_TYPES.has(type)) throw unprocessable(`type must be one of ${[...RECORD_TYPES].join(', ')}`);
  const name = requireString(body, 'name');
  if (!isHost(name)) throw unprocessable('name must be "@" or a host name');
  const data = requireString(body, 'data');
  const fields = {
    type,
    name,
    data,
    priority: null as number | null,
    port: null as number | null,
    weight: null as number | null,
    flags: null as number | null,
    tag: null as string | null,
    ttl: typeof body.ttl === 'number' && body.ttl >= 30 ? body.ttl : DEFAULT_TTL,
  };
  if (type === 'A' && isIP(data) !== 4) throw unprocessable('data must be an IPv4 address for an A record');
  if (type === 'AAAA' && isIP(data) !== 6)
    throw unprocessable('data must be an IPv6 address for an AAAA record');
  if (['CNAME', 'NS', 'MX', 'SRV'].includes(type) && !isHost(data)) {
    throw unprocessable(`data must be a host name for a ${type} record`);
  }
  if (type === 'MX' || type === 'SRV') {
    if (!uint16(body.priority)) throw unprocessable(`priority is required for a ${type} record (0-65535)`);
    fields.priority = body.priority as number;
  }
  if (type === 'SRV') {
    if (!uint16(body.port)) throw unprocessable('port is required for an SRV record (0-65535)');
    if (!uint16(body.weight)) throw unprocessable('weight is required for an SRV record (0-65535)');
    fields.port = body.port as number;
    fields.weight = body.weight as number;
  }
  if (type === 'CAA') {
    if (
      typeof body.flags !== 'number' ||
      !Number.isInteger(body.flags) ||
      body.flags < 0 ||
      body.flags > 255
    ) {
      throw unprocessable('flags is required for a CAA record (0-255)');
    }
    if (!['issue', 'issuewild', 'iodef'].includes(String(body.tag))) {
      throw unprocessable('tag must be issue, issuewild or iodef for a CAA record');
    }
    fields.flags = body.flags;
    fields.tag = String(body.tag);
  }
  return fields;
}

/** A CNAME owns its name alone: no other record may share it, and it may not join others. */
function checkCname(world: World, domain: string, fields: { type: string; name: string }, self?: number) {
  // One pass over the records as they are, cheaper than building the index a change would make stale.
  const others = settled(world).domainRecords.filter(
    (r) => r.domain === domain && r.name === fields.name && r.id !== self && r.type !== 'SOA',
  );
  if (fields.type === 'CNAME' && others.length > 0) {
    throw unprocessable(`name "${fields.name}" already has records; a CNAME record cannot share a name`);
  }
  if (others.some((r) => r.type === 'CNAME')) {
    throw unprocessable(`name "${fields.name}" has a CNAME record; no other record can share its name`);
  }
}

function addRecord(world: World, domain: string, fields: Omit<StoredRecord, 'id' | 'domain'>): StoredRecord {
  const record: StoredRecord = { id: nextId(world, 'record'), domain, ...fields };
  world.domainRecords.push(record);
  return record;
}

const bare = { priority: null, port: null, weight: null, flags: null, tag: null };

/** The certificate as the platform shows it at `now`: ACME ones are `pending` until issued. */
function certificateView(cert: StoredCertificate, now: number) {
  const verified = cert.type === 'custom' || ready(cert.created_ms, now);
  return {
    id: cert.id,
    name: cert.name,
    not_after: cert.not_after,
    sha1_fingerprint: cert.sha1_fingerprint,
    created_at: iso(cert.created_ms),
    dns_names: cert.dns_names,
    state: verified ? 'verified' : 'pending',
    type: cert.type,
  };
}

/** Parses an uploaded certificate: PEM key and certificates, the key matching the leaf. Never echoes the key. */
function customCertificate(body: Record<string, unknown>) {
  const privateKey = requireString(body, 'private_key');
  const leafText = requireString(body, 'leaf_certificate');
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(privateKey);
  } catch {
    throw unprocessable('private_key is not a valid PEM private key');
  }
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leafText);
  } catch {
    throw unprocessable('leaf_certificate is not a valid PEM certificate');
  }
  // null is absent, as an empty string is: clients that serialise every field send
  // `"certificate_chain": null` for a self-signed or directly trusted leaf.
  if (
    body.certificate_chain !== undefined &&
    body.certificate_chain !== null &&
    body.certificate_chain !== ''
  ) {
    const chain = String(body.certificate_chain);
    const blocks = chain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) throw unprocessable('certificate_chain is not a valid PEM certificate chain');
    for (const block of blocks) {
      try {
        new X509Certificate(block);
      } catch {
        throw unprocessable('certificate_chain is not a valid PEM certificate chain');
      }
    }
  }
  if (!leaf.checkPrivateKey(key)) throw unprocessable('private_key does not match leaf_certificate');
  const names = (leaf.subjectAltName ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
  const cn = /CN=([^\n,]+)/.exec(leaf.subject)?.[1];
  return {
    dns_names: names.length ? names : cn ? [cn] : [],
    sha1_fingerprint: leaf.fingerprint.replace(/:/g, '').toLowerCase(),
    not_after: iso(new Date(leaf.validTo).getTime()),
  };
}

const WILDCARD_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** ACME names must be valid and lie within a domain the account's DNS service manages. */
function acmeNames(world: World, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw unprocessable('dns_names is required for a lets_encrypt certificate');
  return value.map((item) => {
    const name = String(item).toLowerCase();
    if (!WILDCARD_NAME.test(name))
      throw unprocessable(`dns_names: ${JSON.stringify(item)} is not a valid DNS name`);
    const bareName = name.replace(/^\*\./, '');
    const managed = world.domains.some((d) => bareName === d.name || bareName.endsWith(`.${d.name}`));
    if (!managed) throw unprocessable(`dns_names: ${name} is not in a domain managed by the DNS service`);
    return name;
  });
}

export const dnsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/domains',
    handler: (req, world) => {
      const page = paginate(world.domains, req);
      // The page's records in one pass (cheaper than the index of every domain's, after a change).
      const names = new Set(page.items.map((d) => d.name));
      const records = new Map<string, StoredRecord[]>();
      for (const record of settled(world).domainRecords) {
        if (names.has(record.domain))
          records.set(record.domain, [...(records.get(record.domain) ?? []), record]);
      }
      const domains = page.items.map((d) => ({
        name: d.name,
        ttl: d.ttl,
        zone_file: zoneFile(world, d.name, records.get(d.name) ?? []),
      }));
      return { body: { domains, links: page.links, meta: page.meta } };
    },
  },
  {
    method: 'POST',
    path: '/v2/domains',
    handler: (req, world) => {
      const name = requireString(req.body, 'name').toLowerCase();
      if (!DOMAIN.test(name)) throw unprocessable('name must be a domain name such as example.com');
      if (world.domains.some((d) => d.name === name)) throw unprocessable(`name ${name} is already in use`);
      const ip = req.body.ip_address;
      if (ip !== undefined && (typeof ip !== 'string' || isIP(ip) === 0)) {
        throw unprocessable('ip_address must be an IP address');
      }
      world.domains.push({ name, ttl: DEFAULT_TTL, created_at: iso(req.now) });
      addRecord(world, name, {
        type: 'SOA',
        name: '@',
        data: '1800',
        ttl: 1800,
        ...bare,
      });
      for (const ns of NAME_SERVERS)
        addRecord(world, name, { type: 'NS', name: '@', data: ns, ttl: DEFAULT_TTL, ...bare });
      if (typeof ip === 'string') {
        addRecord(world, name, {
          type: isIP(ip) === 6 ? 'AAAA' : 'A',
          name: '@',
          data: ip,
          ttl: DEFAULT_TTL,
          ...bare,
        });
      }
      return { status: 201, body: { domain: { name, ttl: DEFAULT_TTL, zone_file: null } } };
    },
  },
  {
    method: 'GET',
    path: '/v2/domains/{domain}',
    handler: (req, world) => {
      const domain = findDomain(world, req);
      return {
        body: { domain: { name: domain.name, ttl: domain.ttl, zone_file: zoneFile(world, domain.name) } },
      };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/domains/{domain}',
    handler: (req, world) => {
      const domain = findDomain(world, req);
      world.domains = world.domains.filter((d) => d !== domain);
      dropFromProject(world, `do:domain:${domain.name}`);
      world.domainRecords = world.domainRecords.filter((r) => r.domain !== domain.name);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/domains/{domain}/records',
    handler: (req, world) => {
      const domain = findDomain(world, req);
      const type = req.query.get('type');
      const name = req.query.get('name');
      const records = recordsOf(world, domain.name)
        .filter((r) => !type || r.type === type)
        .filter((r) => !name || r.name === name || `${r.name}.${domain.name}` === name);
      return { body: listBody('domain_records', records, req, recordView) };
    },
  },
  {
    method: 'POST',
    path: '/v2/domains/{domain}/records',
    handler: (req, world) => {
      const domain = findDomain(world, req);
      const fields = recordFields(req.body);
      checkCname(world, domain.name, fields);
      return { status: 201, body: { domain_record: recordView(addRecord(world, domain.name, fields)) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/domains/{domain}/records/{record}',
    handler: (req, world) => ({ body: { domain_record: recordView(findRecord(world, req)) } }),
  },
  // PUT sets the record from the body; PATCH (the description's domains_patch_record) changes the
  // fields given (a null is not given) and keeps the others. Either way the result is checked as a
  // new record is.
  ...(['PUT', 'PATCH'] as const).map(
    (method): Route => ({
      method,
      path: '/v2/domains/{domain}/records/{record}',
      handler: (req, world) => {
        const record = findRecord(world, req);
        if (record.type === 'SOA') throw unprocessable('type: SOA records cannot be edited');
        const given = Object.entries(req.body).filter(([, value]) => value !== null);
        const fields = recordFields(
          method === 'PUT' ? req.body : { ...recordView(record), ...Object.fromEntries(given) },
        );
        checkCname(world, record.domain, fields, record.id);
        Object.assign(record, fields);
        return { body: { domain_record: recordView(record) } };
      },
    }),
  ),
  {
    method: 'DELETE',
    path: '/v2/domains/{domain}/records/{record}',
    handler: (req, world) => {
      const record = findRecord(world, req);
      if (record.type === 'SOA') throw unprocessable('type: SOA records cannot be deleted');
      world.domainRecords = world.domainRecords.filter((r) => r !== record);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/certificates',
    handler: (req, world) => ({
      body: listBody('certificates', world.certificates, req, (c) => certificateView(c, req.now)),
    }),
  },
  {
    method: 'POST',
    path: '/v2/certificates',
    handler: (req, world) => {
      const name = requireString(req.body, 'name');
      const type = req.body.type ?? 'custom';
      if (type !== 'custom' && type !== 'lets_encrypt')
        throw unprocessable('type must be custom or lets_encrypt');
      if (world.certificates.some((c) => c.name === name))
        throw unprocessable(`name ${name} is already in use`);
      const id = randomUUID();
      const details =
        type === 'custom'
          ? customCertificate(req.body)
          : {
              dns_names: acmeNames(world, req.body.dns_names),
              sha1_fingerprint: createHash('sha1').update(id).digest('hex'),
              not_after: iso(req.now + NETWORK_LIFECYCLE_MS + 90 * 24 * 3600 * 1000),
            };
      const cert: StoredCertificate = { id, name, type, ...details, created_ms: req.now };
      world.certificates.push(cert);
      return { status: 201, body: { certificate: certificateView(cert, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/certificates/{id}',
    handler: (req, world) => ({
      body: {
        certificate: certificateView(
          findOr404(world.certificates, (c) => c.id === req.params.id),
          req.now,
        ),
      },
    }),
  },
  {
    method: 'DELETE',
    path: '/v2/certificates/{id}',
    handler: (req, world) => {
      const cert = findOr404(world.certificates, (c) => c.id === req.params.id);
      const user = world.loadBalancers.find((lb) =>
        lb.forwarding_rules.some((r) => r.certificate_id === cert.id),
      );
      if (user) throw unprocessable(`certificate is in use by load balancer ${user.id}`);
      world.certificates = world.certificates.filter((c) => c !== cert);
      return { status: 204 };
    },
  },
];
