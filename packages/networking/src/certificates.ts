/**
 * TLS certificates for load balancers: uploaded ("custom") or issued by the ACME certificate
 * authority (the platform's `lets_encrypt` type). Private keys go to the platform only: they are
 * never echoed in results, errors or logs.
 */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { LIMITS, pageQuery, uuid } from '@cloudcall/core/internal';
import { z } from 'zod';
import { page } from './shapes.js';
import type { Certificate, CertificateList } from './types.js';

const pem = (label: RegExp, what: string) =>
  z
    .string()
    .min(1)
    .max(LIMITS.pem)
    .refine((value) => label.test(value), `expected ${what} in PEM form ("-----BEGIN ...-----")`);

const CertificateId = uuid('Cert id');
const CertificateName = z.string().trim().min(1).max(LIMITS.name).describe('Cert name');

/** A DNS name, or a wildcard one such as "*.example.com". */
const DNS_NAME = /^(\*\.)?([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$/;

export const certificateTools = [
  defineTool({
    name: 'custom-certificate-create',
    family: 'networking',
    title: 'Upload certificate',
    description: 'Upload a PEM certificate.',
    details:
      'Uploads a certificate you already have (private key, leaf certificate and chain, all PEM) for use by load balancers. The private key is sent to the platform only and never shown again.',
    input: z.strictObject({
      Name: CertificateName,
      PrivateKey: pem(/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key').describe('PEM key'),
      LeafCertificate: pem(/-----BEGIN CERTIFICATE-----/, 'a certificate').describe('PEM leaf cert'),
      CertificateChain: pem(/-----BEGIN CERTIFICATE-----/, 'a certificate chain').describe('PEM CA chain'),
    }),
    annotations: annotations.create,
    wait: { kind: 'certificate' },
    request: {
      method: 'POST',
      path: '/v2/certificates',
      body: {
        name: 'Name',
        private_key: 'PrivateKey',
        leaf_certificate: 'LeafCertificate',
        certificate_chain: 'CertificateChain',
      },
      fixed: { type: 'custom' },
    },
    result: returns<{ certificate: Certificate }>(),
  }),
  defineTool({
    name: 'acme-certificate-create',
    family: 'networking',
    title: 'Create ACME certificate',
    description: 'ACME cert for domains in domain-list.',
    details:
      'Requests a certificate from the ACME certificate authority for domains managed by the DNS service (see domain-list). It starts `pending` and becomes `verified` once issued.',
    input: z.strictObject({
      Name: CertificateName,
      DnsNames: z
        .array(
          z
            .string()
            .trim()
            .toLowerCase()
            .max(LIMITS.hostname)
            .regex(DNS_NAME, 'expected a DNS name such as "example.com" or "*.example.com"'),
        )
        .min(1)
        .describe('Wildcards allowed'),
    }),
    annotations: annotations.create,
    wait: { kind: 'certificate' },
    request: {
      method: 'POST',
      path: '/v2/certificates',
      body: { name: 'Name', dns_names: 'DnsNames' },
      fixed: { type: 'lets_encrypt' },
    },
    result: returns<{ certificate: Certificate }>(),
  }),
  defineTool({
    name: 'certificate-delete',
    family: 'networking',
    title: 'Delete certificate',
    description: 'Delete a certificate.',
    input: z.strictObject({ ID: CertificateId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/certificates/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'certificate-get',
    family: 'networking',
    title: 'Get certificate',
    description: 'One certificate.',
    details: 'Shows a certificate: names, state, expiry and SHA-1 fingerprint (never its private key).',
    input: z.strictObject({ ID: CertificateId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/certificates/{ID}' },
    result: returns<{ certificate: Certificate }>(),
  }),
  defineTool({
    name: 'certificate-list',
    family: 'networking',
    title: 'List certificates',
    description: 'List certificates.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/certificates', query: pageQuery },
    result: returns<CertificateList>(),
  }),
] as const;
