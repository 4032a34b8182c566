/**
 * The grouping every help page and `<resource> <verb>` rests on, over every tool: each tool is in
 * one resource of its own family, each `<resource> <verb>` names one tool, and each tool with a
 * path placeholder has a positional primary argument.
 */
import { families } from '@cloudcall/catalog';
import { inputJsonSchema } from '@cloudcall/core/internal';
import { describe, expect, it } from 'vitest';
import { groupTools, joinToolWords, primaryArgument } from './commands.js';
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
});
