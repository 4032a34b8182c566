/** Each kind `wait` polls is read with the get operation the API description gives it. */
import { describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import { operation } from '../../../tooling/openapi/index.js';
import { WAIT_KINDS } from './index.js';

/** The operation each kind of `wait` polls. */
const WAIT_OPERATIONS: Record<keyof typeof WAIT_KINDS, string> = {
  action: 'actions_get',
  vm: 'droplets_get',
  database: 'databases_get_cluster',
  'load-balancer': 'loadBalancers_get',
  certificate: 'certificates_get',
  image: 'images_get',
  'vpc-peering': 'vpcPeerings_get',
  'database-replica': 'databases_get_replica',
  'byoip-prefix': 'byoipPrefixes_get',
  'app-deployment': 'apps_get_deployment',
  'kubernetes-cluster': 'kubernetes_get_cluster',
  'registry-garbage-collection': 'registries_list_garbageCollections',
};
const template = (path: string) => path.replace(/\{\w+\}/g, '{}');

describe('the kinds wait polls', () => {
  it.each(Object.entries(WAIT_KINDS))('wait for %s polls its get operation', (kind, { request }) => {
    const expected = operation(WAIT_OPERATIONS[kind as keyof typeof WAIT_KINDS]);
    expect(request.method).toBe(expected.method);
    expect(template(request.path)).toBe(template(expected.path));
  });
});
