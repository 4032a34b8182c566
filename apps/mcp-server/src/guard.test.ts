/**
 * The guard rails with the official SDK client: destructive calls confirmed through elicitation
 * (accepted, declined, cancelled), `--confirm` for clients that cannot be asked, protection
 * rules, the `plan` and `audit-list` tools, and start-up checks. Settings given as flags run the
 * server in process (over the SDK's in-memory transport); settings given as environment
 * variables, and start-up checks, run the built server over stdio.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshPublicKey } from '@cloudcall/sandbox';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { type InProcessOptions, inProcessServer } from './testing/in-process.js';
import { exitOf, killAll, stdioClient } from './testing/main.js';

// Servers started through ./testing/main.js that a test left running.
afterAll(killAll);

const UBUNTU = 161928327;
const dir = mkdtempSync(join(tmpdir(), 'cloudcall-mcp-guard-'));
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Json = any;

/** The guard's flags as the in-process server's options. */
function guardOptions(args: readonly string[]): InProcessOptions {
  const options: InProcessOptions = {};
  for (let at = 0; at < args.length; at += 2) {
    const [flag, value] = [args[at], args[at + 1] as string];
    if (flag === '--confirm') options.confirm = value;
    else if (flag === '--audit-log') options.auditLog = value;
    else if (flag === '--protect') options.protect = [...(options.protect ?? []), value];
    else throw new Error(`no in-process option for ${flag}`);
  }
  return options;
}

async function connect(args: string[], env: Record<string, string> = {}, answer?: () => ElicitResult) {
  const asked: string[] = [];
  const clientOptions = answer ? { capabilities: { elicitation: {} } } : {};
  const connection = Object.keys(env).length
    ? await stdioClient(['--sandbox', '--families', 'vms,images,account', ...args], env, clientOptions)
    : await inProcessServer({ families: 'vms,images,account', client: clientOptions, ...guardOptions(args) });
  if (answer) {
    connection.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer();
    });
  }
  closers.push(connection.close);
  return { ...connection, asked };
}

async function createVm(client: Client, name: string, tags: string[], size = 's-1vcpu-1gb'): Promise<number> {
  const result = await call(client, 'vm-create', {
    Name: name,
    Size: size,
    ImageID: UBUNTU,
    Region: 'nyc3',
    Tags: tags,
  });
  expect(result.isError, result.text).toBe(false);
  return (result.json as Json).droplet.id;
}

async function exists(client: Client, id: number): Promise<boolean> {
  const result = await call(client, 'vm-get', { ID: id });
  if (!result.isError) return true;
  expect(result.structured).toMatchObject({ status: 404 });
  return false;
}

describe('elicitation', () => {
  it.each([
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
  ] as const)('%s: nothing is sent and the result says so', async (_, answer, word) => {
    const { client, asked } = await connect([], {}, () => answer as ElicitResult);
    const id = await createVm(client, 'keep-me', ['web']);
    const result = await call(client, 'vm-delete', { ID: id });
    expect(asked).toEqual([
      `Confirm a destructive call. Delete VM (vm-delete): droplet keep-me (id ${id}; tags web)? To run it, type keep-me.`,
    ]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`vm-delete was ${word}: nothing was sent.`);
    expect(result.structured).toMatchObject({ error_id: 'declined', retryable: false });
    expect(await exists(client, id)).toBe(true);
  });

  it('accept: the call runs; tools that are not destructive are not asked about', async () => {
    const { client, asked } = await connect([], {}, () => ({ action: 'accept', content: { confirm: 'go' } }));
    const id = await createVm(client, 'go', []);
    expect(asked).toEqual([]);
    const result = await call(client, 'vm-delete', { ID: id });
    expect(result.isError, result.text).toBe(false);
    expect(asked).toHaveLength(1);
    expect(await exists(client, id)).toBe(false);
  });

  it('shows a name with control characters escaped, and takes it typed as shown', async () => {
    const name = 'web\n\x1b[31mprod\u202egnp.exe';
    const shown = String.raw`web\n\x1b[31mprod\u202egnp.exe`;
    let typed = 'web';
    const { client, asked } = await connect([], {}, () => ({
      action: 'accept',
      content: { confirm: typed },
    }));
    const created = await call(client, 'key-create', { Name: name, PublicKey: sshPublicKey() });
    const id = (created.json as Json).ssh_key.id as number;
    const wrong = await call(client, 'key-delete', { ID: id });
    expect(asked).toEqual([
      `Confirm a destructive call. Delete SSH key (key-delete): ssh key ${shown} (id ${id})? To run it, type ${shown}.`,
    ]);
    expect(wrong.text).toContain(`the answer did not type ${shown} as asked`);
    expect(wrong.text).not.toContain('\x1b');
    expect(wrong.text).not.toContain('\u202e');
    typed = shown;
    const deleted = await call(client, 'key-delete', { ID: id });
    expect(deleted.isError, deleted.text).toBe(false);
    expect((await call(client, 'key-get', { ID: id })).structured).toMatchObject({ status: 404 });
  });

  it('--confirm never skips it', async () => {
    const { client, asked } = await connect(['--confirm', 'never'], {}, () => ({ action: 'decline' }));
    const id = await createVm(client, 'never-asked', []);
    expect((await call(client, 'vm-delete', { ID: id })).isError).toBe(false);
    expect(asked).toEqual([]);
  });
});

describe('--confirm, for clients without elicitation', () => {
  it('auto (the default) runs destructive tools', async () => {
    const { client } = await connect([]);
    const id = await createVm(client, 'auto', []);
    expect((await call(client, 'vm-delete', { ID: id })).isError).toBe(false);
    expect(await exists(client, id)).toBe(false);
  });

  it('always-refuse refuses them with a message, and runs the rest', async () => {
    const { client } = await connect([], { CLOUDCALL_CONFIRM: 'always-refuse' });
    const id = await createVm(client, 'refuse', []);
    const result = await call(client, 'vm-delete', { ID: id });
    expect(result.isError).toBe(true);
    expect(result.text).toContain(
      'vm-delete is destructive: this server refuses destructive tools (--confirm always-refuse)',
    );
    expect(result.structured).toMatchObject({ error_id: 'refused' });
    expect(await exists(client, id)).toBe(true);
  });
});

describe('protection rules', () => {
  it('refuse a delete of a VM with a protected tag, naming the rule, from --protect or a policy file', async () => {
    const policy = join(dir, 'policy.json');
    // vm-create is allowed: the test makes its protected VM through the same server.
    writeFileSync(policy, '{\n  "protect": ["tag:prod"],\n  "allow": ["vm-create"]\n}\n');
    for (const [args, env, rule] of [
      [['--protect', 'tag:prod', '--protect', 'name:other,allow:vm-create'], {}, 'tag:prod (--protect)'],
      [[], { CLOUDCALL_POLICY: policy }, `tag:prod (policy file ${policy}, line 2)`],
    ] as const) {
      const { client } = await connect([...args], env, () => ({
        action: 'accept',
        content: { confirm: 'prod-db' },
      }));
      const id = await createVm(client, 'prod-db', ['prod']);
      const result = await call(client, 'vm-delete', { ID: id });
      expect(result.isError).toBe(true);
      expect(result.text).toContain(
        `vm-delete refused: droplet prod-db (id ${id}; tags prod) is protected by rule ${rule}. Nothing was sent.`,
      );
      expect(result.structured).toMatchObject({ error_id: 'refused' });
      expect(await exists(client, id)).toBe(true);
    }
  });

  it('a malformed policy file or an unwritable audit log stops start-up, saying where and why', async () => {
    const policy = join(dir, 'bad.json');
    writeFileSync(policy, '{\n  "protect": [\n    "tag:prod"\n    "id:1"\n  ]\n}\n');
    const bad = await exitOf(['--sandbox', '--policy', policy]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`policy file ${policy}, line 4: not valid JSON (CommaExpected)`);
    const log = await exitOf(['--sandbox'], { CLOUDCALL_AUDIT_LOG: join(dir, 'none', 'audit.log') });
    expect(log.code).toBe(2);
    expect(log.stderr).toContain(
      'none/audit.log cannot be opened for appending: its directory does not exist',
    );
    // A FIFO with no writer, a device and a directory are refused at once, before a byte is read.
    const fifo = join(dir, 'policy.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [file, kind] of [
      [fifo, 'a FIFO'],
      ['/dev/zero', 'a device'],
      [dir, 'a directory'],
    ] as const) {
      const refused = await exitOf(['--sandbox', '--policy', file]);
      expect(refused.code, file).toBe(2);
      expect(refused.stderr).toContain(`policy file ${file}: not a regular file (${kind}); give a JSON file`);
    }
    const confirm = await exitOf(['--sandbox', '--confirm', 'maybe']);
    expect(confirm.stderr).toContain('--confirm must be auto, never, always-refuse, not maybe');
  });
});

describe('plan and audit-list', () => {
  it('plan returns the request, target and price change as structured content, sending nothing', async () => {
    const log = join(dir, 'plan-audit.log');
    // A VM tagged prod joins a protected tag: allowed here by name, for the test's own VM.
    const { client } = await connect(['--audit-log', log, '--protect', 'tag:prod,allow:vm-create']);
    const listed = (await client.listTools()).tools.filter((tool) =>
      ['plan', 'audit-list'].includes(tool.name),
    );
    expect(listed.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([
      ['plan', true],
      ['audit-list', true],
    ]);
    const id = await createVm(client, 'grow', ['prod']);
    const sizes = ((await call(client, 'size-list', { PerPage: 200 })).json as Json).sizes as Json[];
    const price = (slug: string) => sizes.find((size) => size.slug === slug).price_monthly;
    const plan = await call(client, 'plan', {
      Tool: 'resize-vm',
      Arguments: { ID: id, Size: 's-2vcpu-4gb' },
    });
    expect(plan.isError, plan.text).toBe(false);
    expect(plan.structured).toMatchObject({
      tool: 'resize-vm',
      valid: true,
      request: {
        method: 'POST',
        path: `/v2/droplets/${id}/actions`,
        body: { type: 'resize', size: 's-2vcpu-4gb' },
      },
      target: { name: 'grow', tags: ['prod'] },
      refused_by: 'tag:prod (--protect)',
      price: { monthly_before: price('s-1vcpu-1gb'), monthly_after: price('s-2vcpu-4gb') },
    });
    expect(((await call(client, 'vm-get', { ID: id })).json as Json).droplet.size_slug).toBe('s-1vcpu-1gb');
    const unknown = await call(client, 'plan', { Tool: 'vm-delet', Arguments: {} });
    expect(unknown.text).toContain('did you mean vm-delete');

    await call(client, 'vm-delete', { ID: id });
    const audit = await call(client, 'audit-list', { Outcome: 'refused' });
    expect(audit.structured).toMatchObject({
      more: false,
      entries: [
        { front_end: 'mcp', tool: 'vm-delete', outcome: 'refused', reason: 'rule tag:prod', target: { id } },
      ],
    });
    const all = (await call(client, 'audit-list', {})).structured as Json;
    expect(all.entries.map((entry: Json) => [entry.tool, entry.outcome])).toEqual([
      ['vm-create', 'ok'],
      ['vm-delete', 'refused'],
    ]);
    // A create's line names what it made.
    expect(all.entries[0].target).toEqual({ kind: 'droplet', id, name: 'grow', tags: ['prod'] });
    // The create's intent and outcome, and the refusal (nothing sent, so no intent).
    expect(
      readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).phase ?? JSON.parse(line).outcome),
    ).toEqual(['intent', 'ok', 'refused']);
  });

  it('audit-list says when the server keeps no log', async () => {
    const { client } = await connect([]);
    const result = await call(client, 'audit-list', {});
    expect(result.isError).toBe(true);
    expect(result.text).toContain('this server keeps no audit log (start it with --audit-log FILE)');
  });
});
