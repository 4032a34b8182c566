/**
 * A cluster's kubeconfig as doctl writes it, through the built CLI: `kubeconfig save` and `cluster
 * create` merge it into the kubeconfig file (other clusters kept, the current context changed only
 * as asked) with a user that runs `cloudcall kubernetes cluster kubeconfig exec-credential` for a
 * token. That command is run here as kubectl runs it (its command and arguments from the file, a
 * `cloudcall` on PATH): it prints an ExecCredential on stdout and the token nowhere else. Against
 * the sandbox in process and on loopback, with a token from the environment and from a context.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cliRunner, type Json, MAIN } from './testing/run.js';

const run = promisify(execFile);
const cli = cliRunner({}, { process: true });
const POOL = ['--node-pool', 'name=workers;size=s-2vcpu-4gb;count=1'];
/** The API on loopback, for runs that are not --sandbox (another state file than the CLI's). */
let api: Sandbox;
/** A `cloudcall` on PATH, as an installed CLI puts one there. */
const bin = join(cli.home, 'bin');

beforeAll(async () => {
  mkdirSync(bin);
  writeFileSync(join(bin, 'cloudcall'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  chmodSync(join(bin, 'cloudcall'), 0o755);
  api = await startSandbox({ statePath: join(cli.home, 'api.json') });
});
afterAll(async () => {
  await api.close();
});

/** A kubeconfig file of its own, holding another cluster, its context current. */
function kubeconfigWithOther(name: string): string {
  const dir = join(cli.home, name);
  mkdirSync(dir);
  const path = join(dir, 'config');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: other, cluster: {server: "https://other.example", insecure-skip-tls-verify: true}}]',
      'contexts: [{name: other, context: {cluster: other, user: other, namespace: team}}]',
      'users: [{name: other, user: {token: keep-me}}]',
      'current-context: other',
      '',
    ].join('\n'),
  );
  return path;
}

const OTHER = {
  clusters: [
    { name: 'other', cluster: { server: 'https://other.example', 'insecure-skip-tls-verify': true } },
  ],
  contexts: [{ name: 'other', context: { cluster: 'other', user: 'other', namespace: 'team' } }],
  users: [{ name: 'other', user: { token: 'keep-me' } }],
};

/** Every file under `dir`, as text. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [readFileSync(path, 'utf8')] : [];
  });
}

/** The user's exec command of context `context` in the file, run as kubectl runs it. */
async function kubectlExec(path: string, context: string, env: Record<string, string> = {}) {
  const config = parse(readFileSync(path, 'utf8'));
  const user = config.contexts.find((entry: Json) => entry.name === context).context.user;
  const { exec } = config.users.find((entry: Json) => entry.name === user).user;
  const done = await run(exec.command, exec.args, {
    env: {
      ...cli.env,
      PATH: `${bin}:${cli.env.PATH}`,
      // What kubectl tells the plugin.
      KUBERNETES_EXEC_INFO: JSON.stringify({
        apiVersion: exec.apiVersion,
        kind: 'ExecCredential',
        spec: { interactive: false },
      }),
      ...env,
    },
  });
  return { exec, ...done };
}

/** An ExecCredential as kubectl reads it: its token. */
function tokenOf(stdout: string, apiVersion: string): string {
  const credential = JSON.parse(stdout);
  expect(credential).toEqual({
    apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false },
    status: { token: expect.stringMatching(/^[0-9a-f]{64}$/), expirationTimestamp: expect.any(String) },
  });
  expect(Date.parse(credential.status.expirationTimestamp)).not.toBeNaN();
  return credential.status.token;
}

describe("kubeconfig save, as doctl writes it: kubectl asks cloudcall's exec-credential for each token", () => {
  it('merges the cluster beside the others, current only when asked, and exec-credential hands kubectl a token no file keeps', async () => {
    const created = await cli.sandbox(
      'kubernetes',
      'cluster',
      'create',
      'exec-k8s',
      '--region',
      'nyc3',
      ...POOL,
    );
    expect(created.code, created.stderr).toBe(0);
    const { id } = (created.json as Json).kubernetes_cluster;
    const path = kubeconfigWithOther('kube-a');

    // Not made current when asked not to: the other context stays current.
    const kept = await cli.run(
      ['--sandbox', 'kubernetes', 'cluster', 'kubeconfig', 'save', 'exec-k8s', '--set-current-context=false'],
      { KUBECONFIG: path },
    );
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain('the current context is still other.');
    let config = parse(readFileSync(path, 'utf8'));
    expect(config['current-context']).toBe('other');
    expect(config.clusters[0]).toEqual(OTHER.clusters[0]);
    expect(config.contexts[0]).toEqual(OTHER.contexts[0]);
    expect(config.users[0]).toEqual(OTHER.users[0]);
    expect(config.clusters.map((c: Json) => c.name)).toEqual(['other', 'do-nyc3-exec-k8s']);

    // By default (doctl's), made current; saved twice, not doubled.
    for (const _ of [1, 2]) {
      const saved = await cli.run(['--sandbox', 'kubernetes', 'cluster', 'kubeconfig', 'save', id], {
        KUBECONFIG: path,
      });
      expect(saved.code, saved.stderr).toBe(0);
      expect(saved.stdout).toContain('the current context is now do-nyc3-exec-k8s.');
    }
    config = parse(readFileSync(path, 'utf8'));
    expect(config['current-context']).toBe('do-nyc3-exec-k8s');
    expect(config.users.map((u: Json) => u.name)).toEqual(['other', 'do-nyc3-exec-k8s-admin']);
    expect(config.users[0]).toEqual(OTHER.users[0]);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const { exec, stdout, stderr } = await kubectlExec(path, 'do-nyc3-exec-k8s');
    expect(exec.args).toEqual([
      'kubernetes',
      'cluster',
      'kubeconfig',
      'exec-credential',
      '--version=v1beta1',
      '--sandbox',
      id,
    ]);
    expect(stderr).toBe('');
    const token = tokenOf(stdout, 'client.authentication.k8s.io/v1beta1');
    // Fresh each time, and kept in no file (the kubeconfig, the sandbox's state, the config).
    expect(tokenOf((await kubectlExec(path, 'do-nyc3-exec-k8s')).stdout, exec.apiVersion)).not.toBe(token);
    for (const text of filesUnder(cli.home)) expect(text).not.toContain(token);

    // Traced and audited, the token still shows only on stdout.
    const traced = await cli.run(
      ['kubernetes', 'cluster', 'kubeconfig', 'exec-credential', '--version=v1', '--sandbox', '--trace', id],
      { CLOUDCALL_AUDIT_LOG: join(cli.home, 'audit.jsonl') },
    );
    expect(traced.code, traced.stderr).toBe(0);
    expect(traced.stderr).toContain('/credentials');
    const again = tokenOf(traced.stdout, 'client.authentication.k8s.io/v1');
    expect(traced.stderr).not.toContain(again);
    for (const text of filesUnder(cli.home)) expect(text).not.toContain(again);
  });

  it('exec-credential refuses what kubectl cannot use, printing nothing on stdout', async () => {
    const version = await cli.sandbox(
      'kubernetes',
      'cluster',
      'kubeconfig',
      'exec-credential',
      '--version=v2',
      '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30',
    );
    expect(version.code).toBe(2);
    expect(version.stdout).toBe('');
    expect(version.stderr).toContain('Allowed choices are v1beta1, v1');
    const missing = await cli.sandbox(
      'kubernetes',
      'cluster',
      'kubeconfig',
      'exec-credential',
      '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30',
    );
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/404|not found/i);
  });

  it('--expiry-seconds saves a token that expires instead, as doctl does', async () => {
    await cli.sandbox('kubernetes', 'cluster', 'create', 'expiring', '--region', 'nyc3', ...POOL);
    const path = kubeconfigWithOther('kube-b');
    const saved = await cli.run(
      ['--sandbox', 'kubernetes', 'cluster', 'kubeconfig', 'save', 'expiring', '--expiry-seconds', '3600'],
      { KUBECONFIG: path },
    );
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain('Saved the credentials of do-nyc3-expiring');
    expect(`${saved.stdout}${saved.stderr}`).not.toMatch(/[0-9a-f]{64}/);
    const config = parse(readFileSync(path, 'utf8'));
    expect(config.users[1].user).toEqual({ token: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('cluster create saves the kubeconfig against the platform by default; the sandbox only when asked', async () => {
    // The platform (here on loopback), a token from --token: saved without being asked, the token
    // left out of the file; kubectl's cloudcall finds one as cloudcall does (the environment).
    const path = kubeconfigWithOther('kube-c');
    const token = 'dop_v1_kubeconfig-test-token';
    const live = await cli.run(
      [
        '--api-url',
        api.url,
        '--token',
        token,
        'kubernetes',
        'cluster',
        'create',
        'live-k8s',
        '--region',
        'nyc3',
        ...POOL,
      ],
      { KUBECONFIG: path },
    );
    expect(live.code, live.stderr).toBe(0);
    expect(live.stderr).toContain(`Saved do-nyc3-live-k8s to ${path}`);
    expect(live.stderr).toContain(
      'kubectl runs cloudcall without --token: it needs DIGITALOCEAN_API_TOKEN or a context',
    );
    expect((live.json as Json).kubernetes_cluster.name).toBe('live-k8s');
    expect(readFileSync(path, 'utf8')).not.toContain(token);
    const config = parse(readFileSync(path, 'utf8'));
    expect(config['current-context']).toBe('do-nyc3-live-k8s');
    const { exec, stdout } = await kubectlExec(path, 'do-nyc3-live-k8s', { DIGITALOCEAN_API_TOKEN: token });
    expect(exec.args).toContain(`--api-url=${api.url}`);
    tokenOf(stdout, exec.apiVersion);

    // Not saved when told not to; the current context not changed when told not to.
    const before = readFileSync(path, 'utf8');
    const unsaved = await cli.run(
      [
        '--api-url',
        api.url,
        '--token',
        token,
        'kubernetes',
        'cluster',
        'create',
        'quiet-k8s',
        '--region',
        'nyc3',
        ...POOL,
        '--update-kubeconfig=false',
      ],
      { KUBECONFIG: path },
    );
    expect(unsaved.code, unsaved.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(before);

    // The sandbox's clusters are no servers: saved only with --update-kubeconfig.
    const sandboxPath = kubeconfigWithOther('kube-d');
    const plain = await cli.run(
      ['--sandbox', 'kubernetes', 'cluster', 'create', 'sand-a', '--region', 'nyc3', ...POOL],
      {
        KUBECONFIG: sandboxPath,
      },
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('Saved');
    expect(parse(readFileSync(sandboxPath, 'utf8')).clusters).toHaveLength(1);
    const asked = await cli.run(
      [
        '--sandbox',
        'kubernetes',
        'cluster',
        'create',
        'sand-b',
        '--region',
        'nyc3',
        ...POOL,
        '--update-kubeconfig',
        '--set-current-context=false',
      ],
      { KUBECONFIG: sandboxPath },
    );
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toContain('the current context is still other');
    const saved = parse(readFileSync(sandboxPath, 'utf8'));
    expect(saved.contexts.map((c: Json) => c.name)).toEqual(['other', 'do-nyc3-sand-b']);
    expect(saved['current-context']).toBe('other');

    // A bad yes-or-no is refused before anything is made.
    const bad = await cli.run(
      [
        '--sandbox',
        'kubernetes',
        'cluster',
        'create',
        'sand-c',
        '--region',
        'nyc3',
        ...POOL,
        '--set-current-context=maybe',
      ],
      { KUBECONFIG: sandboxPath },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--set-current-context: expected true or false, got "maybe"');
    const names = (await cli.sandbox('kubernetes', 'cluster', 'list')).json as Json;
    expect(names.kubernetes_clusters.map((c: Json) => c.name)).not.toContain('sand-c');
  });

  it("a context's cluster: kubectl's cloudcall uses that context, with no token in the environment", async () => {
    const path = kubeconfigWithOther('kube-e');
    const init = await cli.run(
      ['auth', 'init', '--context', 'work', '--api-url', api.url],
      {},
      'dop_v1_work-token\n',
    );
    expect(init.code, init.stderr).toBe(0);
    const created = await cli.run(
      ['kubernetes', 'cluster', 'create', 'work-k8s', '--region', 'nyc3', ...POOL],
      {
        KUBECONFIG: path,
      },
    );
    expect(created.code, created.stderr).toBe(0);
    const { exec, stdout } = await kubectlExec(path, 'do-nyc3-work-k8s');
    expect(exec.args).toContain('--context=work');
    expect(exec.args.join(' ')).not.toContain('token');
    tokenOf(stdout, exec.apiVersion);
  });
});
