/**
 * The audit log written ahead, against the sandbox and a loopback stand-in: an intent line is on
 * the disk before each mutating request goes, and when it cannot be written nothing goes; a
 * process killed (kill -9) while its request is at the API leaves the intent; a log removed or
 * rotated is created afresh; every mutating request of a tool passes the guard, not only the
 * first; a DELETE whose lost answer is retried into a 404 is recorded as done.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiCallTool } from '@cloudcall/api';
import { annotations, defineTool, returns, runTool } from '@cloudcall/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AuditLine,
  AuditLogError,
  GuardRefusal,
  guardedRun,
  openAuditLog,
  parseRule,
  readAudit,
} from './index.js';
import { tool, useSandbox } from './testing/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudcall-writeahead-'));

const sandbox = useSandbox({ retry: { baseDelayMs: 1 } });
const { seen, mutating } = sandbox;

const linesOf = (path: string): AuditLine[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditLine);

describe('the intent line', () => {
  it('comes before its request, and when it cannot be written (a full disk) nothing is sent', async () => {
    const audit = openAuditLog('/dev/full');
    const call = guardedRun(
      tool('tag-create'),
      { Name: 'never-made' },
      { client: sandbox.connection.client },
      { frontEnd: 'cli', unconfirmed: 'run', audit },
    );
    await expect(call).rejects.toThrow(AuditLogError);
    await expect(call).rejects.toThrow(
      /tag-create was not sent: audit log \/dev\/full could not be written: no space left on the device/,
    );
    expect(seen).toEqual([]);
    const tags = (await runTool(
      tool('tag-get'),
      { Name: 'never-made' },
      { client: sandbox.connection.client },
    ).catch((error: unknown) => error)) as { status?: number };
    expect(tags.status).toBe(404);
  });

  it('comes before a generic api-call too, naming its request, and on a full disk it sends nothing', async () => {
    const path = join(dir, 'generic.log');
    await guardedRun(
      apiCallTool,
      { Method: 'POST', Path: '/v2/tags', Body: { name: 'made-generically' } },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', unconfirmed: 'run', audit: openAuditLog(path) },
    );
    expect(linesOf(path)).toMatchObject([
      { phase: 'intent', tool: 'api-call', request: { method: 'POST', path: '/v2/tags' } },
      { tool: 'api-call', outcome: 'ok' },
    ]);
    // A generic call that only reads is no mutating call: nothing is recorded of it.
    await guardedRun(
      apiCallTool,
      { Method: 'GET', Path: '/v2/tags/made-generically' },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', unconfirmed: 'run', audit: openAuditLog(path) },
    );
    await expect(
      guardedRun(
        apiCallTool,
        { Method: 'GET', Path: '/v2/tags/never-made' },
        { client: sandbox.connection.client },
        { frontEnd: 'mcp', unconfirmed: 'run', audit: openAuditLog(path) },
      ),
    ).rejects.toThrow(/not found/i);
    expect(linesOf(path)).toHaveLength(2);
    seen.length = 0;
    await expect(
      guardedRun(
        apiCallTool,
        { Method: 'POST', Path: '/v2/tags', Body: { name: 'never-made-generically' } },
        { client: sandbox.connection.client },
        { frontEnd: 'mcp', unconfirmed: 'run', audit: openAuditLog('/dev/full') },
      ),
    ).rejects.toThrow(/api-call was not sent: audit log \/dev\/full could not be written/);
    expect(seen).toEqual([]);
  });

  it('when its directory is gone, stops the call before anything is sent', async () => {
    const where = join(dir, 'gone');
    mkdirSync(where);
    const audit = openAuditLog(join(where, 'audit.log'));
    rmSync(where, { recursive: true });
    const id = await sandbox.createVm('keep-me', [], { settle: true });
    await expect(
      guardedRun(
        tool('vm-delete'),
        { ID: id },
        { client: sandbox.connection.client },
        {
          frontEnd: 'cli',
          unconfirmed: 'run',
          audit,
        },
      ),
    ).rejects.toThrow(/vm-delete was not sent: .*its directory does not exist/);
    expect(mutating()).toEqual([]);
  });

  it('and the outcome name the call, the caller and the request; a log rotated or removed is created again', async () => {
    const path = join(dir, 'rotated.log');
    const audit = openAuditLog(path);
    const make = (name: string) =>
      guardedRun(
        tool('tag-create'),
        { Name: name },
        { client: sandbox.connection.client },
        { frontEnd: 'mcp', unconfirmed: 'run', audit, caller: 'key:ops' },
      );
    await make('before-rotation');
    const [intent, outcome] = linesOf(path);
    expect(intent).toMatchObject({
      phase: 'intent',
      caller: 'key:ops',
      tool: 'tag-create',
      request: { method: 'POST', path: '/v2/tags' },
    });
    expect(outcome).toMatchObject({
      call: (intent as { call: string }).call,
      outcome: 'ok',
      caller: 'key:ops',
    });
    expect(outcome).not.toHaveProperty('phase');

    renameSync(path, `${path}.1`);
    await make('after-rotation');
    expect(linesOf(path).map((line) => (line.args as { Name: string }).Name)).toEqual([
      'after-rotation',
      'after-rotation',
    ]);
    unlinkSync(path);
    await make('after-removal');
    expect((await readAudit(path)).entries.map((entry) => [entry.tool, entry.outcome])).toEqual([
      ['tag-create', 'ok'],
    ]);
    expect(linesOf(`${path}.1`)).toHaveLength(2);
  });
});

describe('kill -9 while a request is at the API', () => {
  it('leaves the intent on the disk, read back as outcome unknown', async () => {
    let arrived: () => void = () => undefined;
    const atApi = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // A stand-in API that answers reads and never answers the DELETE.
    const api = createServer((req, res) => {
      req.resume();
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ droplet: { id: 7, name: 'web-7', tags: ['web'] } }));
        return;
      }
      arrived();
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const path = join(dir, 'killed.log');
    const built = (name: string) => fileURLToPath(import.meta.resolve(name));
    const script = `
      const { guardedRun, openAuditLog, parseRule } = await import(${JSON.stringify(fileURLToPath(new URL('../dist/index.js', import.meta.url)))});
      const { families, toolsOf } = await import(${JSON.stringify(built('@cloudcall/catalog'))});
      const { ApiClient } = await import(${JSON.stringify(built('@cloudcall/core'))});
      const tool = toolsOf(families).find((each) => each.name === 'vm-delete');
      const client = new ApiClient({ token: 'dop_v1_killed', baseUrl: ${JSON.stringify(url)} });
      await guardedRun(tool, { ID: 7 }, { client }, {
        frontEnd: 'cli', caller: 'local:killed', unconfirmed: 'run',
        rules: [parseRule('tag:prod', '--protect')], audit: openAuditLog(${JSON.stringify(path)}),
      });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    try {
      await atApi;
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      api.closeAllConnections();
      api.close();
    }
    expect(linesOf(path)).toEqual([
      expect.objectContaining({
        phase: 'intent',
        caller: 'local:killed',
        tool: 'vm-delete',
        target: expect.objectContaining({ kind: 'droplet', id: 7, name: 'web-7' }),
        request: { method: 'DELETE', path: '/v2/droplets/7' },
      }),
    ]);
    expect((await readAudit(path, { outcomes: ['unknown'] })).entries).toEqual([
      expect.objectContaining({
        tool: 'vm-delete',
        outcome: 'unknown',
        request: { method: 'DELETE', path: '/v2/droplets/7' },
      }),
    ]);
  });
});

describe('a tool that sends several changes', () => {
  /** A handler that deletes each VM it is given in turn: the guard must see every request. */
  const deleteEach = defineTool({
    name: 'vm-delete-each',
    family: 'vms',
    title: 'Delete VMs one by one',
    description: 'Deletes each VM.',
    input: z.strictObject({ IDs: z.array(z.number().int()) }),
    annotations: annotations.destroy,
    handler: async (args, context) => {
      for (const id of args.IDs)
        await context.client.request({ method: 'DELETE', path: `/v2/droplets/${id}` });
      return { deleted: args.IDs };
    },
    result: returns<{ deleted: number[] }>(),
  });

  it('passes the guard with each one: a protected resource second in line is refused', async () => {
    const free = await sandbox.createVm('free-one', [], { settle: true });
    const kept = await sandbox.createVm('kept-one', ['prod'], { settle: true });
    const path = join(dir, 'several.log');
    const audit = openAuditLog(path);
    const call = guardedRun(
      deleteEach,
      { IDs: [free, kept] },
      { client: sandbox.connection.client },
      { frontEnd: 'cli', unconfirmed: 'run', audit, rules: [parseRule('tag:prod', '--protect')] },
    );
    await expect(call).rejects.toThrow(GuardRefusal);
    await expect(call).rejects.toThrow(/droplet kept-one .* is protected by rule tag:prod/);
    expect(mutating()).toEqual([`DELETE /v2/droplets/${free}`]);
    const lines = linesOf(path);
    expect(lines.map((line) => ('phase' in line ? `intent ${line.request.path}` : line.outcome))).toEqual([
      `intent /v2/droplets/${free}`,
      'refused',
    ]);
  });
});

describe('a DELETE whose answer was lost', () => {
  it('is done when its retry finds the resource gone, and recorded as ok', async () => {
    const id = await sandbox.createVm('lost-answer', [], { settle: true });
    await sandbox.connection.sandbox.injectFault({
      method: 'DELETE',
      path: `/v2/droplets/${id}`,
      status: 503,
      afterServing: true,
    });
    const path = join(dir, 'lost.log');
    const result = await guardedRun(
      tool('vm-delete'),
      { ID: id },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', unconfirmed: 'run', audit: openAuditLog(path) },
    );
    expect(result).toEqual({ ok: true });
    expect(mutating()).toEqual([`DELETE /v2/droplets/${id}`, `DELETE /v2/droplets/${id}`]);
    expect((await readAudit(path)).entries).toEqual([
      expect.objectContaining({ tool: 'vm-delete', outcome: 'ok' }),
    ]);
    // A first attempt that finds nothing is still "not found".
    await expect(
      guardedRun(
        tool('vm-delete'),
        { ID: id },
        { client: sandbox.connection.client },
        {
          frontEnd: 'mcp',
          unconfirmed: 'run',
          audit: openAuditLog(path),
        },
      ),
    ).rejects.toMatchObject({ status: 404 });
  });
});
