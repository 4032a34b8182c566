import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicy, PolicyError, parsePolicy, parseRule, protectingRule, protectionRules } from './index.js';

describe('policy files', () => {
  it('give rules that name their file and line', () => {
    const rules = parsePolicy('{\n  "protect": [\n    "tag:prod",\n    "name:db-main"\n  ]\n}\n', 'p.json');
    expect(rules).toEqual([
      { kind: 'tag', value: 'prod', source: 'policy file p.json, line 3' },
      { kind: 'name', value: 'db-main', source: 'policy file p.json, line 4' },
    ]);
  });

  it.each([
    ['{\n  "protect": [\n    "tag:prod",\n  ]\n}', 'line 4: not valid JSON (ValueExpected)'],
    ['{\n  "protect": [\n    "tag:prod"\n    "id:1"\n  ]\n}', 'line 4: not valid JSON (CommaExpected)'],
    [
      '{\n  "protect": [\n    "tag:prod",\n    "owner:me"\n  ]\n}',
      'line 4 at protect.1: must be tag:NAME, name:NAME or id:ID',
    ],
    ['{\n  "protect": "tag:prod"\n}', 'line 2 at protect: expected array, received string'],
    [
      '{\n  "protect": [],\n  "protekt": []\n}',
      'line 3: unknown key "protekt" (only "protect" and "allow" are allowed)',
    ],
    ['', 'line 1: not valid JSON'],
    [
      '{\n  "protect": [\n    "tag:prod,name:db-main"\n  ]\n}',
      'line 3 at protect.0: one rule per entry: "tag:prod,name:db-main" names two (split it at the comma)',
    ],
  ])('refuse %j with the line and the problem', (text, message) => {
    expect(() => parsePolicy(text, '/etc/cloudcall/policy.json')).toThrow(PolicyError);
    expect(() => parsePolicy(text, '/etc/cloudcall/policy.json')).toThrow(
      `policy file /etc/cloudcall/policy.json, ${message}`,
    );
  });

  it('allow named tools on protected resources, by their file and line', () => {
    const text = '{\n  "protect": ["tag:prod"],\n  "allow": [\n    "vm-reboot"\n  ]\n}\n';
    const rules = parsePolicy(text, 'p.json');
    expect(rules).toEqual([
      { kind: 'tag', value: 'prod', source: 'policy file p.json, line 2' },
      { kind: 'allow', value: 'vm-reboot', source: 'policy file p.json, line 4' },
    ]);
    const target = { kind: 'droplet', path: '/v2/droplets/1', id: 1, name: 'web', tags: ['prod'] };
    expect(protectingRule(rules, target, 'vm-reboot')).toBeUndefined();
    expect(protectingRule(rules, target, 'vm-delete')).toMatchObject({ kind: 'tag', value: 'prod' });
    // An allow: alone protects nothing.
    expect(protectingRule([{ kind: 'allow', value: 'x', source: 's' }], target, 'vm-delete')).toBeUndefined();
    expect(() => parsePolicy('{"protect": [], "allow": ["tag:prod"]}', 'p.json')).toThrow(
      'policy file p.json, line 1 at allow.0: must be a tool name, such as vm-reboot',
    );
    expect(() => parsePolicy('{"protect": ["allow:vm-reboot"]}', 'p.json')).toThrow(
      'at protect.0: must be tag:NAME, name:NAME or id:ID',
    );
  });

  it('say when the file cannot be read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudcall-policy-'));
    expect(() => loadPolicy(join(dir, 'missing.json'))).toThrow(/missing.json: cannot be read \(ENOENT\)/);
    writeFileSync(join(dir, 'ok.json'), '{"protect":["id:7"]}');
    expect(loadPolicy(join(dir, 'ok.json'))).toEqual([
      { kind: 'id', value: '7', source: expect.any(String) },
    ]);
  });
});

describe('rules', () => {
  it('are tag:, name: or id:', () => {
    expect(parseRule('tag:prod', '--protect')).toEqual({ kind: 'tag', value: 'prod', source: '--protect' });
    expect(() => parseRule('prod', '--protect')).toThrow(
      '--protect: "prod" is not a rule; write tag:NAME, name:NAME, id:ID or allow:TOOL',
    );
  });

  it('take comma-separated lists from --protect as from CLOUDCALL_PROTECT, never one rule with a comma', () => {
    // `tag:prod,name:w` as one tag named "prod,name:w" would match nothing, silently.
    expect(protectionRules({ flags: ['tag:prod,name:w', 'id:7'], env: 'name:db-*, tag:live' })).toEqual([
      { kind: 'tag', value: 'prod', source: '--protect' },
      { kind: 'name', value: 'w', source: '--protect' },
      { kind: 'id', value: '7', source: '--protect' },
      { kind: 'name', value: 'db-*', source: 'CLOUDCALL_PROTECT' },
      { kind: 'tag', value: 'live', source: 'CLOUDCALL_PROTECT' },
    ]);
    expect(() => protectionRules({ flags: ['tag:prod,owner:me'] })).toThrow(
      '--protect: "owner:me" is not a rule; write tag:NAME, name:NAME, id:ID or allow:TOOL',
    );
    expect(() => parseRule('tag:a,b', 'x')).toThrow('x: one rule per entry: "tag:a,b" names two');
    // allow:TOOL is spelt the same way in --protect and CLOUDCALL_PROTECT.
    expect(protectionRules({ flags: ['tag:prod,allow:vm-reboot'], env: 'allow:power-on-vm' })).toEqual([
      { kind: 'tag', value: 'prod', source: '--protect' },
      { kind: 'allow', value: 'vm-reboot', source: '--protect' },
      { kind: 'allow', value: 'power-on-vm', source: 'CLOUDCALL_PROTECT' },
    ]);
    expect(() => parseRule('allow:Vm Reboot', '--protect')).toThrow(
      '--protect: "allow:Vm Reboot": allow: takes a tool name, such as allow:vm-reboot',
    );
  });

  it('match tags exactly, names by glob, ids as text, and tag members', () => {
    const target = { kind: 'droplet', path: '/v2/droplets/12', id: 12, name: 'db-main', tags: ['prod'] };
    const rule = (text: string) => protectingRule([parseRule(text, 'x')], target);
    expect(rule('tag:prod')).toBeDefined();
    expect(rule('tag:pro')).toBeUndefined();
    expect(rule('name:db-*')).toBeDefined();
    expect(rule('name:db')).toBeUndefined();
    expect(rule('id:12')).toBeDefined();
    expect(rule('id:1')).toBeUndefined();
    const tag = {
      kind: 'tag',
      path: '/v2/droplets',
      name: 'web',
      tags: ['web'],
      members: [{ id: 5, name: 'a', tags: ['web', 'prod'] }],
    };
    expect(protectingRule([parseRule('tag:prod', 'x')], tag)).toBeDefined();
    expect(protectingRule([parseRule('id:5', 'x')], tag)).toBeDefined();
  });
});
