/**
 * The account family as a library: each tool's API operation (checked against the API
 * description), arguments refused before any request, and the typed API against the sandbox.
 */
import { type AnyTool, ClientApiError, InputError, parseArgs, runTool } from '@cloudcall/core';
import { buildRequest } from '@cloudcall/core/internal';
import { connectSandbox, type SandboxConnection, sshPublicKey } from '@cloudcall/sandbox';
import { PATH_HOSTILE } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import {
  assertValidResponse,
  noResponseBody,
  operation,
  validateRequest,
} from '../../../tooling/openapi/index.js';
import { accountApi, accountTools } from './index.js';

let connection: SandboxConnection;
/** What the sandbox saw: one line per request. */
let seen: string[] = [];
beforeAll(async () => {
  connection = await connectSandbox({ log: (line) => seen.push(line) });
});
afterAll(async () => {
  await connection.close();
});

/** The API operation of each tool (API-MAP). */
const OPERATIONS: Record<string, string> = {
  'account-get-information': 'account_get',
  'balance-get': 'balance_get',
  'billing-history-list': 'billingHistory_list',
  'invoice-list': 'invoices_list',
  'invoice-get': 'invoices_get_byUUID',
  'invoice-get-summary': 'invoices_get_summaryByUUID',
  'key-create': 'sshKeys_create',
  'key-get': 'sshKeys_get',
  'key-list': 'sshKeys_list',
  'key-delete': 'sshKeys_delete',
  'action-get': 'actions_get',
  'action-list': 'actions_list',
  'project-list': 'projects_list',
  'project-get': 'projects_get',
  'project-get-default': 'projects_get_default',
  'project-create': 'projects_create',
  'project-update': 'projects_patch',
  'project-update-default': 'projects_patch_default',
  'project-delete': 'projects_delete',
  'project-list-resources': 'projects_list_resources',
  'project-assign-resources': 'projects_assign_resources',
};
const template = (path: string) => path.replace(/\{\w+\}/g, '{}');

describe('requests on the wire', () => {
  const requestTools = (accountTools as readonly AnyTool[]).filter((tool) => tool.request);

  it('maps every tool but wait to one request', () => {
    expect(accountTools.filter((tool) => !(tool as AnyTool).request).map((tool) => tool.name)).toEqual([
      'wait',
    ]);
  });

  it.each(requestTools.map((tool) => [tool.name, tool] as const))(
    '%s calls its operation, with noResponseBody exactly where it answers without a body',
    (name, tool) => {
      const operationId = OPERATIONS[name] as string;
      const expected = operation(operationId);
      expect(tool.request?.method).toBe(expected.method);
      expect(template(tool.request?.path ?? '')).toBe(template(expected.path));
      expect(Boolean(tool.request?.noResponseBody)).toBe(noResponseBody(operationId));
    },
  );
});

describe('invoice-get and invoice-get-summary', () => {
  const tool = (name: string) => accountTools.find((t) => t.name === name) as AnyTool;
  const request = (name: string, args: Record<string, unknown>) =>
    buildRequest(tool(name).request as never, parseArgs(tool(name), args) as Record<string, unknown>);
  const uuid = '22737513-0ea7-4206-8ceb-98a575af7681';

  it('send the invoice_uuid in the path, and invoice-get pages as invoice-list does', () => {
    expect(request('invoice-get', { ID: uuid })).toMatchObject({
      method: 'GET',
      path: `/v2/customers/my/invoices/${uuid}`,
      query: { page: 1, per_page: 30 },
    });
    expect(request('invoice-get', { ID: uuid, Page: 2, PerPage: 5 }).query).toEqual({ page: 2, per_page: 5 });
    expect(request('invoice-get-summary', { ID: uuid })).toMatchObject({
      method: 'GET',
      path: `/v2/customers/my/invoices/${uuid}/summary`,
    });
    expect(request('invoice-get-summary', { ID: uuid }).query ?? {}).toEqual({});
  });

  it('refuse an ID that is not a UUID, naming it', () => {
    for (const name of ['invoice-get', 'invoice-get-summary']) {
      for (const ID of ['2000123', 'preview', `${uuid}x`]) {
        const error = (() => {
          try {
            parseArgs(tool(name), { ID });
          } catch (e) {
            return e;
          }
        })();
        expect(error, `${name} ${ID}`).toBeInstanceOf(InputError);
        expect((error as InputError).issues.map((i) => i.argument)).toEqual(['ID']);
      }
    }
  });

  it('against the sandbox: the items add up to the listed amount, the summary agrees', async () => {
    const account = accountApi(connection.client);
    const list = await account.invoiceList({});
    const [invoice] = list.invoices;
    if (!invoice) throw new Error('the sandbox has no invoice');
    const items = await account.invoiceGet({ ID: invoice.invoice_uuid, PerPage: 200 });
    assertValidResponse('invoices_get_byUUID', 200, items);
    const cents = items.invoice_items.reduce((sum, item) => sum + Math.round(Number(item.amount) * 100), 0);
    expect((cents / 100).toFixed(2)).toBe(invoice.amount);
    const page = await account.invoiceGet({ ID: invoice.invoice_uuid, Page: 2, PerPage: 2 });
    expect(page.invoice_items).toEqual(items.invoice_items.slice(2, 4));
    const summary = await account.invoiceGetSummary({ ID: invoice.invoice_uuid });
    assertValidResponse('invoices_get_summaryByUUID', 200, summary);
    expect(summary).toMatchObject({
      invoice_uuid: invoice.invoice_uuid,
      billing_period: invoice.invoice_period,
      amount: invoice.amount,
      product_charges: { amount: invoice.amount },
    });
    // The current month's preview has items and a summary too.
    const preview = list.invoice_preview?.invoice_uuid as string;
    expect((await account.invoiceGetSummary({ ID: preview })).amount).toBe(list.invoice_preview?.amount);
    const missing = await account.invoiceGet({ ID: '00000000-0000-4000-8000-000000000000' }).catch((e) => e);
    expect(missing).toBeInstanceOf(ClientApiError);
    expect((missing as ClientApiError).status).toBe(404);
  });
});

describe('accountApi', () => {
  it('creates and reads keys with typed calls', async () => {
    const account = accountApi(connection.client);
    const { ssh_key } = await account.keyCreate({ Name: 'lib', PublicKey: sshPublicKey('lib@test') });
    expect(ssh_key.id).toBeGreaterThan(0);
    const listed = await account.keyList({ PerPage: 5 });
    expect(listed.ssh_keys.map((k) => k.id)).toContain(ssh_key.id);
    expect(listed.meta.total).toBe(1);
    const info = await account.accountGetInformation({});
    expect(info.account.status).toBe('active');
  });

  it('throws InputError before any request, and ClientApiError for platform errors', async () => {
    const account = accountApi(connection.client);
    // @ts-expect-error: ID must be a number; the runtime check catches untyped callers too.
    await expect(account.keyGet({ ID: 'x' })).rejects.toBeInstanceOf(InputError);
    const error = await account.keyGet({ ID: 424242 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientApiError);
    expect((error as ClientApiError).status).toBe(404);
  });

  it('refuses dot segments, slashes and control characters in path ids, naming them; nothing is sent', async () => {
    seen = [];
    const problems: string[] = [];
    for (const tool of accountTools as readonly AnyTool[]) {
      for (const arg of (tool.request?.path.match(/\{\w+\}/g) ?? []).map((p) => p.slice(1, -1))) {
        for (const value of PATH_HOSTILE) {
          const error = await runTool(tool, { [arg]: value }, { client: connection.client }).catch(
            (e: unknown) => e,
          );
          if (!(error instanceof InputError && error.issues.some((i) => i.argument === arg))) {
            problems.push(`${tool.name} ${arg}=${JSON.stringify(value)}: ${String(error)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('bounds key names and public keys', async () => {
    seen = [];
    const account = accountApi(connection.client);
    await expect(
      account.keyCreate({ Name: 'n'.repeat(256), PublicKey: sshPublicKey('a@b') }),
    ).rejects.toThrow(/argument Name: Too big/);
    await expect(
      account.keyCreate({ Name: 'big', PublicKey: `ssh-ed25519 ${'A'.repeat(16_384)}` }),
    ).rejects.toThrow(/argument PublicKey: Too big/);
    expect(seen).toEqual([]);
  });
});

describe('project tools', () => {
  const PROJECT = '4e1bfbc3-dc3e-41f2-a18f-1b4d7ba71679';
  const project = (name: string) =>
    (accountTools as readonly AnyTool[]).find((t) => t.name === name) as AnyTool;
  const sent = (name: string, args: Record<string, unknown>) =>
    buildRequest(project(name).request as never, parseArgs(project(name), args) as Record<string, unknown>);

  it('send what the API takes, by its wire names', () => {
    const created = sent('project-create', {
      Name: 'web',
      Purpose: 'Web Application',
      Environment: 'Staging',
    });
    expect(created.body).toEqual({ name: 'web', purpose: 'Web Application', environment: 'Staging' });
    expect(validateRequest('projects_create', created.body)).toEqual({ valid: true, errors: [] });
    const updated = sent('project-update', { ID: PROJECT, Description: 'front end', IsDefault: true });
    expect(updated).toMatchObject({ method: 'PATCH', path: `/v2/projects/${PROJECT}` });
    expect(updated.body).toEqual({ description: 'front end', is_default: true });
    expect(validateRequest('projects_patch', updated.body)).toEqual({ valid: true, errors: [] });
    const assigned = sent('project-assign-resources', {
      ID: PROJECT,
      Resources: ['do:droplet:42', 'do:volume:x-1'],
    });
    expect(assigned.body).toEqual({ resources: ['do:droplet:42', 'do:volume:x-1'] });
    expect(validateRequest('projects_assign_resources', assigned.body)).toEqual({ valid: true, errors: [] });
  });

  it('refuse an empty update, a URN of no kind the platform knows, and IsDefault false, before any request', () => {
    expect(() => parseArgs(project('project-update'), { ID: PROJECT })).toThrow(
      /Name: is required when none of/,
    );
    expect(() => parseArgs(project('project-update-default'), {})).toThrow(/Name: is required when none of/);
    expect(() =>
      parseArgs(project('project-assign-resources'), { ID: PROJECT, Resources: ['droplet:42'] }),
    ).toThrow(/expected a URN such as do:droplet:123/);
    expect(() => parseArgs(project('project-assign-resources'), { ID: PROJECT, Resources: [] })).toThrow(
      /Resources/,
    );
    // A default project stops being the default only when another takes over.
    expect(() => parseArgs(project('project-update'), { ID: PROJECT, IsDefault: false })).toThrow(
      /IsDefault/,
    );
  });
});

describe('waiting, moved to @cloudcall/wait', () => {
  it('lists the wait tool of @cloudcall/wait among the account tools, and re-exports its helpers unchanged', async () => {
    const waiting = await import('@cloudcall/wait');
    const account = await import('./index.js');
    expect(accountTools).toContain(waiting.waitTool);
    for (const name of [
      'MAX_WAIT_SECONDS',
      'POLL',
      'WAIT_KINDS',
      'pendingWaits',
      'waitAfter',
      'waitFor',
      'waitTargets',
      'waitTool',
    ] as const) {
      expect(account[name], name).toBe(waiting[name]);
    }
  });
});
