/**
 * Waiting and rate limits through a real MCP client, in process over the SDK's in-memory
 * transport, against the built-in sandbox. Waits count sandbox time: the test moves the sandbox
 * clock forward instead of sleeping, injects 429s and counts the requests the sandbox answers.
 * The built server over stdio shows that `--sandbox` waits on the sandbox clock too.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, sshPublicKey, startSandbox } from '@cloudcall/sandbox';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSandboxVm } from './testing/client.js';
import { type InProcessServer, inProcessServer } from './testing/in-process.js';
import { killAll, stdioClient } from './testing/main.js';

// Servers started through ./testing/main.js that a test left running.
afterAll(killAll);

let server: InProcessServer;
let client: Client;
let helper: Sandbox;

beforeAll(async () => {
  server = await inProcessServer({ families: 'account,vms' });
  client = server.client;
  helper = server.sandbox as Sandbox;
});
afterAll(async () => {
  await server.close();
});

const createVm = (name: string) => createSandboxVm(client, name);

const textOf = (result: CallToolResult) => (result.content[0]?.type === 'text' ? result.content[0].text : '');

describe('wait over MCP', () => {
  it('is listed as read-only', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'wait')?.annotations).toEqual({ readOnlyHint: true });
  });

  it('sends progress while a VM boots, and answers the active VM', async () => {
    const id = await createVm('mcp-wait');
    const updates: Progress[] = [];
    let advanced: Promise<void> | undefined;
    const result = (await client.callTool({ name: 'wait', arguments: { Kind: 'vm', ID: id } }, undefined, {
      onprogress: (update) => {
        updates.push(update);
        // The VM boots in 3 s of sandbox time: let it, as soon as the wait has seen it booting.
        advanced ??= helper.advanceClock(5_000);
      },
    })) as CallToolResult;
    await advanced;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(JSON.parse(textOf(result)).droplet).toMatchObject({ id, status: 'active' });
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates[0]).toMatchObject({
      total: 100,
      message: 'vm mcp-wait: new → active (0 s, usually about 45 s, gives up at 300 s)',
    });
    expect(updates.at(-1)).toMatchObject({
      progress: 100,
      total: 100,
      message: expect.stringMatching(/^vm mcp-wait: active after \d+ s$/),
    });
    expect(updates.every((u, i) => i === 0 || u.progress > (updates[i - 1] as Progress).progress)).toBe(true);
  });

  it('times out with isError, the last state and how to resume', async () => {
    // Sandbox time stands still here: the VM boots only once the test moves the clock 3 s, so it
    // is still booting when the 1 s wait times out, however slow this machine is.
    const started = Date.now();
    const frozen = await inProcessServer({ families: 'account,vms', sandboxNow: () => started });
    const id = await createSandboxVm(frozen.client, 'mcp-wait-timeout');
    // The second of sandbox time passes as soon as the wait has seen the VM booting.
    let advanced: Promise<void> | undefined;
    const answer = (await frozen.client.callTool(
      { name: 'wait', arguments: { Kind: 'vm', ID: id, TimeoutSeconds: 1 } },
      undefined,
      {
        onprogress: () => {
          advanced ??= frozen.sandbox?.advanceClock(1_000);
        },
      },
    )) as CallToolResult;
    await advanced;
    await frozen.close();
    expect(advanced, 'the wait reported progress').toBeDefined();
    const result = {
      isError: answer.isError === true,
      text: textOf(answer),
      structured: answer.structuredContent,
    };
    expect(result.isError).toBe(true);
    expect(result.text.split('\n')[0]).toMatch(
      new RegExp(
        `^Timed out after 1 s waiting for vm ${id} to be active; its status was new\\. Nothing failed: call wait again with Kind vm and ID ${id} to keep waiting\\.$`,
      ),
    );
    expect(result.structured).toMatchObject({
      error_id: 'wait_timeout',
      retryable: true,
      target: { kind: 'vm', id: String(id) },
      last_status: 'new',
      last_observed: { droplet: { id, status: 'new' } },
      hint: `Not ready yet, nothing failed: call wait again with Kind vm and ID ${id} to keep waiting.`,
    });
  });

  it('stops polling when the call is cancelled', async () => {
    const id = await createVm('mcp-wait-cancel');
    const polls = await helper.watchRequests({ method: 'GET', path: `/v2/droplets/${id}` });
    const controller = new AbortController();
    const outcome = await client
      .callTool({ name: 'wait', arguments: { Kind: 'vm', ID: id } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort(),
      })
      .catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(Error);
    // The tool call ends at once, and no wait is left sleeping towards another poll.
    await expect.poll(() => server.log()).toMatch(/tool wait: .*cancelled/);
    expect(server.sleeping()).toBe(0);
    expect(await helper.matchedRequests(polls)).toBe(1);
    // Uncancelled, the wait would poll again 1 s and 2.5 s after its first poll: that time passes.
    await helper.advanceClock(5_000);
    expect(server.sleeping()).toBe(0);
    expect(await helper.matchedRequests(polls)).toBe(1);
    // The server is still there, and the VM is still booting: nothing finished the wait.
    const vm = await call(client, 'vm-get', { ID: id });
    expect(vm.isError).toBe(false);
  });
});

describe('429s over MCP', () => {
  it('waits for Retry-After and retries a GET', async () => {
    const id = await createVm('mcp-429');
    const rule = await helper.injectFault({
      retryAfterSeconds: 1,
      method: 'GET',
      path: `/v2/droplets/${id}`,
    });
    const result = await call(client, 'vm-get', { ID: id });
    expect(result.isError, result.text).toBe(false);
    expect((result.json as { droplet: { id: number } }).droplet.id).toBe(id);
    expect(await helper.matchedRequests(rule)).toBe(2);
  });

  it('never retries a POST, and says to retry after the time the API gave', async () => {
    const rule = await helper.injectFault({ retryAfterSeconds: 1, method: 'POST', path: '/v2/account/keys' });
    const result = await call(client, 'key-create', {
      Name: 'mcp-429',
      PublicKey: sshPublicKey('mcp@test'),
    });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/429/);
    expect(result.text).toMatch(/Retry-After said 1 s/);
    expect(result.structured).toMatchObject({
      status: 429,
      error_id: 'too_many_requests',
      retryable: true,
      retry_after_seconds: 1,
      hint: expect.stringMatching(/^Rate limited: wait 1 s/),
    });
    expect(await helper.matchedRequests(rule)).toBe(1);
  });

  it('notes a rate limit running low on results, and only then', async () => {
    const plain = (await client.callTool({ name: 'key-list', arguments: {} })) as CallToolResult;
    expect(plain.content).toHaveLength(1);
    await helper.setRateLimit({ remaining: 120, limit: 5000, resetInSeconds: 600 });
    try {
      const low = (await client.callTool({ name: 'key-list', arguments: {} })) as CallToolResult;
      expect(low.isError).toBeFalsy();
      expect(low.content).toHaveLength(2);
      expect(low.content[1]).toMatchObject({
        type: 'text',
        text: expect.stringMatching(
          /^Note: API rate limit low: 1\d\d of 5000 requests left until \d\d:\d\d:\d\dZ/,
        ),
      });
      // The data is untouched: the first block and structuredContent are the result alone.
      expect(JSON.parse(textOf(low))).toEqual(low.structuredContent);
    } finally {
      await helper.setRateLimit(undefined);
    }
  });
});

describe('error hints over MCP', () => {
  it('names the token scope a 403 needs, from the API description', async () => {
    const id = await createVm('mcp-403');
    const rule = await helper.injectFault({
      status: 403,
      method: 'DELETE',
      path: `/v2/droplets/${id}`,
      message: 'You are not authorized to perform this operation',
    });
    const result = await call(client, 'vm-delete', { ID: id });
    expect(result.isError).toBe(true);
    expect(result.structured).toMatchObject({
      status: 403,
      retryable: false,
      request_id: expect.any(String),
      hint: expect.stringContaining('scope droplet:delete'),
    });
    expect(result.text).toMatch(/\nHint: This call needs a token with the scope droplet:delete/);
    expect(await helper.matchedRequests(rule)).toBe(1);
    // Nothing was deleted.
    expect((await call(client, 'vm-get', { ID: id })).isError).toBe(false);
  });
});

describe('the built server with --sandbox', () => {
  it('waits on the sandbox clock: moving it from another process ends a pause of minutes; a VM left off ends the wait at once', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-mcp-wait-')), 'sandbox.json');
    const other = await startSandbox({ statePath });
    const built = await stdioClient(['--sandbox', '--sandbox-state', statePath, '--families', 'account,vms']);
    try {
      const id = await createSandboxVm(built.client, 'built-wait');
      // Two requests left for ten minutes: the wait spaces its polls five minutes apart. Only the
      // sandbox clock, moved by the other process, ends that pause in time.
      await other.setRateLimit({ remaining: 2, resetInSeconds: 600 });
      let advanced: Promise<void> | undefined;
      const answer = (await built.client.callTool(
        { name: 'wait', arguments: { Kind: 'vm', ID: id, TimeoutSeconds: 1800 } },
        undefined,
        {
          onprogress: () => {
            advanced ??= other.advanceClock(601_000);
          },
        },
      )) as CallToolResult;
      await advanced;
      expect(advanced, 'the wait reported progress').toBeDefined();
      expect(answer.isError, textOf(answer)).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ droplet: { id, status: 'active' } });
      await other.setRateLimit(undefined);

      // Powered off, with nothing in progress, the VM would never be active: the wait says so at once.
      expect((await call(built.client, 'power-off-vm', { ID: id })).isError).toBe(false);
      await other.advanceClock(5_000);
      const off = await call(built.client, 'wait', { Kind: 'vm', ID: id, TimeoutSeconds: 1800 });
      expect(off.isError).toBe(true);
      expect(off.structured).toMatchObject({ error_id: 'wait_failed', retryable: false, last_status: 'off' });
      expect(off.text).toMatch(new RegExp(`^vm ${id} is off and no action is in progress on it`));
    } finally {
      await other.setRateLimit(undefined);
      await built.close();
      await other.close();
    }
  });
});
