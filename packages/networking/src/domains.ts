/**
 * Domains and their DNS records. Record types whose platform form has extra fields (MX priority,
 * SRV priority/weight/port, CAA flags/tag) take them in `Data` as a zone file writes them, and
 * the tool splits them into the platform's fields.
 */
import { isIP } from 'node:net';
import { annotations, defineTool, returns } from '@cloudcall/core';
import { LIMITS, numericId, pageQuery } from '@cloudcall/core/internal';
import { z } from 'zod';
import { page } from './shapes.js';
import type { Domain, DomainList, DomainRecord, DomainRecordList } from './types.js';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'CAA', 'NS'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

const HOST =
  /^(\*\.)?([a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.)*[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.?$/;
const DOMAIN = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$/;
const isHost = (value: string) => value === '@' || HOST.test(value);

/** What `Data` holds for each record type, for descriptions and errors. */
const DATA_FORM: Record<RecordType, string> = {
  A: 'an IPv4 address',
  AAAA: 'an IPv6 address',
  CNAME: 'a host name ("@" for the domain itself; end with "." for a name outside the domain)',
  NS: 'a name server host name, such as "ns1.example.net."',
  TXT: 'any text',
  MX: '"<priority> <mail host>", such as "10 mail.example.com."',
  SRV: '"<priority> <weight> <port> <target host>", such as "10 5 5060 sip.example.com."',
  CAA: '"<flags> <tag> <value>", such as "0 issue letsencrypt.org"',
};

/** The platform's record fields for a spec record (type, name, data) or a message saying what is wrong. */
export function recordWire(
  type: RecordType,
  name: string,
  data: string,
): { fields: Record<string, unknown> } | { error: string } {
  const fail = { error: `for a ${type} record, Data must be ${DATA_FORM[type]}` };
  const parts = data.trim().split(/\s+/);
  switch (type) {
    case 'A':
      return isIP(data) === 4 ? { fields: { type, name, data } } : fail;
    case 'AAAA':
      return isIP(data) === 6 ? { fields: { type, name, data } } : fail;
    case 'CNAME':
    case 'NS':
      return isHost(data) ? { fields: { type, name, data } } : fail;
    case 'TXT':
      return data.length > 0 ? { fields: { type, name, data } } : fail;
    case 'MX': {
      const [priority, host, ...rest] = parts;
      if (rest.length || !isUint16(priority) || !host || !isHost(host)) return fail;
      return { fields: { type, name, data: host, priority: Number(priority) } };
    }
    case 'SRV': {
      const [priority, weight, port, host, ...rest] = parts;
      if (rest.length || !isUint16(priority) || !isUint16(weight) || !isUint16(port)) return fail;
      if (!host || !isHost(host)) return fail;
      return {
        fields: {
          type,
          name,
          data: host,
          priority: Number(priority),
          weight: Number(weight),
          port: Number(port),
        },
      };
    }
    case 'CAA': {
      const [flags, tag, ...value] = parts;
      if (!flags || !/^\d{1,3}$/.test(flags) || Number(flags) > 255) return fail;
      if (!tag || !['issue', 'issuewild', 'iodef'].includes(tag) || value.length === 0) return fail;
      return {
        fields: { type, name, data: value.join(' ').replace(/^"(.*)"$/, '$1'), flags: Number(flags), tag },
      };
    }
  }
}

function isUint16(value: string | undefined): boolean {
  return value !== undefined && /^\d{1,5}$/.test(value) && Number(value) <= 65535;
}

const DomainName = z
  .string()
  .trim()
  .toLowerCase()
  .max(LIMITS.hostname)
  .regex(DOMAIN, 'expected a domain name such as "example.com"')
  .describe('Domain name');

const RecordId = numericId('Record id');

const recordFields = {
  Type: z.enum(RECORD_TYPES).describe('Record type'),
  Name: z
    .string()
    .trim()
    .min(1)
    .max(LIMITS.hostname)
    .refine(isHost, 'expected "@" (the domain itself) or a host name such as "www" or "_sip._tcp"')
    .describe('Host, @ = apex'),
  Data: z
    .string()
    .min(1)
    .max(LIMITS.short)
    .describe('MX: prio host; SRV: prio weight port host; CAA: flags tag value; FQDNs end with .'),
  // Beyond the spec's arguments: the platform takes a record's time to live (default 1800).
  TTL: z.number().int().min(30).optional().describe('Seconds (min 30)'),
};

/** What Data holds, per type, for the CLI's help. */
const DATA_HELP = `Name is "@" for the domain itself, or a label such as "www". Data by type: ${RECORD_TYPES.map((type) => `${type}: ${DATA_FORM[type]}`).join('; ')}.`;

/** Type/Name/Data cross-check, before any request. */
function checkData(args: { Type: RecordType; Name: string; Data: string }, ctx: z.RefinementCtx) {
  const result = recordWire(args.Type, args.Name, args.Data);
  if ('error' in result) ctx.addIssue({ code: 'custom', path: ['Data'], message: result.error });
}

function recordBody(args: { Type: RecordType; Name: string; Data: string; TTL?: number | undefined }) {
  const result = recordWire(args.Type, args.Name, args.Data);
  if ('error' in result) throw new Error(result.error);
  return args.TTL === undefined ? result.fields : { ...result.fields, ttl: args.TTL };
}

export const domainTools = [
  defineTool({
    name: 'domain-create',
    family: 'networking',
    title: 'Create domain',
    description: 'Add a domain with apex A record.',
    details:
      'Adds a domain to the DNS service, with an A record for the domain itself pointing at IPAddress (and the NS and SOA records the platform adds).',
    input: z.strictObject({
      Name: DomainName,
      IPAddress: z
        .string()
        .trim()
        .max(LIMITS.short)
        .refine((value) => isIP(value) !== 0, 'expected an IPv4 or IPv6 address')
        .describe('Apex IP'),
    }),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/domains', body: { name: 'Name', ip_address: 'IPAddress' } },
    result: returns<{ domain: Domain }>(),
  }),
  defineTool({
    name: 'domain-create-bare',
    family: 'networking',
    beyondSpec: true,
    title: 'Create domain without records',
    description: 'Add a domain with no records.',
    details:
      'Adds a domain to the DNS service with only the NS and SOA records the platform adds, as doctl does without --ip-address; add records with domain-record-create.',
    input: z.strictObject({ Name: DomainName }),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/domains', body: { name: 'Name' } },
    result: returns<{ domain: Domain }>(),
  }),
  defineTool({
    name: 'domain-delete',
    family: 'networking',
    title: 'Delete domain',
    description: 'Delete a domain.',
    details: 'Removes a domain and all its records from the DNS service.',
    input: z.strictObject({ Name: DomainName }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/domains/{Name}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'domain-get',
    family: 'networking',
    title: 'Get domain',
    description: 'One DNS domain.',
    details: 'Shows a domain: its name, TTL and zone file.',
    input: z.strictObject({ Name: DomainName }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/domains/{Name}' },
    result: returns<{ domain: Domain }>(),
  }),
  defineTool({
    name: 'domain-list',
    family: 'networking',
    title: 'List domains',
    description: 'List domains.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/domains', query: pageQuery },
    result: returns<DomainList>(),
  }),
  defineTool({
    name: 'domain-record-create',
    family: 'networking',
    title: 'Create domain record',
    description: 'Add a DNS record.',
    details: `Adds a DNS record (A, AAAA, CNAME, TXT, MX, SRV, CAA or NS) to a domain. MX, SRV and CAA take their extra fields in Data, as a zone file writes them. ${DATA_HELP}`,
    input: z.strictObject({ Domain: DomainName, ...recordFields }).superRefine(checkData),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/domains/{Domain}/records', body: recordBody },
    result: returns<{ domain_record: DomainRecord }>(),
  }),
  defineTool({
    name: 'domain-record-edit',
    family: 'networking',
    title: 'Edit domain record',
    description: 'Replace a DNS record.',
    details: `Replaces a record's type, name and data (and its TTL when given). ${DATA_HELP}`,
    input: z.strictObject({ Domain: DomainName, RecordID: RecordId, ...recordFields }).superRefine(checkData),
    annotations: annotations.update,
    request: { method: 'PUT', path: '/v2/domains/{Domain}/records/{RecordID}', body: recordBody },
    result: returns<{ domain_record: DomainRecord }>(),
  }),
  defineTool({
    name: 'domain-record-delete',
    family: 'networking',
    title: 'Delete domain record',
    description: 'Delete a DNS record.',
    input: z.strictObject({ Domain: DomainName, RecordID: RecordId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/domains/{Domain}/records/{RecordID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'domain-record-get',
    family: 'networking',
    title: 'Get domain record',
    description: 'One DNS record.',
    input: z.strictObject({ Domain: DomainName, RecordID: RecordId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/domains/{Domain}/records/{RecordID}' },
    result: returns<{ domain_record: DomainRecord }>(),
  }),
  defineTool({
    name: 'domain-record-list',
    family: 'networking',
    title: 'List domain records',
    description: 'List DNS records.',
    details: 'Lists the DNS records of a domain, including its SOA and NS records. Paginated.',
    input: z.strictObject({ Domain: DomainName, ...page }),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: '/v2/domains/{Domain}/records',
      query: pageQuery,
    },
    result: returns<DomainRecordList>(),
  }),
] as const;
