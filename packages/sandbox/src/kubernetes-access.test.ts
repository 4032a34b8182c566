/**
 * Working with a Kubernetes cluster from outside: kubeconfig (YAML) and credentials with fresh
 * tokens, the cluster's user and status messages, clusterlint runs, registry integration, and the
 * 1-Click applications. Refusals change nothing; every JSON answer is checked against the OpenAPI
 * response schema of its operation.
 */
import { responseContentTypes } from '@cloudcall/openapi-subset';
import { describe, expect, it } from 'vitest';
import { CLUSTER_PROVISION_MS, KUBERNETES_ONE_CLICKS, LINT_MS } from './families/kubernetes.js';
import { expectError, MISSING, useKubernetesSandbox } from './testing/kubernetes.js';

const { sandbox, call, refusedUnchanged, advance, cluster, runningCluster, get } = useKubernetesSandbox();

describe('access', () => {
  it('answers a kubeconfig as YAML, with the endpoint, the CA and a fresh token', async () => {
    const made = await runningCluster('access');
    const fetchConfig = (query = '') =>
      fetch(`${sandbox().url}/v2/kubernetes/clusters/${made.id}/kubeconfig${query}`, {
        headers: { authorization: 'Bearer test' },
      });
    const reply = await fetchConfig('?expiry_seconds=3600');
    expect(reply.status).toBe(200);
    const type = reply.headers.get('content-type') ?? '';
    expect(responseContentTypes('kubernetes_get_kubeconfig', 200)).toContain(type);
    const text = await reply.text();
    expect(text).toContain(`server: https://${made.id}.k8s.ondigitalocean.com`);
    expect(text).toContain('current-context: do-nyc1-access');
    expect(text).toContain('user: do-nyc1-access-admin');
    const token = /token: ([0-9a-f]{64})/.exec(text)?.[1];
    expect(token).toBeDefined();
    const again = await (await fetchConfig()).text();
    expect(again).not.toContain(token as string);

    const credentials = await call('kubernetes_get_credentials', {
      params: { cluster_id: made.id },
      query: '?expiry_seconds=60',
    });
    expect(credentials.status, credentials.text).toBe(200);
    const body = credentials.body;
    expect(body.server).toBe(`https://${made.id}.k8s.ondigitalocean.com`);
    expect(text).toContain(`certificate-authority-data: ${body.certificate_authority_data}`);
    expect(Buffer.from(body.certificate_authority_data, 'base64').toString()).toMatch(
      /^-----BEGIN CERTIFICATE-----/,
    );
    expect(body.token).toMatch(/^[0-9a-f]{64}$/);
    expect(body.token).not.toBe(token);
    const life =
      Date.parse(body.expires_at) - (await sandbox().store.read((w) => Date.now() + w.clockOffsetMs));
    expect(Math.abs(life - 60_000)).toBeLessThan(60_000);

    expectError(
      await call('kubernetes_get_credentials', {
        params: { cluster_id: made.id },
        query: '?expiry_seconds=-1',
      }),
      400,
      /expiry_seconds must be a whole number/,
    );
    const sso = await fetchConfig('?type=sso');
    expect(sso.status).toBe(422);
    expect(await sso.text()).toMatch(/does not have SSO enabled/);
    expect((await fetchConfig('?type=other')).status).toBe(400);
    expect(
      (
        await fetch(`${sandbox().url}/v2/kubernetes/clusters/${MISSING}/kubeconfig`, {
          headers: { authorization: 'Bearer t' },
        })
      ).status,
    ).toBe(404);
  });

  it('answers an SSO kubeconfig for a cluster with SSO, and the cluster user', async () => {
    const made = await cluster('sso', {
      sso: { enabled: true, issuer_url: 'https://sso.example.com', client_id: 'doks' },
    });
    expect(made.sso).toEqual({
      enabled: true,
      required: false,
      issuer_url: 'https://sso.example.com',
      client_id: 'doks',
    });
    const reply = await fetch(`${sandbox().url}/v2/kubernetes/clusters/${made.id}/kubeconfig?type=sso`, {
      headers: { authorization: 'Bearer test' },
    });
    const text = await reply.text();
    expect(text).toContain('command: doctl');
    expect(text).not.toMatch(/token:/);
    const user = await call('kubernetes_get_clusterUser', { params: { cluster_id: made.id } });
    expect(user.body).toEqual({
      kubernetes_cluster_user: { username: expect.stringContaining('@'), groups: ['k8saas:authenticated'] },
    });
    const messages = await call('kubernetes_get_status_messages', {
      params: { cluster_id: made.id },
      query: '?since=2024-01-01T00:00:00Z',
    });
    expect(messages.body).toEqual({ messages: [] });
    expectError(
      await call('kubernetes_get_status_messages', {
        params: { cluster_id: made.id },
        query: '?since=yesterday',
      }),
      400,
      /since must be a date-time/,
    );
  });
});

describe('clusterlint', () => {
  it('runs on a running cluster and answers the diagnostics once done', async () => {
    const made = await cluster('lint');
    const lint = (json?: unknown) =>
      call('kubernetes_run_clusterLint', { params: { cluster_id: made.id }, ...(json ? { json } : {}) });
    const results = (query = '') =>
      call('kubernetes_get_clusterLintResults', { params: { cluster_id: made.id }, query });
    await refusedUnchanged(lint({}), 422, /is provisioning: clusterlint runs once it is running/);
    expectError(await results(), 404, /no clusterlint run yet/);
    await advance(CLUSTER_PROVISION_MS);

    const first = await lint();
    expect(first.status, first.text).toBe(202);
    const inProgress = await results();
    expect(inProgress.body).toEqual({ run_id: first.body.run_id, requested_at: expect.any(String) });
    await advance(LINT_MS);
    // The doks group, by default: a new cluster passes it.
    expect((await results()).body).toMatchObject({ run_id: first.body.run_id, diagnostics: [] });

    const security = await lint({ include_groups: ['security'], exclude_checks: ['run-as-non-root'] });
    await advance(LINT_MS);
    const found = (await results()).body;
    expect(found.run_id).toBe(security.body.run_id);
    expect(found.diagnostics.map((d: { check_name: string }) => d.check_name)).toEqual([
      'privileged-containers',
    ]);
    expect(found.diagnostics[0].object).toMatchObject({ kind: 'Pod', namespace: 'kube-system' });
    // An earlier run, by its id.
    expect((await results(`?run_id=${first.body.run_id}`)).body.diagnostics).toEqual([]);
    expectError(await results(`?run_id=${MISSING}`), 404, /no clusterlint run/);
    await refusedUnchanged(lint({ include_groups: ['fast'] }), 422, /"fast" is not a clusterlint groups/);
  });
});

describe('registries', () => {
  it('integrates registries with clusters, by name or the account registry, and removes them', async () => {
    const one = await cluster('reg-one');
    const two = await cluster('reg-two');
    const both = [one.id, two.id];
    const added = await call('kubernetes_add_registries', {
      json: { cluster_uuids: both, registries: ['alpha', 'beta'] },
    });
    expect(added.status, added.text).toBe(204);
    expect(await get(two.id)).toMatchObject({ registries: ['alpha', 'beta'], registry_enabled: true });
    await call('kubernetes_remove_registries', { json: { cluster_uuids: [two.id], registries: ['alpha'] } });
    expect((await get(two.id)).registries).toEqual(['beta']);
    expect((await get(one.id)).registries).toEqual(['alpha', 'beta']);
    await call('kubernetes_remove_registries', {
      json: { cluster_uuids: both, registries: ['alpha', 'beta'] },
    });
    expect((await get(one.id)).registry_enabled).toBe(false);

    expect((await call('kubernetes_add_registry', { json: { cluster_uuids: [one.id] } })).status).toBe(204);
    expect(await get(one.id)).toMatchObject({ registry_enabled: true, registries: [] });
    expect((await call('kubernetes_remove_registry', { json: { cluster_uuids: [one.id] } })).status).toBe(
      204,
    );
    expect((await get(one.id)).registry_enabled).toBe(false);

    await refusedUnchanged(
      call('kubernetes_add_registry', { json: { cluster_uuids: [one.id, MISSING] } }),
      404,
      /no Kubernetes cluster/,
    );
    await refusedUnchanged(
      call('kubernetes_add_registry', { json: {} }),
      422,
      /cluster_uuids must be a non-empty array/,
    );
    await refusedUnchanged(
      call('kubernetes_add_registries', { json: { cluster_uuids: [one.id], registries: ['Bad Name'] } }),
      422,
      /is not a registry name/,
    );
  });
});

describe('1-Click applications', () => {
  it('lists droplet and kubernetes 1-Clicks, by type', async () => {
    const all = (await call('oneClicks_list')).body['1_clicks'];
    expect(all).toContainEqual({ slug: 'monitoring', type: 'kubernetes' });
    expect(all).toContainEqual({ slug: 'wordpress-20-04', type: 'droplet' });
    const kubernetes = (await call('oneClicks_list', { query: '?type=kubernetes' })).body['1_clicks'];
    expect(kubernetes.map((c: { slug: string }) => c.slug)).toEqual(KUBERNETES_ONE_CLICKS);
    const droplet = (await call('oneClicks_list', { query: '?type=droplet' })).body['1_clicks'];
    expect(droplet.every((c: { type: string }) => c.type === 'droplet')).toBe(true);
    expectError(
      await call('oneClicks_list', { query: '?type=app' }),
      400,
      /type must be droplet or kubernetes/,
    );
  });

  it('installs add-ons on a cluster', async () => {
    const made = await cluster('addons');
    const installed = await call('oneClicks_install_kubernetes', {
      json: { addon_slugs: ['monitoring', 'cert-manager'], cluster_uuid: made.id },
    });
    expect(installed.status, installed.text).toBe(200);
    expect(installed.body).toEqual({ message: 'Successfully kicked off addon job.' });
    await refusedUnchanged(
      call('oneClicks_install_kubernetes', {
        json: { addon_slugs: ['wordpress-20-04'], cluster_uuid: made.id },
      }),
      422,
      /"wordpress-20-04" is not a Kubernetes 1-Click/,
    );
    await refusedUnchanged(
      call('oneClicks_install_kubernetes', { json: { addon_slugs: ['monitoring'], cluster_uuid: MISSING } }),
      404,
      /no Kubernetes cluster/,
    );
  });
});
