/**
 * The grouping every help page and `<resource> <verb>` rests on, over every tool: each tool is in
 * one resource of its own family, each `<resource> <verb>` names one tool, and each tool with a
 * path placeholder has a positional primary argument.
 */
import { families } from '@cloudcall/catalog';
import { inputJsonSchema } from '@cloudcall/core/internal';
import { describe, expect, it } from 'vitest';
import { groupTools, joinToolWords, primaryArgument, resolveToolWords, secondArgument } from './commands.js';
import { DOCTL_COMMANDS } from './doctl.js';
import { flagsOf, type JsonSchema } from './flags.js';

const groups = groupTools(families);
const tools = families.flatMap((family) => family.tools);
const names = new Set(tools.map((tool) => tool.name));
const familyOf = new Map(tools.map((tool) => [tool.name, tool.family]));

describe('resources', () => {
  it('place every tool once, in its family, with a resource-verb pair of its own', () => {
    const placed = groups.flatMap(({ family, resources }) =>
      [...resources.values()].flat().map((entry) => ({ ...entry, family: family.name })),
    );
    expect(placed.map((entry) => entry.tool.name).sort()).toEqual([...names].sort());
    for (const entry of placed) expect(familyOf.get(entry.tool.name)).toBe(entry.family);
    const pairs = placed.map((entry) => `${entry.resource} ${entry.verb}`);
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it('join words into tool names: the tool name split, or a resource and its verb', () => {
    const join = (...words: string[]) => joinToolWords(words, 0, names, groups);
    expect(join('vm', 'create', '--name', 'x')).toEqual(['vm-create', '--name', 'x']);
    expect(join('vm', 'get', '123')).toEqual(['vm-get', '123']);
    expect(join('db', 'cluster', 'list-users', 'pg')).toEqual(['db-cluster-list-users', 'pg']);
    expect(join('vm', 'power-off', '7')).toEqual(['power-off-vm', '7']);
    expect(join('vm', 'shutdown-tag', '--tag', 'web')).toEqual(['shutdown-vms-tag', '--tag', 'web']);
    // Verb first, though snapshots are a resource (of another family); a VM's action is the VM's.
    expect(join('vm', 'snapshot', '7')).toEqual(['snapshot-vm', '7']);
    expect(join('vm', 'action', '7')).toEqual(['vm-action', '7']);
    expect(join('snapshot', 'list')).toEqual(['snapshot-list']);
    expect(join('vm-get', '7')).toEqual(['vm-get', '7']);
    expect(join('vm', 'explode')).toEqual(['vm', 'explode']);
    for (const { resources } of groups) {
      for (const [resource, entries] of resources) {
        for (const { tool, verb } of entries) {
          if (verb) expect(join(resource, verb), `${resource} ${verb}`).toEqual([tool.name]);
        }
      }
    }
  });
});

describe("doctl's words", () => {
  const join = (...words: string[]) => joinToolWords(words, 0, names, groups);
  const problem = (...words: string[]) => resolveToolWords(words, 0, names, groups).problem?.message;

  it('the compute group, its resource words, plurals, verbs and sub-resources name the tool', () => {
    expect(join('compute', 'droplet', 'list')).toEqual(['vm-list']);
    expect(join('compute', 'droplet-action', 'power-off', '7')).toEqual(['power-off-vm', '7']);
    expect(join('compute', 'droplet-action', 'get', '7', '9')).toEqual(['vm-action', '7', '9']);
    expect(join('compute', 'droplet', 'get', '7')).toEqual(['vm-get', '7']);
    expect(join('droplets', 'list')).toEqual(['vm-list']);
    expect(join('vms', 'list')).toEqual(['vm-list']);
    expect(join('compute', 'ssh-key', 'list')).toEqual(['key-list']);
    expect(join('ssh-keys', 'list')).toEqual(['key-list']);
    expect(join('compute', 'ssh-key', 'import', 'k', '--public-key-file', 'f')).toEqual([
      'key-create',
      'k',
      '--public-key-file',
      'f',
    ]);
    expect(join('projects', 'list')).toEqual(['project-list']);
    expect(join('projects', 'resources', 'list', 'p')).toEqual(['project-list-resources', 'p']);
    expect(join('vpcs', 'list')).toEqual(['vpc-list']);
    expect(join('byoip-prefixes', 'list')).toEqual(['byoip-prefix-list']);
    expect(join('compute', 'domain', 'records', 'list', 'example.com')).toEqual([
      'domain-record-list',
      'example.com',
    ]);
    expect(join('domain', 'records', 'update', 'x.com')).toEqual(['domain-record-edit', 'x.com']);
    expect(join('domain', 'record', 'update', 'x.com')).toEqual(['domain-record-edit', 'x.com']);
    expect(join('databases', 'list')).toEqual(['db-cluster-list']);
    expect(join('databases', 'user', 'list', 'pg')).toEqual(['db-cluster-list-users', 'pg']);
    expect(join('databases', 'user', 'get', 'pg', 'ann')).toEqual(['db-cluster-get-user', 'pg', 'ann']);
    expect(join('databases', 'pool', 'create', 'pg', 'p')).toEqual(['db-cluster-create-pool', 'pg', 'p']);
    expect(join('databases', 'db', 'list', 'pg')).toEqual(['db-cluster-list-dbs', 'pg']);
    expect(join('databases', 'topics', 'get', 'k', 't')).toEqual(['db-cluster-get-topic', 'k', 't']);
    expect(join('databases', 'replica', 'promote', 'pg', 'r')).toEqual([
      'db-cluster-promote-replica',
      'pg',
      'r',
    ]);
    expect(join('databases', 'firewalls', 'list', 'pg')).toEqual(['db-cluster-get-firewall-rules', 'pg']);
    expect(join('databases', 'maintenance-window', 'update', 'pg')).toEqual([
      'db-cluster-set-maintenance-window',
      'pg',
    ]);
    expect(join('databases', 'backups', 'pg')).toEqual(['db-cluster-list-backups', 'pg']);
    expect(join('compute', 'volume-action', 'attach', 'v', '7')).toEqual(['volume-attach', 'v', '7']);
    expect(join('compute', 'volume-action', 'detach', 'v', '7')).toEqual(['volume-detach', 'v', '7']);
    expect(join('compute', 'volume-action', 'resize', 'v')).toEqual(['volume-resize', 'v']);
    expect(join('compute', 'volume-action', 'list', 'v')).toEqual(['volume-action-list', 'v']);
    expect(join('reserved-ip', 'create')).toEqual(['reserved-ip-reserve']);
    expect(join('floating-ip', 'list')).toEqual(['reserved-ip-list']);
    // Global options before the words stay where they are; `compute` before a tool's name goes.
    expect(joinToolWords(['--sandbox', 'compute', 'droplet', 'list'], 1, names, groups)).toEqual([
      '--sandbox',
      'vm-list',
    ]);
    expect(join('compute', 'vm-list')).toEqual(['vm-list']);
    // Every doctl command names a tool there is.
    for (const tool of Object.values(DOCTL_COMMANDS).map((command) => command.split(' ')[0] as string))
      expect(names.has(tool), tool).toBe(true);
  });

  it('names the word that is wrong, with the nearest one or two', () => {
    expect(problem('vm', 'pwoer-off')).toBe('vm has no verb "pwoer-off" (did you mean power-off?)');
    expect(problem('droplet', 'frob')).toBe('droplet has no verb "frob"');
    expect(problem('domain', 'record', 'updte')).toBe(
      'domain record has no verb "updte" (did you mean update?)',
    );
    expect(problem('domain', 'records', 'lst', 'x')).toBe(
      'domain records has no verb "lst" (did you mean list?)',
    );
    expect(problem('databases', 'user', 'lst', 'x')).toBe(
      'databases user has no verb "lst" (did you mean list?)',
    );
    expect(problem('databases', 'user')).toBe(
      'databases user needs a verb: list, get, create, update, delete',
    );
    expect(problem('vm', '--force')).toBe('vm needs a verb');
    expect(problem('dropelt', 'list')).toBe('unknown command "dropelt" (did you mean droplet?)');
    expect(problem('compute', 'dropelt', 'list')).toBe('unknown command "dropelt" (did you mean droplet?)');
    expect(problem('vm-lsit')).toBe('unknown command "vm-lsit" (did you mean vm-list?)');
    // Two only when both are as near; the start of a word when only one or two start so.
    expect(problem('vm', 'power-of')).toBe('vm has no verb "power-of" (did you mean power-on or power-off?)');
    expect(problem('vm', 'power-o')).toBe('vm has no verb "power-o" (did you mean power-on?)');
    expect(problem('vm', 'list-snap')).toBe('vm has no verb "list-snap" (did you mean list-snapshots?)');
    expect(problem('vm', 'power')).toBe('vm has no verb "power"');
    // Never a list of the resource's verbs: one line, short.
    for (const { resources } of groups) {
      // (A resource that is a tool of its own, `wait`, takes the word as its argument.)
      for (const resource of [...resources.keys()].filter((each) => !names.has(each))) {
        const message = problem(resource, 'zzzz') ?? '';
        expect(message, resource).toBe(`${resource} has no verb "zzzz"`);
      }
    }
    expect(problem('vm', 'list')).toBeUndefined();
  });
});

describe('primary arguments', () => {
  it('every tool with a path placeholder takes its first one positionally', () => {
    for (const tool of tools) {
      const placeholder = tool.request ? /\{(\w+)\}/.exec(tool.request.path)?.[1] : undefined;
      const primary = primaryArgument(tool, flagsOf(inputJsonSchema(tool) as JsonSchema));
      if (placeholder) expect(primary?.name, tool.name).toBe(placeholder);
    }
    const byName = (name: string) => tools.find((tool) => tool.name === name);
    const primaryOf = (name: string) => {
      const tool = byName(name);
      return tool && primaryArgument(tool, flagsOf(inputJsonSchema(tool) as JsonSchema))?.name;
    };
    expect(primaryOf('domain-delete')).toBe('Name');
    expect(primaryOf('reserved-ip-get')).toBe('IP');
    expect(primaryOf('db-cluster-get-mysql-config')).toBe('ID');
    expect(primaryOf('vm-create')).toBeUndefined();
  });

  it('a second argument where doctl takes one: a second placeholder, a VM id, or what is created', () => {
    const secondOf = (name: string) => {
      const tool = tools.find((each) => each.name === name);
      return tool && secondArgument(tool, flagsOf(inputJsonSchema(tool) as JsonSchema))?.name;
    };
    expect(secondOf('db-cluster-get-user')).toBe('user');
    expect(secondOf('db-cluster-create-user')).toBe('name');
    expect(secondOf('domain-record-delete')).toBe('RecordID');
    expect(secondOf('volume-attach')).toBe('VmID');
    expect(secondOf('reserved-ip-assign')).toBe('VmID');
    expect(secondOf('volume-resize')).toBeUndefined();
    expect(secondOf('vm-delete')).toBeUndefined();
    expect(secondOf('vm-create')).toBeUndefined();
    expect(secondOf('db-cluster-create-pool')).toBe('name');
  });
});
