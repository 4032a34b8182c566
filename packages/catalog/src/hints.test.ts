/**
 * The hint tables: each operation of the API description (the committed subset) finds its own
 * scopes by method and a filled path, through the operation model; every tool a hint names exists.
 */
import { ApiError, InputError, NetworkError } from '@cloudcall/core';
import { subset } from '@cloudcall/openapi-subset';
import { describe, expect, it } from 'vitest';
import { hintFor, reportError, scopesFor } from './hints.js';
import { families, toolsOf } from './index.js';

const apiError = (
  status: number,
  method: string,
  path: string,
  apiMessage = 'refused',
  retryAfterSeconds?: number,
) =>
  ApiError.from({ status, id: 'some_id', apiMessage, method, path, requestId: 'req-1', retryAfterSeconds });

/** A path template filled the way a tool fills it: each parameter a plausible value. */
const filled = (template: string) => template.replace(/\{[^}]+\}/g, 'x1');

describe('the scopes', () => {
  it.each(Object.entries(subset.operations))('%s: its filled path finds its scopes', (_, operation) => {
    expect(scopesFor(operation.method, filled(operation.path))).toEqual(operation.scopeSets);
  });

  it('prefers a literal segment over a parameter (/v2/droplets/actions is not a droplet id)', () => {
    const literal = subset.operations.dropletActions_post_byTag;
    expect(literal?.path).toBe('/v2/droplets/actions');
    expect(scopesFor('POST', '/v2/droplets/actions?tag_name=web')).toEqual(literal?.scopeSets);
  });
});

describe('hintFor', () => {
  it('names the scope a 403 needs, from the API description', () => {
    expect(hintFor(apiError(403, 'DELETE', '/v2/databases/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30'))).toMatch(
      /scope database:delete/,
    );
    // Any one set will do: both are named.
    expect(hintFor(apiError(403, 'POST', '/v2/domains/example.com/records'))).toMatch(
      /domain:create, or domain:update/,
    );
  });

  it('says what a 403 about the VPC means, not a scope the token already has', () => {
    const vpc = '/v2/vpcs/5a4981aa-9653-4bd1-bef5-d6bff52042e4';
    const members = apiError(
      403,
      'DELETE',
      vpc,
      'Can not delete VPC with members: it has 1; remove them first.',
    );
    expect(hintFor(members)).toMatch(/vpc-list-members/);
    expect(hintFor(members)).not.toMatch(/scope/);
    const fallback = apiError(403, 'DELETE', vpc, 'Can not delete the default VPC of a region.');
    expect(hintFor(fallback)).toMatch(/default VPC/);
    expect(hintFor(fallback)).not.toMatch(/scope/);
    // Any other 403 on the same call is still about the token.
    expect(hintFor(apiError(403, 'DELETE', vpc, 'You are not authorized.'))).toMatch(/scope vpc:delete/);
  });

  it('names the list tool on a 404, most specific path first', () => {
    expect(hintFor(apiError(404, 'GET', '/v2/droplets/42'))).toMatch(/vm-list/);
    expect(hintFor(apiError(404, 'DELETE', '/v2/databases/u1/users/bob'))).toMatch(/db-cluster-list-users/);
    expect(hintFor(apiError(404, 'GET', '/v2/databases/u1'))).toMatch(/db-cluster-list\b/);
    expect(hintFor(apiError(404, 'GET', '/v2/tags/env:prod'))).toMatch(/tag-list/);
    expect(hintFor(apiError(404, 'POST', '/v2/tags/web/resources'))).toMatch(/tag-list .*vm-list/);
    expect(hintFor(apiError(404, 'DELETE', '/v2/snapshots/171000001'))).toMatch(/snapshot-list/);
    expect(hintFor(apiError(404, 'GET', '/v2/unknown/thing'))).toBeUndefined();
  });

  it('sends a size refused in a region to size-list', () => {
    const error = apiError(422, 'POST', '/v2/droplets', 'Size s-8vcpu-16gb is not available in region sfo1.');
    expect(hintFor(error)).toMatch(/size-list/);
    expect(hintFor(apiError(422, 'POST', '/v2/droplets', 'Name is invalid.'))).toBeUndefined();
  });

  it("reads the platform's common 422s, the most specific first", () => {
    const refusal = (path: string, message: string) => hintFor(apiError(422, 'POST', path, message));
    const resize = '/v2/droplets/1/actions';
    // Both say the size "is not available": only the second is about the region.
    expect(
      refusal(
        resize,
        "This size is not available because it has a smaller disk: s-1vcpu-1gb has 25 GB, the Droplet's disk is 80 GB.",
      ),
    ).toMatch(/^A VM's disk cannot shrink: .*size-list/);
    expect(refusal('/v2/droplets', 'Size m-2vcpu-16gb is not available in region blr1.')).toMatch(
      /^That size is not offered in that region: size-list/,
    );
    expect(
      refusal('/v2/droplets', 'You specified an invalid size for Droplet creation: huge is not a size slug.'),
    ).toMatch(/^No size has that slug: size-list/);
    expect(refusal('/v2/droplets', 'Size s-3vcpu-1gb is no longer available.')).toMatch(
      /no longer sold: size-list/,
    );
    expect(
      refusal(
        '/v2/droplets',
        'You specified an invalid region for Droplet creation: mar1 is not a region slug.',
      ),
    ).toMatch(/region-list/);
    expect(refusal(resize, 'Droplet already has a pending event.')).toMatch(/wait with Kind action/);
    expect(refusal(resize, 'Droplet is currently on. Please power it off to run this event.')).toMatch(
      /power-off-vm/,
    );
    expect(refusal('/v2/databases/u/resize', 'size db-s-9 is not a database size')).toMatch(
      /db-cluster-list-options/,
    );
    expect(refusal('/v2/databases/u/resize', 'the cluster is creating; resize it once it is online')).toMatch(
      /wait with Kind database/,
    );
  });

  it('says how long to wait on a 429, and what else failed', () => {
    expect(hintFor(apiError(429, 'GET', '/v2/droplets', 'slow down', 7))).toMatch(/wait 7 s/);
    expect(hintFor(apiError(401, 'GET', '/v2/account'))).toMatch(/DIGITALOCEAN_API_TOKEN/);
    expect(hintFor(apiError(503, 'GET', '/v2/account'))).toMatch(/retry/);
    expect(hintFor(new InputError('is required', 'ID'))).toMatch(/Nothing was sent/);
    expect(hintFor(new NetworkError('connect ECONNREFUSED'))).toMatch(/retry/);
  });

  it('names only tools that exist', () => {
    const names = new Set(toolsOf(families).map((tool) => tool.name));
    const samples = [
      ...['/v2/droplets/1/actions/2', '/v2/droplets/1', '/v2/actions/1', '/v2/databases/u/users/n']
        .concat(['/v2/databases/u/topics/t', '/v2/databases/u/online-migration/m', '/v2/databases/u'])
        .concat(['/v2/load_balancers/u', '/v2/firewalls/u', '/v2/vpcs/u', '/v2/vpc_peerings/u'])
        .concat(['/v2/certificates/u', '/v2/domains/d/records/1', '/v2/domains/d', '/v2/account/keys/1'])
        .concat(['/v2/images/1', '/v2/reserved_ips/1.2.3.4', '/v2/reserved_ipv6/x', '/v2/byoip_prefixes/u'])
        .concat(['/v2/customers/my/invoices/u'])
        .map((path) => hintFor(apiError(404, 'GET', path))),
      hintFor(apiError(422, 'POST', '/v2/droplets', 'Size x is not available in region y.')),
      hintFor(
        apiError(422, 'POST', '/v2/droplets', 'Image 7 is not available in region nyc3; it is in ams3.'),
      ),
      ...[
        'This size is not available because it has a smaller disk.',
        'You specified an invalid size for resize: x is not a size slug.',
        'Size x is no longer available.',
        'You specified an invalid region for Droplet creation: x is not a region slug.',
        'You specified an invalid image for rebuild: 7.',
        'size x is not a database size',
        'the cluster is creating; migrate it once it is online',
        'Droplet already has a pending event.',
        'Droplet is currently on. Please power it off to run this event.',
      ].map((message) => hintFor(apiError(422, 'POST', '/v2/droplets', message))),
    ];
    for (const hint of samples) {
      expect(hint).toBeDefined();
      for (const named of hint?.match(/\b[a-z]+(?:-[a-z0-9]+)+\b/g) ?? []) {
        if (named.startsWith('full-access')) continue;
        expect(names.has(named), `${hint}: ${named}`).toBe(true);
      }
    }
  });
});

describe('reportError', () => {
  it('gives the facts of an API error and its hint', () => {
    expect(reportError(apiError(429, 'GET', '/v2/droplets', 'slow down', 3))).toMatchObject({
      status: 429,
      error_id: 'some_id',
      request_id: 'req-1',
      retryable: true,
      retry_after_seconds: 3,
      hint: expect.stringMatching(/wait 3 s/),
    });
    expect(reportError(apiError(422, 'POST', '/v2/droplets', 'Name is invalid.'))).toMatchObject({
      status: 422,
      retryable: false,
    });
  });

  it('names the refused arguments of an input error', () => {
    const report = reportError(new InputError([{ argument: 'ID', message: 'is required' }]));
    expect(report).toMatchObject({ error_id: 'invalid_arguments', retryable: false });
    expect(report.issues).toEqual([{ argument: 'ID', message: 'is required' }]);
  });
});
