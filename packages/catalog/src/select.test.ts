/**
 * Tool selection, the steps in order: --families, --tools, --exclude-tools, --read-only. On a
 * small list made here, where each outcome is known by name, and on the real definitions, where
 * --read-only must keep every read-only tool, offer a tool's read-only form in its place (api-call,
 * GET and HEAD only) and hide the rest naming the flag.
 */
import { annotations, type FamilyName, type ToolAnnotations } from '@cloudcall/core';
import { describe, expect, it } from 'vitest';
import { families, toolsOf } from './index.js';
import { chooseFamilies, parseToolList, SELECTION_ENV, type SelectableTool, selectTools } from './select.js';

interface Listed extends SelectableTool {
  readOnlyForm?: Listed | undefined;
}

const tool = (name: string, family: FamilyName, kind: ToolAnnotations, readOnlyForm?: Listed): Listed => ({
  name,
  family,
  annotations: kind,
  ...(readOnlyForm ? { readOnlyForm } : {}),
});

const vmList = tool('vm-list', 'vms', annotations.read);
const vmGet = tool('vm-get', 'vms', annotations.read);
const vmDelete = tool('vm-delete', 'vms', annotations.destroy);
const vmPowerOff = tool('vm-power-off', 'vms', annotations.destructive);
const keyCreate = tool('key-create', 'account', annotations.create);
const keyUpdate = tool('key-update', 'account', annotations.update);
const keyList = tool('key-list', 'account', annotations.read);
const apiCallReadOnly = tool('api-call', 'api', annotations.read);
const apiCall = tool('api-call', 'api', annotations.action, apiCallReadOnly);
/** A reading tool that also has a form: it stays itself, the form is for tools that change things. */
const dbListForm = tool('db-list', 'databases', annotations.read);
const dbList = tool('db-list', 'databases', annotations.read, dbListForm);

const all = [vmList, vmGet, vmDelete, vmPowerOff, keyCreate, keyUpdate, keyList, apiCall, dbList];
const READ_ONLY_REASON = 'hidden by --read-only (CLOUDCALL_READ_ONLY): it changes resources';

const names = (tools: readonly SelectableTool[]) => tools.map((each) => each.name);

describe('selectTools with readOnly', () => {
  it('keeps read-only tools as they are, puts a read-only form in its place, hides the rest', () => {
    const { tools: offered, hidden } = selectTools(all, { readOnly: true });
    // The same objects, in the list's order, the form where its tool was.
    expect(offered).toEqual([vmList, vmGet, keyList, apiCallReadOnly, dbList]);
    expect(offered[0]).toBe(vmList);
    expect(offered[3]).toBe(apiCallReadOnly);
    expect(offered[4]).toBe(dbList);
    expect(hidden).toEqual(
      new Map([
        ['vm-delete', READ_ONLY_REASON],
        ['vm-power-off', READ_ONLY_REASON],
        ['key-create', READ_ONLY_REASON],
        ['key-update', READ_ONLY_REASON],
      ]),
    );
  });

  it('offers every tool itself, hiding none, without readOnly', () => {
    for (const selection of [undefined, {}, { readOnly: false }]) {
      const { tools: offered, hidden } = selectTools(all, selection);
      expect(offered).toEqual(all);
      expect(offered[7]).toBe(apiCall);
      expect(hidden.size).toBe(0);
    }
  });

  it('lets the earlier steps speak first: a tool they leave out gets their reason', () => {
    const { tools: offered, hidden } = selectTools(all, {
      readOnly: true,
      families: ['vms', 'api'],
      include: ['vm-*', 'api-call'],
      exclude: ['vm-get', 'api-call'],
    });
    expect(names(offered)).toEqual(['vm-list']);
    expect(hidden.get('key-create')).toBe(
      `its family, account, is not in --families (${SELECTION_ENV.families})`,
    );
    expect(hidden.get('vm-get')).toBe('hidden by --exclude-tools (CLOUDCALL_EXCLUDE_TOOLS)');
    expect(hidden.get('api-call')).toBe('hidden by --exclude-tools (CLOUDCALL_EXCLUDE_TOOLS)');
    expect(hidden.get('vm-delete')).toBe(READ_ONLY_REASON);
    expect(hidden.size).toBe(all.length - 1);
  });

  describe('on the real definitions', () => {
    const tools = toolsOf(families);
    // Selected in each test, not when the file loads: code run at load counts as outside every
    // test, and mutation testing would then run the whole suite for each of its mutants.
    const readOnly = () => selectTools(tools, { readOnly: true });

    it('keeps every read-only tool, itself', () => {
      const offered = readOnly().tools;
      const reading = tools.filter((each) => each.annotations.readOnlyHint);
      expect(reading.length).toBeGreaterThan(50);
      for (const each of reading) expect(offered).toContain(each);
      expect(names(offered)).toContain('key-list');
      expect(names(offered)).toContain('vm-get');
    });

    it("offers api-call's read-only form: GET and HEAD only", () => {
      const { tools: offered, hidden } = readOnly();
      const apiCallOffered = offered.find((each) => each.name === 'api-call');
      expect(apiCallOffered).toBeDefined();
      expect(apiCallOffered).not.toBe(tools.find((each) => each.name === 'api-call'));
      expect(apiCallOffered?.annotations).toEqual(annotations.read);
      expect(Object.keys(apiCallOffered?.input.shape ?? {})).toEqual(['Method', 'Path', 'Query']);
      expect(apiCallOffered?.input.safeParse({ Method: 'POST', Path: '/v2/tags' }).success).toBe(false);
      expect(apiCallOffered?.input.safeParse({ Method: 'GET', Path: '/v2/tags' }).success).toBe(true);
      expect(hidden.has('api-call')).toBe(false);
    });

    it('hides every tool that changes resources and has no read-only form, naming the flag', () => {
      const { tools: offered, hidden } = readOnly();
      const changing = tools.filter((each) => !each.annotations.readOnlyHint && !each.readOnlyForm);
      expect(changing.length).toBeGreaterThan(50);
      expect([...hidden.keys()].sort()).toEqual(names(changing).sort());
      expect(new Set(hidden.values())).toEqual(new Set([READ_ONLY_REASON]));
      expect(hidden.get('key-delete')).toBe(READ_ONLY_REASON);
      expect(hidden.get('vm-create')).toBe(READ_ONLY_REASON);
      // Offered and hidden account for every tool, once.
      expect(offered.length + hidden.size).toBe(tools.length);
      expect(offered.every((each) => each.annotations.readOnlyHint)).toBe(true);
    });

    it('keeps the tool itself without readOnly, and the other steps before the read-only one', () => {
      const apiCallItself = tools.find((each) => each.name === 'api-call');
      expect(selectTools(tools).tools.find((each) => each.name === 'api-call')).toBe(apiCallItself);
      const excluded = selectTools(tools, { readOnly: true, exclude: ['api-call'] });
      expect(names(excluded.tools)).not.toContain('api-call');
      expect(excluded.hidden.get('api-call')).toMatch(/--exclude-tools/);
    });
  });
});

describe('selectTools with families, tools and exclusions', () => {
  it('offers only the families named, each other tool hidden with its family named', () => {
    const { tools: offered, hidden } = selectTools(all, { families: ['account'] });
    expect(names(offered)).toEqual(['key-create', 'key-update', 'key-list']);
    expect(hidden.get('vm-list')).toBe('its family, vms, is not in --families (CLOUDCALL_FAMILIES)');
    expect(hidden.get('api-call')).toBe('its family, api, is not in --families (CLOUDCALL_FAMILIES)');
    expect(hidden.size).toBe(all.length - 3);
  });

  it('takes names and globs (* and ?) in --tools, whole names only', () => {
    const { tools: offered, hidden } = selectTools(all, { include: ['key-??????', 'vm-*', 'db-list'] });
    expect(names(offered)).toEqual([
      'vm-list',
      'vm-get',
      'vm-delete',
      'vm-power-off',
      'key-create',
      'key-update',
      'db-list',
    ]);
    expect(hidden).toEqual(
      new Map([
        ['key-list', 'not in --tools (CLOUDCALL_TOOLS)'],
        ['api-call', 'not in --tools (CLOUDCALL_TOOLS)'],
      ]),
    );
    // A name matches whole: `vm` is no tool, and `vm-ge` does not match vm-get.
    expect(() => selectTools(all, { include: ['vm-ge'] })).toThrow('--tools: vm-ge matches no tool');
  });

  it('drops --exclude-tools after --tools', () => {
    const { tools: offered, hidden } = selectTools(all, {
      include: ['vm-*'],
      exclude: ['*-delete', 'vm-power-*'],
    });
    expect(names(offered)).toEqual(['vm-list', 'vm-get']);
    expect(hidden.get('vm-delete')).toBe('hidden by --exclude-tools (CLOUDCALL_EXCLUDE_TOOLS)');
    expect(hidden.get('key-list')).toBe('not in --tools (CLOUDCALL_TOOLS)');
  });

  it('treats an empty --tools or --exclude-tools as not given', () => {
    expect(selectTools(all, { include: [], exclude: [] }).tools).toEqual(all);
  });

  it('takes regular-expression characters in a pattern literally', () => {
    const dotted = [tool('a.b', 'api', annotations.read), tool('axb', 'api', annotations.read)];
    expect(names(selectTools(dotted, { include: ['a.b'] }).tools)).toEqual(['a.b']);
    expect(() => selectTools(dotted, { include: ['a+b'] })).toThrow('matches no tool');
  });

  it('refuses a pattern that matches no tool, naming the flag, the pattern and the closest names', () => {
    expect(() => selectTools(all, { include: ['vm-lst'] })).toThrow(
      new Error('--tools: vm-lst matches no tool (did you mean vm-list, vm-get?)'),
    );
    expect(() => selectTools(all, { exclude: ['key-creat', 'zzzzzzzzzz*'] })).toThrow(
      new Error(
        '--exclude-tools: key-creat matches no tool (did you mean key-create?); --exclude-tools: zzzzzzzzzz* matches no tool',
      ),
    );
  });
});

describe('chooseFamilies', () => {
  const known = [{ name: 'account' }, { name: 'vms' }, { name: 'api' }];

  it('gives every family for an empty or absent list, as a new array', () => {
    for (const list of [undefined, '', ' , ,']) {
      const chosen = chooseFamilies(list, known);
      expect(chosen).toEqual(known);
      expect(chosen).not.toBe(known);
    }
  });

  it('picks the families named, in their own order, whatever spaces surround the names', () => {
    expect(chooseFamilies(' api , account', known)).toEqual([{ name: 'account' }, { name: 'api' }]);
  });

  it('names the unknown families and the choices', () => {
    expect(() => chooseFamilies('vms,dns', known)).toThrow(
      new Error('unknown family dns; choose from account, vms, api or all'),
    );
    expect(() => chooseFamilies('dns,k8s,vms', known)).toThrow(
      new Error('unknown families dns, k8s; choose from account, vms, api or all'),
    );
  });
});

describe('families offered on request', () => {
  const known = [
    { name: 'account' },
    { name: 'kubernetes', onRequest: true as const },
    { name: 'vms' },
    { name: 'spaces', onRequest: true as const },
  ];

  it('are left out of the default families, and in with all or by name', () => {
    expect(chooseFamilies(undefined, known).map((family) => family.name)).toEqual(['account', 'vms']);
    expect(chooseFamilies('', known).map((family) => family.name)).toEqual(['account', 'vms']);
    expect(chooseFamilies('all', known)).toEqual(known);
    expect(chooseFamilies('vms, all', known)).toEqual(known);
    expect(chooseFamilies('spaces,account', known).map((family) => family.name)).toEqual([
      'account',
      'spaces',
    ]);
  });

  it('say how to get a tool back when the default families leave it out', () => {
    const tools = [tool('key-list', 'account', annotations.read), tool('vm-list', 'vms', annotations.read)];
    const byDefault = selectTools(tools, { families: ['account'], defaultFamilies: true });
    expect(byDefault.hidden.get('vm-list')).toBe(
      'its family, vms, is offered on request: add it to --families (CLOUDCALL_FAMILIES), or give --families all',
    );
    const named = selectTools(tools, { families: ['account'] });
    expect(named.hidden.get('vm-list')).toBe('its family, vms, is not in --families (CLOUDCALL_FAMILIES)');
  });
});

describe('parseToolList', () => {
  it('splits on commas, spaces and line breaks, dropping empty items', () => {
    expect(parseToolList('vm-list, vm-get  key-*\n,db-list,')).toEqual([
      'vm-list',
      'vm-get',
      'key-*',
      'db-list',
    ]);
    expect(parseToolList(' , ')).toEqual([]);
  });
});
