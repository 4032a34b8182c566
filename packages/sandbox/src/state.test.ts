import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxClock } from './connect.js';
import { startSandbox } from './server.js';
import { defaultStatePath, MEMORY_STATE, openState, stateCounts, statePathFor } from './state.js';

describe('the shared state file', () => {
  it('lives in the configuration directory, and :memory: means none', () => {
    expect(defaultStatePath({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe('/x/cloudcall/sandbox.json');
    expect(defaultStatePath({ HOME: '/home/u' }, 'linux')).toBe('/home/u/.config/cloudcall/sandbox.json');
    expect(statePathFor(undefined, { XDG_CONFIG_HOME: '/x' })).toBe('/x/cloudcall/sandbox.json');
    expect(statePathFor('/tmp/s.json', { XDG_CONFIG_HOME: '/x' })).toBe('/tmp/s.json');
    expect(statePathFor(MEMORY_STATE, { XDG_CONFIG_HOME: '/x' })).toBeUndefined();
  });

  it('is also named by CLOUDCALL_SANDBOX_STATE, which the flag overrides', () => {
    const env = { XDG_CONFIG_HOME: '/x', CLOUDCALL_SANDBOX_STATE: '/tmp/env.json' };
    expect(statePathFor(undefined, env)).toBe('/tmp/env.json');
    expect(statePathFor('/tmp/flag.json', env)).toBe('/tmp/flag.json');
    expect(statePathFor(undefined, { ...env, CLOUDCALL_SANDBOX_STATE: MEMORY_STATE })).toBeUndefined();
    expect(statePathFor(undefined, { ...env, CLOUDCALL_SANDBOX_STATE: '' })).toBe(
      '/x/cloudcall/sandbox.json',
    );
  });

  it('is counted and reset without a server', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cloudcall-state-')), 'sandbox.json');
    const store = await openState(path);
    await store.write((world) => {
      world.sshKeys.push({ id: 1, name: 'k', fingerprint: 'f', public_key: 'p' } as never);
    });
    expect((await (await openState(path)).read(stateCounts)).sshKeys).toBe(1);
    await store.reset();
    expect((await (await openState(path)).read(stateCounts)).sshKeys).toBe(0);
  });
});

describe('sandboxClock', () => {
  it('moves with the sandbox clock, in any process on the file, ending a sleep at once', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cloudcall-clock-')), 'sandbox.json');
    const sandbox = await startSandbox({ statePath: path });
    const other = await startSandbox({ statePath: path });
    try {
      const clock = await sandboxClock(sandbox.store);
      const before = clock.now();
      // An hour's sleep, ended by another sandbox moving the clock on.
      const slept = clock.sleep(3_600_000);
      await other.advanceClock(3_600_000);
      await slept;
      expect(clock.now() - before).toBeGreaterThanOrEqual(3_600_000);
    } finally {
      await sandbox.close();
      await other.close();
    }
  });

  it('reads a move made by another process at the next now(), with no sleep in between', async () => {
    // A long-lived server's clock: a wait that starts after the clock moved counts from the
    // moved time, so the move is not taken for time the wait has spent.
    const path = join(mkdtempSync(join(tmpdir(), 'cloudcall-clock-')), 'sandbox.json');
    const sandbox = await startSandbox({ statePath: path, now: () => 1_000_000 });
    const other = await startSandbox({ statePath: path });
    try {
      const clock = await sandboxClock(sandbox.store, () => 1_000_000);
      expect(clock.now()).toBe(1_000_000);
      await other.advanceClock(60_000);
      expect(clock.now()).toBe(1_060_000);
      await sandbox.advanceClock(1_000);
      expect(clock.now()).toBe(1_061_000);
    } finally {
      await sandbox.close();
      await other.close();
    }
  });
});
