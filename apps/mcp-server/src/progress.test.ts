/**
 * The progress of a wait as a host receives it: the SDK's client over its stdio transport to the
 * built server as a process, on a sandbox in a state file whose clock a second sandbox moves.
 * A host draws `progress` of `total` as a bar and shows `message` beside it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { progressAt } from '@cloudcall/wait';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createSandboxVm, stdioClient } from './testing/client.js';

let other: Sandbox;
let built: Awaited<ReturnType<typeof stdioClient>>;

beforeAll(async () => {
  const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-mcp-progress-')), 'sandbox.json');
  other = await startSandbox({ statePath });
  built = await stdioClient(['--sandbox', '--sandbox-state', statePath, '--families', 'account,vms']);
});
afterAll(async () => {
  await built?.close();
  await other?.close();
});

/**
 * Calls `wait` with a progress token, moving the sandbox clock 2 s at each report: the reports
 * the server sent. The SDK's client drops a report that it reads together with the answer (it
 * hands notifications on a tick later than answers: modelcontextprotocol/typescript-sdk#2580),
 * telling `onerror` with the report whole; such a report counts as sent, after the others.
 */
async function waitWithProgress(args: Record<string, unknown>): Promise<Progress[]> {
  const updates: Progress[] = [];
  const late: (Progress & { progressToken?: unknown })[] = [];
  built.client.onerror = (error) => {
    const dropped = /^Received a progress notification for an unknown token: (.*)$/s.exec(error.message);
    if (dropped) late.push(JSON.parse(dropped[1] as string).params);
  };
  let moving: Promise<void> = Promise.resolve();
  const answer = (await built.client.callTool({ name: 'wait', arguments: args }, undefined, {
    onprogress: (update) => {
      updates.push(update);
      moving = moving.then(() => other.advanceClock(2_000));
    },
  })) as CallToolResult;
  await moving;
  // A dropped report reaches onerror a tick after the answer.
  await new Promise((resolve) => setImmediate(resolve));
  expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
  return [...updates, ...late.map(({ progressToken: _, ...update }) => update as Progress)];
}

/** What every wait's reports must be for a bar: one total, rising, the whole only at the end. */
function expectBar(updates: Progress[]): void {
  expect(updates.length).toBeGreaterThanOrEqual(2);
  expect(updates.every((update) => update.total === 100)).toBe(true);
  const values = updates.map((update) => update.progress);
  expect(values.every((value, i) => i === 0 || value > (values[i - 1] as number))).toBe(true);
  expect(values.slice(0, -1).every((value) => value < 100)).toBe(true);
  expect(values.at(-1)).toBe(100);
}

describe('wait progress over stdio from the built server', () => {
  it("draws a VM's boot as a bar along a VM's usual time, named and with its state", async () => {
    const id = await createSandboxVm(built.client, 'web-1');
    const updates = await waitWithProgress({ Kind: 'vm', ID: id });
    expectBar(updates);
    const booting = updates.slice(0, -1);
    for (const update of booting) {
      const seconds = /^vm web-1: new → active \((\d+) s, usually about 45 s, gives up at 300 s\)$/.exec(
        update.message ?? '',
      );
      expect(seconds, update.message).not.toBeNull();
      // The share of a VM's usual 45 s that has passed: within the rounding of the seconds shown.
      expect(Math.abs(update.progress - progressAt(Number(seconds?.[1]), 45))).toBeLessThan(1.2);
    }
    expect(updates.at(-1)?.message).toMatch(/^vm web-1: active after \d+ s$/);
  });

  it('names an action by its type and the VM it works on', async () => {
    const id = await createSandboxVm(built.client, 'web-2');
    await other.advanceClock(5_000);
    const off = await call(built.client, 'power-off-vm', { ID: id });
    expect(off.isError, off.text).toBe(false);
    const action = (off.json as { action: { id: number } }).action;
    const updates = await waitWithProgress({ Kind: 'action', ID: action.id });
    expectBar(updates);
    expect(updates[0]?.message).toMatch(
      /^action power_off on vm web-2: in-progress → completed \(\d+ s, usually about 15 s, gives up at 300 s\)$/,
    );
    expect(updates.at(-1)?.message).toMatch(/^action power_off on vm web-2: completed after \d+ s$/);
  });
});
