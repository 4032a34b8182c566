/**
 * Flag spellings over every tool: each argument gets a kebab-case flag, and no two arguments of
 * a tool (or an argument and a connection option) read as the same flag once case and
 * separators are ignored, which would make a spelling ambiguous.
 */
import { families } from '@cloudcall/catalog';
import { inputJsonSchema } from '@cloudcall/core/internal';
import { describe, expect, it } from 'vitest';
import { kebabName, looseKey, normalizeFlags, UnknownFlagError } from './flag-names.js';
import { flagsOf, type JsonSchema } from './flags.js';

const tools = families.flatMap((family) => family.tools);

describe('kebabName', () => {
  it.each([
    ['PublicKey', 'public-key'],
    ['LoadBalancerID', 'load-balancer-id'],
    ['num_nodes', 'num-nodes'],
    ['per_page', 'per-page'],
    ['ID', 'id'],
    ['UUID', 'uuid'],
    ['IP', 'ip'],
    ['VmID', 'vm-id'],
    ['VmIDs', 'vm-ids'],
    ['TargetLoadBalancerIDs', 'target-load-balancer-ids'],
    ['IPAddress', 'ip-address'],
    ['IPv6', 'ipv6'],
    ['GLBSettings', 'glb-settings'],
    ['Vpc1', 'vpc1'],
    ['config_json', 'config-json'],
  ])('%s -> --%s', (name, kebab) => {
    expect(kebabName(name)).toBe(kebab);
  });

  it('gives every argument of every tool a lowercase flag that reads back as the same argument', () => {
    const connection = [
      'api-url',
      'sandbox',
      'sandbox-state',
      'show-secrets',
      'output',
      'format',
      'header',
      'query',
    ];
    // api-call's Query argument is its --query after the tool name, where a tool's own flag comes
    // first; cloudcall's JMESPath --query goes before the tool name there (api.test.ts runs both).
    const shadowing = ['api-call Query'];
    const shadowed: string[] = [];
    for (const tool of tools) {
      const names = Object.keys((inputJsonSchema(tool) as JsonSchema).properties ?? {});
      const keys = names.map(looseKey);
      expect(new Set(keys).size, tool.name).toBe(names.length);
      for (const name of names) {
        expect(kebabName(name), `${tool.name} ${name}`).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
        expect(looseKey(kebabName(name))).toBe(looseKey(name));
        if (!connection.map(looseKey).includes(looseKey(name))) continue;
        shadowed.push(`${tool.name} ${name}`);
      }
    }
    expect(shadowed).toEqual(shadowing);
    expect(tools.length).toBeGreaterThanOrEqual(142);
  });
});

describe('normalizeFlags', () => {
  const known = [
    { long: '--public-key', takesValue: true },
    { long: '--name', takesValue: true },
    { long: '--sandbox', takesValue: false },
  ];

  it('rewrites spellings but never a value, nor what follows --', () => {
    expect(
      normalizeFlags(
        ['--PublicKey', '--Name', '--NAME=x', '--public_key', 'k', '--sandbox', '--', '--Name'],
        known,
      ),
    ).toEqual(['--public-key', '--Name', '--name=x', '--public-key', 'k', '--sandbox', '--', '--Name']);
  });

  it('names the closest flags of an unknown one', () => {
    expect(() => normalizeFlags(['--PublicKy', 'k'], known)).toThrow(
      new UnknownFlagError('--PublicKy', ['--public-key']),
    );
    expect(() => normalizeFlags(['--zzz'], known)).toThrow('unknown flag --zzz');
  });

  it('accepts every flag of every tool by its spec name', () => {
    for (const tool of tools) {
      const flags = flagsOf(inputJsonSchema(tool) as JsonSchema);
      const declared = flags.map((flag) => ({ long: `--${kebabName(flag.name)}`, takesValue: true }));
      const words = flags.flatMap((flag) => [`--${flag.name}`, 'v']);
      expect(normalizeFlags(words, declared)).toEqual(
        flags.flatMap((flag) => [`--${kebabName(flag.name)}`, 'v']),
      );
    }
  });
});
