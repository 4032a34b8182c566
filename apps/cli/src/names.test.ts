/**
 * Which arguments take names (and image slugs), read from every tool's definition; and the ids
 * that stand for names while the other arguments are checked, which never equal an id given
 * beside them.
 */
import { families } from '@cloudcall/catalog';
import { type AnyTool, parseArgs } from '@cloudcall/core';
import { inputJsonSchema } from '@cloudcall/core/internal';
import { describe, expect, it } from 'vitest';
import { primaryArgument } from './commands.js';
import { flagsOf, type JsonSchema } from './flags.js';
import { checkWithNames, withPlaceholders } from './name-lookup.js';
import { namedArguments } from './names.js';

const tools = families.flatMap((family) => family.tools);

function namedOf(tool: AnyTool) {
  const flags = flagsOf(inputJsonSchema(tool) as JsonSchema);
  return namedArguments(tool, flags, primaryArgument(tool, flags));
}

function tool(name: string): AnyTool {
  const found = tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

describe('image arguments', () => {
  it('are every argument that holds an image id, found from the definitions', () => {
    const images = tools.flatMap((each) =>
      [...namedOf(each)].filter(([, kind]) => kind.label === 'image').map(([arg]) => `${each.name} ${arg}`),
    );
    expect(images.sort()).toEqual(
      [
        'vm-create ImageID',
        'rebuild-vm ImageID',
        'restore-vm ImageID',
        'image-get ID',
        'image-update ID',
        'image-delete ID',
        'image-action-transfer ID',
        'image-action-convert ID',
        'image-action-get ImageID',
      ].sort(),
    );
    // rebuild-vm's path id is still a VM's.
    expect(namedOf(tool('rebuild-vm')).get('ID')?.label).toBe('VM');
  });
});

describe('placeholders', () => {
  it('never equal a numeric id given beside the name, however large', () => {
    const addVms = tool('firewall-add-vms');
    const named = namedOf(addVms);
    for (const real of [1, 2, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1]) {
      const args = { ID: '7d9f2c1e-3b4a-4c5d-8e6f-0a1b2c3d4e5f', VmIDs: [real, 'web-1', 'web-2'] };
      const stood = withPlaceholders(args, named).VmIDs as number[];
      expect(stood[0]).toBe(real);
      expect(new Set(stood).size, `beside ${real}`).toBe(3);
      // Still ids of the right form: the tool's own check passes.
      expect(() => parseArgs(addVms, { ...args, VmIDs: stood })).not.toThrow();
    }
  });

  it('never equal a UUID given beside the name, so "must differ" is not refused wrongly', () => {
    const peering = tool('vpc-peering-create');
    const named = namedOf(peering);
    const zero = '00000000-0000-4000-8000-000000000000';
    const args = { Name: 'a-b', Vpc1: zero, Vpc2: 'peer-b' };
    const stood = withPlaceholders(args, named);
    expect(stood.Vpc1).toBe(zero);
    expect(stood.Vpc2).not.toBe(zero);
    expect(() => checkWithNames(peering, args, named)).not.toThrow();
  });

  it('are shown as the names typed when a check fails', () => {
    const peering = tool('vpc-peering-create');
    const named = namedOf(peering);
    expect(() => checkWithNames(peering, { Name: 'a-a', Vpc1: 'peer-a', Vpc2: 'peer-a' }, named)).toThrow(
      'argument Vpc2: must differ from Vpc1; got "peer-a"',
    );
  });
});
