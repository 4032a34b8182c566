/**
 * doctl's command lines where a doctl user starts, run by the built CLI as a process against the
 * sandbox: the `compute` group, plural resources, `domain records`, `databases user`, the volume
 * flags and `volume-action` verbs, `ssh-key import --public-key-file` and keys by fingerprint or
 * name; and the messages for words that name nothing: one "did you mean", the word that is wrong,
 * exit 2. Each test has its own config directory, and so its own sandbox.
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Sandbox, sshPublicKey, startSandbox } from '@cloudcall/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from './program.js';
import { cliRunner, type Json, type Run } from './testing/run.js';

const DROPLET = ['--size', 's-1vcpu-1gb', '--image', 'ubuntu-24-04-x64', '--region', 'nyc3'];

let helpers: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(helpers.map((helper) => helper.close()));
  helpers = [];
});

/** The built CLI on a sandbox of its own, and the sandbox's clock. */
function doctlUser() {
  const cli = cliRunner({}, { process: true });
  let helper: Sandbox | undefined;
  const sandbox = (...args: string[]) => cli.run(['--sandbox', ...args]);
  return {
    home: cli.home,
    sandbox,
    async ok(...args: string[]): Promise<Json> {
      const run = await sandbox(...args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(EXIT.ok);
      return run.json;
    },
    /** Moves the sandbox clock, so that what was started has finished. */
    async advance(ms = 600_000): Promise<void> {
      if (!helper) {
        helper = await startSandbox({ statePath: cli.statePath });
        helpers.push(helper);
      }
      await helper.advanceClock(ms);
    },
  };
}

/** A refusal: exit 2, and exactly these lines on stderr (one message, one hint), nothing on stdout. */
function refused(run: Run, message: string, hint: string): void {
  expect(run.code, run.stderr).toBe(EXIT.input);
  expect(run.stderr).toBe(`cloudcall: ${message}\nhint: ${hint}\n`);
  expect(run.stdout).toBe('');
}

// Each test runs the CLI a dozen times or more, a process each time.
const SLOW = { timeout: 180_000 };

describe("doctl's command words", SLOW, () => {
  it('the compute prefix, plural resources and doctl verbs, on droplets, keys, volumes and projects', async () => {
    const user = doctlUser();
    const vm = (await user.ok('compute', 'droplet', 'create', 'web-1', ...DROPLET)).droplet;
    expect((await user.ok('compute', 'droplet', 'list')).droplets.map((d: Json) => d.name)).toEqual([
      'web-1',
    ]);
    expect((await user.ok('droplets', 'list')).droplets).toHaveLength(1);
    expect((await user.ok('compute', 'droplet', 'get', 'web-1')).droplet.id).toBe(vm.id);
    await user.advance();
    // doctl's verbs that cloudcall names otherwise: droplet-action get is an action, not the VM.
    const off = (await user.ok('compute', 'droplet-action', 'power-off', 'web-1', '--force')).action;
    expect((await user.ok('compute', 'droplet-action', 'get', 'web-1', String(off.id))).action.type).toBe(
      'power_off',
    );
    expect((await user.ok('compute', 'droplet', 'snapshots', 'web-1')).snapshots).toEqual([]);
    expect((await user.ok('compute', 'ssh-key', 'list')).ssh_keys).toEqual([]);
    expect((await user.ok('compute', 'volume', 'list')).volumes).toEqual([]);
    const projects = (await user.ok('projects', 'list')).projects;
    expect(projects.length).toBeGreaterThan(0);
    expect((await user.ok('projects', 'get', projects[0].name)).project.id).toBe(projects[0].id);
    expect((await user.ok('projects', 'resources', 'list', projects[0].name)).resources).toEqual(
      expect.any(Array),
    );
    // `compute` alone and `help compute droplet` are help.
    const group = await user.sandbox('compute');
    expect(group.code).toBe(EXIT.ok);
    expect(group.stdout).toMatch(/^Families and their resources/m);
    const help = await user.sandbox('help', 'compute', 'droplet', 'list');
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toMatch(/^Usage: cloudcall vm-list /);
  });

  it('domain records: list, create, update and delete several, as doctl spells them', async () => {
    const user = doctlUser();
    await user.ok('compute', 'domain', 'create', 'example.com');
    const record = (
      await user.ok(
        ...['compute', 'domain', 'records', 'create', 'example.com', '--record-type', 'A'],
        ...['--record-name', 'www', '--record-data', '192.0.2.1'],
      )
    ).domain_record;
    const other = (
      await user.ok(
        ...['compute', 'domain', 'records', 'create', 'example.com', '--record-type', 'TXT'],
        ...['--record-name', 'note', '--record-data', 'hi'],
      )
    ).domain_record;
    const names = async () =>
      (await user.ok('compute', 'domain', 'records', 'list', 'example.com')).domain_records.map(
        (r: Json) => r.name,
      );
    expect(await names()).toEqual(expect.arrayContaining(['www', 'note']));
    // doctl's `update` is cloudcall's edit.
    const updated = await user.ok(
      ...['compute', 'domain', 'records', 'update', 'example.com', '--record-id', String(record.id)],
      ...['--record-type', 'A', '--record-name', 'www', '--record-data', '192.0.2.2'],
    );
    expect(updated.domain_record.data).toBe('192.0.2.2');
    // `delete <domain> <record-id>...`: each record deleted.
    const deleted = await user.sandbox(
      ...['compute', 'domain', 'records', 'delete', 'example.com', String(record.id), String(other.id)],
      '--force',
    );
    expect(deleted.code, deleted.stderr).toBe(EXIT.ok);
    expect(deleted.stdout.trim().split('\n')).toEqual(['{"ok":true}', '{"ok":true}']);
    expect(await names()).not.toContain('www');
    expect(await names()).not.toContain('note');
  });

  it('databases user list|get|create|delete <cluster> [<user>]', async () => {
    const user = doctlUser();
    await user.ok(
      ...['databases', 'create', 'pg-1', '--engine', 'pg', '--region', 'nyc3'],
      ...['--size', 'db-s-1vcpu-1gb', '--num-nodes', '1'],
    );
    await user.advance(3_600_000);
    expect((await user.ok('databases', 'user', 'create', 'pg-1', 'alice')).user.name).toBe('alice');
    const users = (await user.ok('databases', 'user', 'list', 'pg-1')).users.map((u: Json) => u.name);
    expect(users).toContain('alice');
    expect((await user.ok('databases', 'user', 'get', 'pg-1', 'alice')).user.name).toBe('alice');
    await user.ok('databases', 'user', 'delete', 'pg-1', 'alice', '--force');
    const gone = await user.sandbox('databases', 'user', 'get', 'pg-1', 'alice');
    expect(gone.code).toBe(EXIT.api);
    // The user given twice, differently, is refused naming both.
    const twice = await user.sandbox('databases', 'user', 'get', 'pg-1', 'alice', '--user', 'bob');
    expect(twice.code).toBe(EXIT.input);
    expect(twice.stderr).toMatch(/--user: given twice \(alice and --user\)/);
  });
});

describe('volumes, as doctl', SLOW, () => {
  it("volume create takes doctl's flags, with sizes in units; volume-action attaches, detaches and resizes", async () => {
    const user = doctlUser();
    const volume = (
      await user.ok(
        ...['compute', 'volume', 'create', 'data-1', '--size', '10GiB', '--region', 'nyc3'],
        ...['--desc', 'logs', '--fs-type', 'ext4', '--fs-label', 'logs', '--tag', 'web,prod'],
      )
    ).volume;
    expect(volume).toMatchObject({
      name: 'data-1',
      size_gigabytes: 10,
      description: 'logs',
      filesystem_type: 'ext4',
      filesystem_label: 'logs',
      tags: ['web', 'prod'],
      region: expect.objectContaining({ slug: 'nyc3' }),
    });
    const big = (await user.ok('volume', 'create', 'data-2', '--size', '1.5TiB', '--region', 'nyc3')).volume;
    expect(big.size_gigabytes).toBe(1536);
    // A bare number is GiB, as doctl's resize reads it.
    expect(
      (await user.ok('volume', 'create', 'data-3', '--size', '20', '--region', 'nyc3')).volume.size_gigabytes,
    ).toBe(20);
    // A volume from a snapshot: doctl's --snapshot.
    const snapshot = (await user.ok('volume-snapshot', 'create', 'data-1', '--snapshot-name', 'data-1-snap'))
      .snapshot;
    const restored = (
      await user.ok('volume', 'create', 'data-4', '--size', '10GiB', '--snapshot', snapshot.id)
    ).volume;
    expect(restored.name).toBe('data-4');

    const vm = (await user.ok('droplet', 'create', 'web-1', ...DROPLET)).droplet;
    await user.advance();
    // volume-action attach <volume-id> <droplet-id>: names work for both.
    const attach = (await user.ok('compute', 'volume-action', 'attach', volume.id, 'web-1')).action;
    expect(attach.type).toBe('attach_volume');
    await user.advance();
    expect((await user.ok('volume', 'get', 'data-1')).volume.droplet_ids).toEqual([vm.id]);
    await user.ok('compute', 'volume-action', 'detach', 'data-1', String(vm.id), '--force');
    await user.advance();
    expect((await user.ok('volume', 'get', 'data-1')).volume.droplet_ids).toEqual([]);
    // volume-action resize <volume-id> --size N --region R
    const resize = await user.ok(
      ...['compute', 'volume-action', 'resize', 'data-1', '--size', '40', '--region', 'nyc3', '--force'],
    );
    expect(resize.action.type).toMatch(/resize/);
    await user.advance();
    expect((await user.ok('volume', 'get', 'data-1')).volume.size_gigabytes).toBe(40);
  });

  it('a size that is no whole number of GiB, or has no known unit, is refused before anything is sent', async () => {
    const user = doctlUser();
    refused(
      await user.sandbox('compute', 'volume', 'create', 'v', '--size', '10GB', '--region', 'nyc3'),
      'invalid input: --size: 10GB is 9.31 GiB; volumes are sized in whole GiB (GB is 10^9 bytes: 10GiB?)',
      'cloudcall volume-create --help lists its flags',
    );
    refused(
      await user.sandbox('volume', 'create', 'v', '--size', '10XB', '--region', 'nyc3'),
      'invalid input: --size: unknown unit "XB" in "10XB"; use GiB or TiB',
      'cloudcall volume-create --help lists its flags',
    );
    refused(
      await user.sandbox('volume', 'create', 'v', '--size', 'big', '--region', 'nyc3'),
      'invalid input: --size: expected a size such as 100GiB or 1TiB, got "big"',
      'cloudcall volume-create --help lists its flags',
    );
    expect((await user.ok('volume', 'list')).volumes).toEqual([]);
  });
});

describe('SSH keys, as doctl', SLOW, () => {
  it('ssh-key import --public-key-file; keys by MD5 or SHA256 fingerprint or by name, wherever an id goes', async () => {
    const user = doctlUser();
    const key = sshPublicKey('me@laptop');
    const file = join(user.home, 'id_ed25519.pub');
    writeFileSync(file, `${key}\n`);
    const imported = (await user.ok('compute', 'ssh-key', 'import', 'laptop', '--public-key-file', file))
      .ssh_key;
    expect(imported).toMatchObject({ name: 'laptop', public_key: key });
    const md5: string = imported.fingerprint;
    const blob = Buffer.from(key.split(' ')[1] as string, 'base64');
    const sha256 = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
    for (const handle of [md5, `MD5:${md5.toUpperCase()}`, sha256, 'laptop', String(imported.id)]) {
      expect((await user.ok('compute', 'ssh-key', 'get', handle)).ssh_key.id, handle).toBe(imported.id);
    }
    // A fingerprint no key has is named as such.
    const other = md5.replace(/^../, md5.startsWith('00') ? '11' : '00');
    refused(
      await user.sandbox('ssh-key', 'get', other),
      `invalid input: <id>: no SSH key has the id, fingerprint or name "${other}" (key-list lists them)`,
      'cloudcall key-get --help lists its flags',
    );
    // A droplet's keys by name and fingerprint: the ids are sent.
    const created = await user.sandbox(
      ...['droplet', 'create', 'web-1', ...DROPLET, '--ssh-keys', `laptop,${sha256}`, '--trace'],
    );
    expect(created.code, created.stderr).toBe(EXIT.ok);
    expect(created.stderr).toContain(`"ssh_keys":[${imported.id},${imported.id}]`);
    await user.ok('compute', 'ssh-key', 'delete', 'laptop', '--force');
    expect((await user.ok('ssh-key', 'list')).ssh_keys).toEqual([]);
  });

  it('a private key, or a file that is no public key, is refused without showing what it holds', async () => {
    const user = doctlUser();
    const path = (name: string, text: string) => {
      const file = join(user.home, name);
      writeFileSync(file, text);
      return file;
    };
    const secret = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQSECRET';
    const hint = 'cloudcall key-create --help lists its flags';
    const importing = async (file: string) => {
      const run = await user.sandbox('ssh-key', 'import', 'k', '--public-key-file', file);
      expect(run.code, run.stderr).toBe(EXIT.input);
      expect(run.stderr + run.stdout).not.toContain('SECRET');
      return run;
    };
    const privateKey = path(
      'id_ed25519',
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n-----END OPENSSH PRIVATE KEY-----\n`,
    );
    refused(
      await importing(privateKey),
      `invalid input: --public-key-file: "${privateKey}" is a private key, which stays on this machine; give the public key`,
      hint,
    );
    // With its .pub beside it, that file is named.
    path('id_ed25519.pub', `${sshPublicKey()}\n`);
    const named = await importing(privateKey);
    expect(named.stderr).toContain(`give the public key ("${privateKey}.pub")`);
    const pem = path(
      'key.pem',
      `-----BEGIN RSA PRIVATE KEY-----\n${secret}\n-----END RSA PRIVATE KEY-----\n`,
    );
    expect((await importing(pem)).stderr).toContain('is a private key');
    const notKey = path('notes.txt', `password=${secret}\n`);
    refused(
      await importing(notKey),
      `invalid input: --public-key-file: "${notKey}" is not an SSH public key; expected one line such as "ssh-ed25519 AAAA... comment", as in ~/.ssh/id_ed25519.pub`,
      hint,
    );
    // (Other files that are no key: public-key-file.test.ts.)
    expect((await importing(join(user.home, 'missing.pub'))).stderr).toContain('does not exist');
    expect((await importing(user.home)).stderr).toContain(`"${user.home}" is not a file`);
    // Neither an endless device nor a pipe with no writer is read from.
    expect((await importing('/dev/zero')).stderr).toContain('"/dev/zero" is not a file');
    const fifo = join(user.home, 'fifo.pub');
    execFileSync('mkfifo', [fifo]);
    expect((await importing(fifo)).stderr).toContain('is not a file');
    // Given two ways at once, differently: refused.
    const both = await user.sandbox(
      ...[
        'ssh-key',
        'create',
        'k',
        '--public-key',
        sshPublicKey(),
        '--public-key-file',
        path('a.pub', sshPublicKey()),
      ],
    );
    expect(both.code).toBe(EXIT.input);
    expect(both.stderr).toMatch(/--public-key: given twice, as --public-key and --public-key-file/);
    expect((await user.ok('ssh-key', 'list')).ssh_keys).toEqual([]);
  });
});

describe('words that name nothing', SLOW, () => {
  it('one "did you mean" and the help that lists the verbs, never the verbs', async () => {
    const user = doctlUser();
    const hint = (words: string) => `cloudcall ${words} --help lists its verbs`;
    refused(
      await user.sandbox('vm', 'pwoer-off', 'web-1'),
      'vm has no verb "pwoer-off" (did you mean power-off?)',
      hint('vm'),
    );
    refused(
      await user.sandbox('compute', 'droplet', 'lsit'),
      'droplet has no verb "lsit" (did you mean list?)',
      hint('droplet'),
    );
    // The word that is wrong is the verb after `domain record(s)`, not `record`.
    refused(
      await user.sandbox('domain', 'record', 'updat', 'example.com'),
      'domain record has no verb "updat" (did you mean update?)',
      hint('domain record'),
    );
    refused(
      await user.sandbox('compute', 'domain', 'records', 'frob', 'example.com'),
      'domain records has no verb "frob"',
      hint('domain records'),
    );
    refused(
      await user.sandbox('databases', 'user', 'lst', 'pg-1'),
      'databases user has no verb "lst" (did you mean list?)',
      hint('databases'),
    );
    refused(
      await user.sandbox('databases', 'user'),
      'databases user needs a verb: list, get, create, update, delete',
      hint('databases'),
    );
    refused(
      await user.sandbox('dropelt', 'list'),
      'unknown command "dropelt" (did you mean droplet?)',
      'cloudcall --help lists the families and their resources',
    );
    // The hints work: each resource's help, as typed.
    for (const words of [['domain', 'records'], ['compute', 'droplet'], ['databases']]) {
      const help = await user.sandbox(...words, '--help');
      expect(help.code, words.join(' ')).toBe(EXIT.ok);
      expect(help.stdout).toMatch(/^ {2}\S+ +\S/m);
    }
  });

  it('help <unknown> exits 2 with a "did you mean"; help <resource> <verb> is the tool\'s help', async () => {
    const user = doctlUser();
    refused(
      await user.sandbox('help', 'nope'),
      'unknown command "nope"',
      'cloudcall --help lists the families and their resources',
    );
    refused(
      await user.sandbox('help', 'dropelt'),
      'unknown command "dropelt" (did you mean droplet?)',
      'cloudcall --help lists the families and their resources',
    );
    refused(
      await user.sandbox('help', 'vm', 'pwoer-off'),
      'vm has no verb "pwoer-off" (did you mean power-off?)',
      'cloudcall vm --help lists its verbs',
    );
    const tool = await user.sandbox('help', 'volume-action', 'attach');
    expect(tool.code).toBe(EXIT.ok);
    expect(tool.stdout).toMatch(/^Usage: cloudcall volume-attach \[options\] \[id\] \[vm-id\]/);
    const resource = await user.sandbox('help', 'projects');
    expect(resource.code).toBe(EXIT.ok);
    expect(resource.stdout).toMatch(/^ {2}project-list +List projects$/m);
  });
});
