/**
 * The guard against the sandbox on loopback: what reaches the API (seen by the sandbox itself)
 * when a rule refuses, a person declines or a plan is made, and what the audit log records.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, runTool, type Size, type ToolContext } from '@cloudcall/core';
import { MAX_DEPTH } from '@cloudcall/core/internal';
import { sshPublicKey } from '@cloudcall/sandbox';
import { describe, expect, it } from 'vitest';
import {
  type AuditEntry,
  auditListTool,
  GuardRefusal,
  guardedRun,
  openAuditLog,
  parseRule,
  planCall,
  readAudit,
} from './index.js';
import { tool, tools, useSandbox } from './testing/sandbox.js';

/** What must never reach a person raw: controls, formatting characters, line and paragraph separators. */
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const dir = mkdtempSync(join(tmpdir(), 'cloudcall-guard-'));
const sandbox = useSandbox();
const { seen, mutating } = sandbox;

describe('protection rules', () => {
  it('refuse a destructive tool on a protected tag before any mutating request, naming the rule', async () => {
    const id = await sandbox.createVm('prod-web', ['prod', 'web']);
    const audit = openAuditLog(join(dir, 'rules.log'));
    seen.length = 0;
    const call = guardedRun(
      tool('vm-delete'),
      { ID: id },
      { client: sandbox.connection.client },
      { frontEnd: 'cli', rules: [parseRule('tag:prod', '--protect')], unconfirmed: 'run', audit },
    );
    await expect(call).rejects.toThrow(GuardRefusal);
    await expect(call).rejects.toThrow(/prod-web .*protected by rule tag:prod \(--protect\)/);
    expect(mutating()).toEqual([]);
    expect(seen).toEqual([`GET /v2/droplets/${id}`]);
    const [entry] = (await readAudit(audit.path)).entries;
    expect(entry).toMatchObject({
      tool: 'vm-delete',
      front_end: 'cli',
      outcome: 'refused',
      reason: 'rule tag:prod',
      target: { kind: 'droplet', id, name: 'prod-web', tags: ['prod', 'web'] },
    });
  });

  it('match by name glob and by id, and cover actions, parts of a resource and tag-wide actions', async () => {
    const id = await sandbox.createVm('db-main-vm', ['data']);
    const rules = [parseRule('name:db-main*', '--protect'), parseRule(`id:${id}`, 'policy')];
    const options = { frontEnd: 'mcp' as const, rules, unconfirmed: 'run' as const };
    for (const [name, args] of [
      ['power-off-vm', { ID: id }],
      ['resize-vm', { ID: id, Size: 's-2vcpu-2gb' }],
      ['power-off-vms-tag', { Tag: 'data' }],
    ] as const) {
      seen.length = 0;
      await expect(
        guardedRun(tool(name), args, { client: sandbox.connection.client }, options),
      ).rejects.toThrow(/protected by rule name:db-main\*/);
      expect(mutating(), name).toEqual([]);
    }
    // A tool that is not destructive is refused as well: protection means no change at all...
    seen.length = 0;
    await expect(
      guardedRun(tool('power-on-vm'), { ID: id }, { client: sandbox.connection.client }, options),
    ).rejects.toThrow(/power-on-vm refused: .*protected by rule name:db-main\*/);
    expect(mutating()).toEqual([]);
    // ...unless the policy allows that tool by name.
    await sandbox.connection.sandbox.advanceClock(120_000);
    seen.length = 0;
    const allowed = { ...options, rules: [...rules, parseRule('allow:power-on-vm', 'policy')] };
    await guardedRun(tool('power-on-vm'), { ID: id }, { client: sandbox.connection.client }, allowed);
    expect(mutating()).toEqual([`POST /v2/droplets/${id}/actions`]);
  });

  it('refuse deleting a protected tag itself, which would strip it from every resource it protects', async () => {
    await sandbox.createVm('tagged-web', ['prod']);
    const rules = [parseRule('tag:prod', '--protect')];
    seen.length = 0;
    const call = guardedRun(
      tool('tag-delete'),
      { Name: 'prod' },
      { client: sandbox.connection.client },
      { frontEnd: 'cli', rules, unconfirmed: 'run' },
    );
    await expect(call).rejects.toThrow(
      'tag-delete refused: tag prod is protected by rule tag:prod (--protect). Nothing was sent.',
    );
    expect(mutating()).toEqual([]);
    // Another tag is not protected by it.
    await sandbox.createVm('tagged-tmp', ['tmp-tag']);
    seen.length = 0;
    await guardedRun(
      tool('tag-delete'),
      { Name: 'tmp-tag' },
      { client: sandbox.connection.client },
      {
        frontEnd: 'cli',
        rules,
        unconfirmed: 'run',
      },
    );
    expect(mutating()).toEqual(['DELETE /v2/tags/tmp-tag']);
  });

  it('refuse untagging a protected tag, which would take a resource out of its protection', async () => {
    const id = await sandbox.createVm('untag-me', ['prod', 'web']);
    const rules = [parseRule('tag:prod', '--protect')];
    const options = { frontEnd: 'cli' as const, rules, unconfirmed: 'run' as const };
    const resources = [{ resource_id: id, resource_type: 'droplet' }];
    seen.length = 0;
    await expect(
      guardedRun(
        tool('untag-resources'),
        { Tag: 'prod', Resources: resources },
        { client: sandbox.connection.client },
        options,
      ),
    ).rejects.toThrow(
      'untag-resources refused: tag prod is protected by rule tag:prod (--protect). Nothing was sent.',
    );
    expect(mutating()).toEqual([]);
    // Nor may another tag come off it: the resource itself is protected.
    await expect(
      guardedRun(
        tool('untag-resources'),
        { Tag: 'web', Resources: resources },
        { client: sandbox.connection.client },
        options,
      ),
    ).rejects.toThrow(/droplet untag-me .* is protected by rule tag:prod/);
    expect(mutating()).toEqual([]);
    // Another tag comes off a resource the rule does not protect.
    const free = await sandbox.createVm('untag-free', ['web']);
    seen.length = 0;
    await guardedRun(
      tool('untag-resources'),
      { Tag: 'web', Resources: [{ resource_id: free, resource_type: 'droplet' }] },
      { client: sandbox.connection.client },
      options,
    );
    expect(mutating()).toEqual(['DELETE /v2/tags/web/resources']);
  });

  it('let an unprotected resource go, after one GET', async () => {
    const id = await sandbox.createVm('scratch', ['tmp']);
    seen.length = 0;
    await guardedRun(
      tool('vm-delete'),
      { ID: id },
      { client: sandbox.connection.client },
      { frontEnd: 'cli', rules: [parseRule('tag:prod', '--protect')], unconfirmed: 'run' },
    );
    expect(seen).toEqual([`GET /v2/droplets/${id}`, `DELETE /v2/droplets/${id}`]);
  });
});

describe('confirmation', () => {
  it('asks naming the resource; accept sends, decline and cancel send nothing', async () => {
    const id = await sandbox.createVm('ask-me', ['x']);
    const asked: string[] = [];
    const audit = openAuditLog(join(dir, 'confirm.log'));
    for (const decision of ['decline', 'cancel'] as const) {
      seen.length = 0;
      await expect(
        guardedRun(
          tool('vm-delete'),
          { ID: id },
          { client: sandbox.connection.client },
          {
            frontEnd: 'mcp',
            audit,
            unconfirmed: 'run',
            confirm: async (question) => {
              asked.push(question.message);
              return decision;
            },
          },
        ),
      ).rejects.toThrow(decision === 'cancel' ? /cancelled: nothing was sent/ : /declined: nothing was sent/);
      expect(mutating()).toEqual([]);
    }
    expect(asked[0]).toMatch(new RegExp(`vm-delete.*droplet ask-me \\(id ${id}; tags x\\)`));
    seen.length = 0;
    await guardedRun(
      tool('vm-delete'),
      { ID: id },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', audit, unconfirmed: 'run', confirm: async () => 'accept' },
    );
    expect(mutating()).toEqual([`DELETE /v2/droplets/${id}`]);
    const entries = (await readAudit(audit.path)).entries;
    expect(entries.map((entry) => entry.outcome)).toEqual(['declined', 'declined', 'ok']);
    expect(entries[2]?.request_id).toMatch(/\S/);
  });

  it('refuses off a terminal with the given message, sending nothing at all', async () => {
    seen.length = 0;
    await expect(
      guardedRun(
        tool('key-delete'),
        { ID: 1 },
        { client: sandbox.connection.client },
        { frontEnd: 'cli', unconfirmed: { refuse: 'add --force to run it without a prompt' } },
      ),
    ).rejects.toThrow('key-delete is destructive: add --force to run it without a prompt');
    expect(seen).toEqual([]);
  });

  it('does not ask before tools that are not destructive', async () => {
    const call = guardedRun(
      tool('key-create'),
      { Name: 'k', PublicKey: 'nope' },
      { client: sandbox.connection.client },
      { frontEnd: 'cli', unconfirmed: { refuse: 'x' }, confirm: async () => 'decline' },
    );
    // It gets as far as the platform, which refuses the key.
    await expect(call).rejects.toThrow(/Key invalid/);
  });
});

describe('names with control characters', () => {
  // A key's name is any text to the platform: a newline, an ANSI escape (red), a right-to-left
  // override and an isolate, a line separator, a zero-width space and a C1 control.
  const NAME = 'web\n\x1b[31mprod\u202egnp.exe\u2066x\u2069\u2028\u200b\u0085';
  const SHOWN = 'web\\n\\x1b[31mprod\\u202egnp.exe\\u2066x\\u2069\\u2028\\u200b\\x85';
  const createKey = async () => {
    const { ssh_key } = (await runTool(
      tool('key-create'),
      { Name: NAME, PublicKey: sshPublicKey() },
      { client: sandbox.connection.client },
    )) as { ssh_key: { id: number } };
    seen.length = 0;
    return ssh_key.id;
  };

  it('are shown escaped in the confirmation question, which holds no control character', async () => {
    const id = await createKey();
    const asked: string[] = [];
    await expect(
      guardedRun(
        tool('key-delete'),
        { ID: id },
        { client: sandbox.connection.client },
        {
          frontEnd: 'cli',
          unconfirmed: 'run',
          confirm: async (question) => {
            asked.push(question.message);
            return 'decline';
          },
        },
      ),
    ).rejects.toThrow(/declined: nothing was sent/);
    expect(asked).toEqual([`Delete SSH key (key-delete): ssh key ${SHOWN} (id ${id})?`]);
    expect(asked[0]).not.toMatch(UNSHOWN);
    expect(mutating()).toEqual([]);
  });

  it('are shown escaped in a refusal and a plan, and a rule that names them still matches', async () => {
    const id = await createKey();
    // The rule's own override is shown escaped too; `*` matches across the name's line break.
    const rules = [parseRule('name:web*\u202egnp*', '--protect')];
    const refused = await guardedRun(
      tool('key-delete'),
      { ID: id },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', rules, unconfirmed: 'run' },
    ).catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(GuardRefusal);
    expect((refused as Error).message).toBe(
      `key-delete refused: ssh key ${SHOWN} (id ${id}) is protected by rule name:web*\\u202egnp* (--protect). Nothing was sent.`,
    );
    const plan = await planCall(tool('key-delete'), { ID: id }, { client: sandbox.connection.client }, rules);
    expect(plan.target?.description).toBe(`ssh key ${SHOWN} (id ${id})`);
    // The data itself is the platform's, unchanged: JSON readers get the name as it is.
    expect(plan.target?.name).toBe(NAME);
    expect(mutating()).toEqual([]);
  });
});

describe('plans', () => {
  const plan = (name: string, args: unknown) =>
    planCall(tool(name), args, { client: sandbox.connection.client }, [parseRule('tag:prod', '--protect')]);

  it('price a VM resize from the sandbox size list, sending nothing that mutates', async () => {
    const id = await sandbox.createVm('grow-me', ['prod'], { size: 's-1vcpu-1gb' });
    const { sizes } = (await sandbox.connection.client.request({ method: 'GET', path: '/v2/sizes' })) as {
      sizes: Size[];
    };
    const price = (slug: string) => sizes.find((size) => size.slug === slug)?.price_monthly as number;
    seen.length = 0;
    const result = await plan('resize-vm', { ID: id, Size: 's-2vcpu-4gb', ResizeDisk: true });
    expect(mutating()).toEqual([]);
    expect(result).toMatchObject({
      valid: true,
      destructive: true,
      request: {
        method: 'POST',
        path: `/v2/droplets/${id}/actions`,
        body: { type: 'resize', size: 's-2vcpu-4gb', disk: true },
      },
      target: { kind: 'droplet', id, name: 'grow-me', tags: ['prod'] },
      refused_by: 'tag:prod (--protect)',
      price: {
        monthly_before: price('s-1vcpu-1gb'),
        monthly_after: price('s-2vcpu-4gb'),
        monthly_delta: price('s-2vcpu-4gb') - price('s-1vcpu-1gb'),
      },
    });
    expect(price('s-2vcpu-4gb') - price('s-1vcpu-1gb')).toBeGreaterThan(0);
  });

  it('price creates: VM, database, load balancer, reserved IP', async () => {
    const vm = await plan('vm-create', { Name: 'n', Size: 'c-2', ImageID: 161928327, Region: 'nyc3' });
    expect(vm.price).toMatchObject({
      monthly_before: 0,
      monthly_after: 42,
      source: expect.stringMatching(/size-list/),
    });
    const db = await plan('db-cluster-create', {
      name: 'plan-db',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-2vcpu-4gb',
      num_nodes: 2,
      tags: 'prod,cache',
    });
    // Arguments are parsed once: a comma-separated list becomes the array the request sends.
    expect(db).toMatchObject({ valid: true, request: { body: { tags: ['prod', 'cache'] } } });
    expect(db.price).toMatchObject({ monthly_before: 0, monthly_after: 120 });
    const lb = await plan('load-balancer-create', {
      Name: 'lb',
      Region: 'nyc3',
      SizeUnit: 3,
      ForwardingRules: [{ EntryProtocol: 'http', EntryPort: 80, TargetProtocol: 'http', TargetPort: 80 }],
    });
    expect(lb.price).toMatchObject({ monthly_after: 36 });
    const ip = await plan('reserved-ip-reserve', { Region: 'nyc3', Type: 'ipv4' });
    expect(ip.request).toEqual({ method: 'POST', path: '/v2/reserved_ips', body: { region: 'nyc3' } });
    expect(ip.price).toMatchObject({ monthly_after: 5 });
    expect(mutating()).toEqual([]);
  });

  it('report invalid arguments without a request, and mask secrets in the body', async () => {
    const bad = await plan('vm-delete', { ID: 'abc' });
    expect(bad.valid).toBe(false);
    expect(bad.issues?.[0]?.argument).toBe('ID');
    expect(bad.request).toBeUndefined();
    const cert = await plan('custom-certificate-create', {
      Name: 'c',
      PrivateKey: '-----BEGIN PRIVATE KEY-----\nMYKEYMATERIAL\n-----END PRIVATE KEY-----',
      LeafCertificate: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----',
      CertificateChain: '-----BEGIN CERTIFICATE-----\ny\n-----END CERTIFICATE-----',
    });
    expect(JSON.stringify(cert)).not.toContain('MYKEYMATERIAL');
    expect(cert.request?.path).toBe('/v2/certificates');
  });
});

describe('the audit log', () => {
  it('refuses to open a path that cannot be written, saying why', () => {
    expect(() => openAuditLog(join(dir, 'no-such-dir', 'audit.log'))).toThrow(
      /no-such-dir\/audit.log cannot be opened for appending: its directory does not exist/,
    );
  });

  it('lets a lone surrogate in a body field through as runTool does, not as an internal error', async () => {
    // The gate looks for the target among the arguments' path segments; this one has none.
    const audit = openAuditLog(join(dir, 'surrogate.log'));
    const result = (await guardedRun(
      tool('key-create'),
      {
        Name: 'half \udc00',
        PublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl',
      },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', unconfirmed: 'run', audit },
    )) as { ssh_key: { name: string } };
    expect(result.ssh_key.name).toBe('half \udc00');
    expect(mutating()).toEqual(['POST /v2/account/keys']);
    audit.close();
  });

  it('records a value nested 100,000 deep, refused as an input error naming the argument', async () => {
    // The audit entry is made from the raw arguments, before validation refuses them.
    const path = join(dir, 'deep.log');
    const audit = openAuditLog(path);
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const call = guardedRun(
      tool('key-create'),
      { Name: deep, PublicKey: 'x' },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', unconfirmed: 'run', audit },
    );
    await expect(call).rejects.toThrow(InputError);
    await expect(call).rejects.toThrow(`argument Name: is nested more than ${MAX_DEPTH} levels deep`);
    expect(seen).toEqual([]);
    audit.close();
    const entry = JSON.parse(readFileSync(path, 'utf8')) as AuditEntry;
    expect(entry).toMatchObject({ tool: 'key-create', outcome: 'error', error_id: 'invalid_arguments' });
    // Recorded summarised: eight levels (the arguments the first), then the size of what is below.
    expect(JSON.stringify(entry.args)).toBe('{"Name":[[[[[[["[array of 1 item]"]]]]]]],"PublicKey":"x"}');
  });

  it('names the caller on every line; audit-list with auditScope own shows a caller only its own', async () => {
    const path = join(dir, 'callers.log');
    const audit = openAuditLog(path);
    const key = (caller: string | undefined, name: string) =>
      guardedRun(
        tool('tag-create'),
        { Name: name },
        { client: sandbox.connection.client },
        { frontEnd: 'mcp', unconfirmed: 'run', audit, ...(caller ? { caller } : {}) },
      );
    await key('alice', 'a1');
    await key('bob', 'b1');
    await key(undefined, 'local1');
    await guardedRun(
      tool('vm-delete'),
      { ID: 1 },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', unconfirmed: { refuse: 'no' }, audit, caller: 'alice' },
    ).catch(() => undefined);
    audit.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEntry);
    expect(lines.every((line) => typeof line.caller === 'string' && line.caller !== '')).toBe(true);
    expect(lines.filter((line) => line.caller === 'alice').map((line) => line.tool)).toContain('vm-delete');
    expect(lines.some((line) => line.caller.startsWith('local:'))).toBe(true);
    expect((await readAudit(path, { caller: 'bob' })).entries.map((entry) => entry.args)).toEqual([
      expect.objectContaining({ Name: 'b1' }),
    ]);

    const list = (context: Record<string, unknown>) =>
      runTool(auditListTool, {}, {
        client: sandbox.connection.client,
        guard: { tools, rules: [], auditLog: path },
        ...context,
      } as ToolContext) as Promise<{ entries: AuditEntry[] }>;
    const own = await list({ caller: 'alice', auditScope: 'own' });
    expect(own.entries.length).toBeGreaterThan(0);
    expect(own.entries.every((entry) => entry.caller === 'alice')).toBe(true);
    const all = await list({ caller: 'alice' });
    expect(new Set(all.entries.map((entry) => entry.caller)).size).toBeGreaterThanOrEqual(3);
    // Limited to its own lines with no id to match, a caller sees nothing, not everything.
    await expect(list({ auditScope: 'own' })).rejects.toThrow(/no identity/);
  });

  it('masks secrets in the arguments it records', async () => {
    const path = join(dir, 'mask.log');
    const audit = openAuditLog(path);
    await guardedRun(
      tool('custom-certificate-create'),
      { Name: 'c', PrivateKey: 'TOPSECRET', LeafCertificate: 'x', CertificateChain: 'y' },
      { client: sandbox.connection.client },
      { frontEnd: 'cli', unconfirmed: 'run', audit },
    ).catch(() => undefined);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('TOPSECRET');
    const entry = JSON.parse(text) as AuditEntry;
    expect(entry).toMatchObject({ tool: 'custom-certificate-create', outcome: 'error' });
  });
});
