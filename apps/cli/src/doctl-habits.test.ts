/**
 * doctl's habits, each as doctl spells it, in this process against the sandbox: a name first on
 * create, several ids on delete, rule strings with every kind of target, a reserved IP's family
 * from its address, a record's TTL, one spelling of a database user everywhere.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from './program.js';
import { inlineRunner } from './testing/inline.js';
import { VM_FLAGS } from './testing/run.js';

// biome-ignore lint/suspicious/noExplicitAny: command output is checked field by field.
type Json = any;

/** Each test's own config directory, and so its own sandbox state. */
let cli: ReturnType<typeof inlineRunner>;
beforeEach(() => {
  cli = inlineRunner();
});
afterEach(() => cli.close());

async function ok(...args: string[]): Promise<Json> {
  const run = await cli.sandbox(...args);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(EXIT.ok);
  return run.json;
}

describe("doctl's habits", () => {
  it('a name first on create, and several ids on delete, each deleted', async () => {
    const one = (await ok('vm', 'create', 'habit-1', ...VM_FLAGS)).droplet;
    const two = (await ok('vm-create', 'habit-2', ...VM_FLAGS)).droplet;
    expect([one.name, two.name]).toEqual(['habit-1', 'habit-2']);
    // The name given twice, differently, is refused.
    const twice = await cli.sandbox('vm-create', 'habit-3', '--name', 'habit-4', ...VM_FLAGS);
    expect(twice.code).toBe(EXIT.input);
    expect(twice.stderr).toMatch(/--name: given twice/);
    await cli.advance(600_000);
    const deleted = await cli.sandbox('vm', 'delete', String(one.id), String(two.id), '--force');
    expect(deleted.code, deleted.stderr).toBe(EXIT.ok);
    expect(deleted.stdout.trim().split('\n')).toEqual(['{"ok":true}', '{"ok":true}']);
    expect((await ok('vm-list')).droplets).toEqual([]);
  });

  it('firewall rule strings: several rules, several addresses, VMs, tags and load balancers', async () => {
    const vm = (await ok('vm-create', 'fw-target', ...VM_FLAGS, '--tag-names', 'edge')).droplet;
    await cli.advance(600_000);
    const lb = (
      await ok(
        ...['load-balancer-create', '--name', 'fw-lb', '--region', 'nyc3', '--droplet-ids', String(vm.id)],
        ...['--forwarding-rules', 'entry_protocol:http,entry_port:80,target_protocol:http,target_port:8080'],
      )
    ).load_balancer;
    expect(lb.forwarding_rules).toEqual([
      expect.objectContaining({
        entry_protocol: 'http',
        entry_port: 80,
        target_protocol: 'http',
        target_port: 8080,
      }),
    ]);
    await cli.advance(600_000);
    const firewall = (
      await ok(
        ...['firewall-create', '--name', 'rules-fw'],
        '--inbound-rules',
        `protocol:tcp,ports:443,droplet_id:${vm.id},tag:edge,load_balancer_uid:${lb.id} protocol:tcp,ports:22,address:192.0.2.0/24,address:198.51.100.7 protocol:icmp,address:0.0.0.0/0`,
        ...['--outbound-rules', 'protocol:tcp,ports:all,address:0.0.0.0/0 protocol:udp,ports:53,tag:edge'],
      )
    ).firewall;
    // The first rule the spec's flat arguments can hold (addresses only) comes first.
    expect(firewall.inbound_rules).toEqual([
      { protocol: 'tcp', ports: '22', sources: { addresses: ['192.0.2.0/24', '198.51.100.7'] } },
      {
        protocol: 'tcp',
        ports: '443',
        sources: { droplet_ids: [vm.id], tags: ['edge'], load_balancer_uids: [lb.id] },
      },
      { protocol: 'icmp', ports: 'all', sources: { addresses: ['0.0.0.0/0'] } },
    ]);
    expect(firewall.outbound_rules).toEqual([
      { protocol: 'tcp', ports: 'all', destinations: { addresses: ['0.0.0.0/0'] } },
      { protocol: 'udp', ports: '53', destinations: { tags: ['edge'] } },
    ]);
    // A bad key is named, with the keys there are, before any request.
    const bad = await cli.sandbox(
      'firewall-add-rules',
      'rules-fw',
      '--inbound-rules',
      'protocol:tcp,port:22',
    );
    expect(bad.code).toBe(EXIT.input);
    expect(bad.stderr).toMatch(
      /^cloudcall: invalid input: --inbound-rules: unknown key "port" in a rule; doctl.s keys are protocol, ports, address/,
    );
    // Several forwarding rules at once.
    await ok(
      ...['load-balancer-add-forwarding-rules', 'fw-lb', '--forwarding-rules'],
      'entry_protocol:tcp,entry_port:5432,target_protocol:tcp,target_port:5432 entry_protocol:udp,entry_port:53,target_protocol:udp,target_port:53',
    );
    const rules = (await ok('load-balancer-get', 'fw-lb')).load_balancer.forwarding_rules;
    expect(rules.map((rule: Json) => rule.entry_port)).toEqual([80, 5432, 53]);
  });

  it('reserved IPs: the address says v4 or v6; a list is of IPv4, as doctl', async () => {
    const v6 = (await ok('reserved-ip-reserve', '--region', 'nyc3', '--type', 'ipv6')).reserved_ipv6.ip;
    const v4 = (await ok('reserved-ip', 'reserve', '--region', 'nyc3')).reserved_ip.ip;
    expect(v4).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect((await ok('reserved-ip', 'list')).reserved_ips.map((ip: Json) => ip.ip)).toContain(v4);
    await cli.advance(600_000);
    await ok('reserved-ip', 'release', v6, '--force');
    await ok('reserved-ip', 'release', v4, '--force');
    expect((await ok('reserved-ip-list', '--type', 'ipv6')).reserved_ipv6s).toEqual([]);
    expect((await ok('reserved-ip-list')).reserved_ips).toEqual([]);
  });

  it('DNS records take a TTL, by doctl and cloudcall spelling', async () => {
    await ok('domain-create', 'ttl.example', '--ip-address', '192.0.2.1');
    const a = await ok(
      ...['domain-record-create', 'ttl.example', '--record-type', 'A', '--record-name', 'www'],
      ...['--record-data', '192.0.2.2', '--record-ttl', '600'],
    );
    expect(a.domain_record.ttl).toBe(600);
    const txt = await ok(
      ...['domain', 'record', 'create', 'ttl.example', '--type', 'TXT', '--name', 'note', '--data', 'hi'],
      ...['--ttl', '120'],
    );
    expect(txt.domain_record.ttl).toBe(120);
    const edited = await ok(
      ...['domain-record-edit', 'ttl.example', '--record-id', String(txt.domain_record.id), '--type', 'TXT'],
      ...['--name', 'note', '--data', 'hello', '--record-ttl', '300'],
    );
    expect(edited.domain_record.ttl).toBe(300);
    const short = await cli.sandbox(
      ...['domain-record-create', 'ttl.example', '--type', 'A', '--name', 'x', '--data', '192.0.2.3'],
      ...['--ttl', '5'],
    );
    expect(short.code).toBe(EXIT.input);
    expect(short.stderr).toMatch(/--ttl: Too small/);
  });

  it('a domain without --ip-address is added with no records; with one, its apex record', async () => {
    const bare = await ok('domain', 'create', 'bare.example');
    expect(bare.domain.name).toBe('bare.example');
    const types = (name: string) =>
      ok('domain-record-list', name).then((list) => list.domain_records.map((r: Json) => r.type).sort());
    expect(await types('bare.example')).toEqual(['NS', 'NS', 'NS', 'SOA']);
    await ok('domain', 'create', 'apex.example', '--ip-address', '192.0.2.9');
    expect(await types('apex.example')).toEqual(['A', 'NS', 'NS', 'NS', 'SOA']);
    // The spec's tool still takes the address as required: leaving out the name is still refused,
    // and a bad address is not taken for a missing one.
    const nameless = await cli.sandbox('domain', 'create');
    expect(nameless.code).toBe(EXIT.input);
    expect(nameless.stderr).toMatch(/--name: is required/);
    const bad = await cli.sandbox('domain', 'create', 'bad.example', '--ip-address', 'nope');
    expect(bad.code).toBe(EXIT.input);
    expect(bad.stderr).toMatch(/--ip-address: expected an IPv4 or IPv6 address/);
    expect((await ok('domain-list')).domains.map((d: Json) => d.name)).not.toContain('bad.example');
  });

  it("doctl's words: droplet, droplet-action, ssh-key, databases, reserved-ip create/delete, -o text", async () => {
    const vm = (await ok('droplet', 'create', 'words-1', ...VM_FLAGS)).droplet;
    expect((await ok('droplet', 'list')).droplets.map((d: Json) => d.name)).toContain('words-1');
    await cli.advance(600_000);
    const off = await ok('droplet-action', 'power-off', String(vm.id), '--force');
    expect(off.action.type).toBe('power_off');
    expect((await ok('ssh-key', 'list')).ssh_keys).toEqual(expect.any(Array));
    expect((await ok('databases', 'list')).databases).toEqual(expect.any(Array));
    const ip = (await ok('reserved-ip', 'create', '--region', 'nyc3')).reserved_ip.ip;
    expect((await ok('reserved-ip', 'list')).reserved_ips.map((r: Json) => r.ip)).toContain(ip);
    await ok('reserved-ip', 'delete', ip, '--force');
    expect((await ok('reserved-ip', 'list')).reserved_ips.map((r: Json) => r.ip)).not.toContain(ip);
    // doctl's -o text is the table.
    const text = await cli.sandbox('droplet', 'list', '-o', 'text', '--format', 'Name');
    expect(text.code, text.stderr).toBe(EXIT.ok);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toBe('Name');
    expect(lines).toContain('words-1');
    // Their help is the resource's, and a verb neither has is refused in the words typed.
    const help = await cli.sandbox('droplet', '--help');
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toMatch(/^vm:$/m);
    const bad = await cli.sandbox('droplet', 'bogus');
    expect(bad.code).toBe(EXIT.input);
    expect(bad.stderr).toBe(
      'cloudcall: droplet has no verb "bogus"\nhint: cloudcall droplet --help lists its verbs\n',
    );
  });

  it('a database user is --user or --name on every user tool', async () => {
    await ok(
      ...['db-cluster-create', 'users-db', '--engine', 'pg', '--region', 'nyc3'],
      ...['--size', 'db-s-1vcpu-1gb', '--num-nodes', '1', '--version', '16'],
    );
    await cli.advance(3_600_000);
    expect((await ok('db-cluster-create-user', 'users-db', '--user', 'ann')).user.name).toBe('ann');
    expect((await ok('db-cluster-create-user', 'users-db', '--name', 'bob')).user.name).toBe('bob');
    expect((await ok('db-cluster-get-user', 'users-db', '--name', 'ann')).user.name).toBe('ann');
    expect((await ok('db-cluster-get-user', 'users-db', '--user', 'bob')).user.name).toBe('bob');
    await ok('db-cluster-delete-user', 'users-db', '--name', 'bob', '--force');
    const gone = await cli.sandbox('db-cluster-get-user', 'users-db', '--user', 'bob');
    expect(gone.code).toBe(EXIT.api);
  });
});
