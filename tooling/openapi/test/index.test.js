import { describe, expect, it } from 'vitest';
import {
  assertValidRequest,
  assertValidResponse,
  noResponseBody,
  operation,
  subset,
  validateRequest,
  validateResponse,
} from '../index.js';

const sshKey = {
  id: 512189,
  fingerprint: '3b:16:bf:e4:8b:00:8b:b8:59:8c:a9:d3:f0:19:45:fa',
  public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyMaterial laptop',
  name: 'laptop',
};

const account = {
  droplet_limit: 25,
  floating_ip_limit: 5,
  email: 'ops@example.com',
  name: 'Ops',
  uuid: 'b6fr89dbf6d9156cace5f3c78dc9851d957381ef',
  email_verified: true,
  status: 'active',
  status_message: '',
  team: { uuid: '5df3e3004a17e242b7c20ca6c9fc25b701a47ece', name: 'My Team' },
};

const notFound = {
  id: 'not_found',
  message: 'The resource you requested could not be found.',
  request_id: 'r-1',
};

describe('operation', () => {
  it('gives method, path and scopes', () => {
    expect(operation('sshKeys_list')).toEqual({
      method: 'GET',
      path: '/v2/account/keys',
      scopes: ['ssh_key:read'],
      scopeSets: [['ssh_key:read']],
    });
    expect(operation('droplets_destroy')).toMatchObject({
      method: 'DELETE',
      path: '/v2/droplets/{droplet_id}',
    });
  });

  it('returns copies', () => {
    operation('sshKeys_list').scopes.push('mutated');
    expect(subset.operations.sshKeys_list.scopes).toEqual(['ssh_key:read']);
  });

  it('throws for an unknown operation', () => {
    expect(() => operation('sshKeys_nope')).toThrow(/sshKeys_nope/);
  });
});

describe('noResponseBody', () => {
  it('is true where a success other than 204 declares no JSON body', () => {
    expect(noResponseBody('databases_update_clusterSize')).toBe(true);
    expect(noResponseBody('databases_patch_config')).toBe(true);
    expect(noResponseBody('byoipPrefixes_delete')).toBe(true);
    // 204 only: the client takes that as no content anyway.
    expect(noResponseBody('sshKeys_delete')).toBe(false);
    expect(noResponseBody('sshKeys_get')).toBe(false);
    expect(() => noResponseBody('nope')).toThrow(/nope/);
  });
});

describe('validateResponse', () => {
  it('accepts a realistic sshKeys_list page', () => {
    const body = { ssh_keys: [sshKey], links: {}, meta: { total: 1 } };
    expect(validateResponse('sshKeys_list', 200, body)).toEqual({ valid: true, errors: [] });
  });

  it('rejects a wrong type and a missing required field, naming them', () => {
    const body = { ssh_keys: [{ ...sshKey, id: '512189', name: undefined }], links: {} };
    delete body.ssh_keys[0].name;
    const result = validateResponse('sshKeys_list', 200, body);
    expect(result.valid).toBe(false);
    expect(result.errors).toContain('/ssh_keys/0/id must be integer');
    expect(result.errors).toContain("/ssh_keys/0 must have required property 'name'");
    expect(result.errors).toContain("/ must have required property 'meta'");
  });

  it('accepts account_get and rejects a broken account', () => {
    expect(validateResponse('account_get', 200, { account })).toEqual({ valid: true, errors: [] });
    const { email: _email, ...withoutEmail } = account;
    const broken = validateResponse('account_get', 200, { account: { ...withoutEmail, status: 'gone' } });
    expect(broken.valid).toBe(false);
    expect(broken.errors).toContain("/account must have required property 'email'");
    expect(broken.errors.join('\n')).toMatch(
      /^\/account\/status must be equal to one of the allowed values/m,
    );
  });

  it('validates error bodies for 404 and falls back to default for undeclared statuses', () => {
    expect(validateResponse('sshKeys_get', 404, notFound).valid).toBe(true);
    expect(validateResponse('sshKeys_get', 404, { id: 'not_found', message: 'gone' }).valid).toBe(true);
    expect(validateResponse('sshKeys_get', 404, { message: 'gone' }).errors).toEqual([
      "/ must have required property 'id'",
    ]);
    // 409 is not declared for this operation; its `default` response (an error body) applies.
    expect(validateResponse('sshKeys_get', 409, notFound).valid).toBe(true);
    expect(validateResponse('sshKeys_get', 409, { ssh_key: sshKey }).valid).toBe(false);
  });

  it('supports OpenAPI 3.0 nullable', () => {
    const record = { id: 1, type: 'A', name: '@', data: '203.0.113.10', ttl: 1800 };
    const nulls = { priority: null, port: null, weight: null, flags: null, tag: null };
    expect(
      validateResponse('domains_get_record', 200, { domain_record: { ...record, ...nulls } }).valid,
    ).toBe(true);
    // Only the properties declared nullable accept null.
    expect(
      validateResponse('domains_get_record', 200, { domain_record: { ...record, ttl: null } }).errors,
    ).toEqual(['/domain_record/ttl must be integer']);
    expect(
      validateResponse('domains_get_record', 200, { domain_record: { ...record, port: 'x' } }).errors,
    ).toEqual(['/domain_record/port must be integer']);
  });

  it('checks formats', () => {
    const body = { vpc: { id: 'not-a-uuid' } };
    expect(validateResponse('vpcs_get', 200, body).errors).toContain('/vpc/id must match format "uuid"');
  });

  it('accepts only an empty body for a status declared without JSON', () => {
    expect(validateResponse('sshKeys_delete', 204, undefined).valid).toBe(true);
    expect(validateResponse('sshKeys_delete', 204, '').valid).toBe(true);
    expect(validateResponse('sshKeys_delete', 204, { ok: true }).valid).toBe(false);
    expect(validateResponse('databases_update_clusterSize', 202, undefined).valid).toBe(true);
  });

  it('throws for an unknown operation', () => {
    expect(() => validateResponse('nope_get', 200, {})).toThrow(/nope_get/);
  });
});

describe('validateRequest', () => {
  it('checks request bodies', () => {
    expect(validateRequest('sshKeys_create', { name: 'laptop', public_key: sshKey.public_key }).valid).toBe(
      true,
    );
    expect(validateRequest('sshKeys_create', { name: 'laptop' }).errors).toEqual([
      "/ must have required property 'public_key'",
    ]);
    // Optional fields must be left out, not sent as null or "".
    const cluster = {
      name: 'db',
      engine: 'pg',
      version: '16',
      size: 'db-s-1vcpu-1gb',
      region: 'nyc1',
      num_nodes: 1,
    };
    expect(validateRequest('databases_create_cluster', cluster).valid).toBe(true);
    expect(
      validateRequest('databases_create_cluster', { ...cluster, rules: null, project_id: '' }).errors,
    ).toEqual(['/project_id must match format "uuid"', '/rules must be array']);
  });

  it('follows discriminator mappings', () => {
    // A oneOf of `droplet_action` and its own extension: plain JSON Schema would reject every body.
    expect(validateRequest('dropletActions_post_byTag', { type: 'power_cycle' }).valid).toBe(true);
    expect(validateRequest('dropletActions_post_byTag', { type: 'snapshot', name: 'nightly' }).valid).toBe(
      true,
    );
    expect(validateRequest('dropletActions_post_byTag', { type: 'reboot' }).valid).toBe(false);
    expect(
      validateRequest('dropletActions_post', { type: 'resize', size: 's-2vcpu-4gb', disk: 'yes' }).errors,
    ).toEqual(['/disk must be boolean']);
    expect(validateRequest('reservedIPsActions_post', { type: 'assign' }).errors).toEqual([
      "/ must have required property 'droplet_id'",
    ]);
    expect(
      validateRequest('domains_create_record', { type: 'MX', name: '@', data: 'mx.example.com' }).valid,
    ).toBe(false);
    expect(
      validateRequest('domains_create_record', {
        type: 'MX',
        name: '@',
        data: 'mx.example.com',
        priority: 10,
      }).valid,
    ).toBe(true);
  });

  it('handles absent bodies', () => {
    expect(validateRequest('sshKeys_list', undefined).valid).toBe(true);
    expect(() => validateRequest('sshKeys_list', {})).toThrow(/sshKeys_list/);
    expect(validateRequest('sshKeys_create', undefined).valid).toBe(false);
  });
});

describe('assertions', () => {
  it('throws an Error listing the problems', () => {
    expect(() => assertValidResponse('sshKeys_get', 200, { ssh_key: sshKey })).not.toThrow();
    expect(() => assertValidResponse('sshKeys_get', 200, { ssh_key: { ...sshKey, id: 'x' } })).toThrow(
      /sshKeys_get 200 response[\s\S]*\/ssh_key\/id must be integer/,
    );
    expect(() => assertValidRequest('sshKeys_create', { name: 1 })).toThrow(/\/name must be string/);
  });
});
