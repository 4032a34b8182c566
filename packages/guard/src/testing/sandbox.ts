/**
 * Test set-up the guard's suites share: every tool of the catalog by name, and a sandbox on
 * loopback that records each request it sees (`METHOD target`), cleared before each test.
 */
import { families, toolsOf } from '@cloudcall/catalog';
import { type AnyTool, type ClientOptions, runTool } from '@cloudcall/core';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export const tools: ReadonlyMap<string, AnyTool> = new Map(
  toolsOf(families).map((tool) => [tool.name, tool]),
);
export const tool = (name: string) => tools.get(name) as AnyTool;

export interface GuardSandbox {
  readonly connection: SandboxConnection;
  /** The requests the sandbox saw since the test began (or since it was emptied). */
  readonly seen: string[];
  /** Those that change something. */
  mutating(): string[];
  /**
   * Creates a VM (with `settle`, moves the sandbox clock past its create action, so an action on
   * it is not refused as pending) and empties `seen`.
   */
  createVm(name: string, tags?: string[], options?: { size?: string; settle?: boolean }): Promise<number>;
}

/** Starts a sandbox for the suite that calls it (vitest's hooks) and closes it after. */
export function useSandbox(client?: Omit<ClientOptions, 'token' | 'baseUrl'>): GuardSandbox {
  const seen: string[] = [];
  let connection: SandboxConnection | undefined;
  beforeAll(async () => {
    connection = await connectSandbox({
      onRequest: (info) => {
        seen.push(`${info.method} ${info.target}`);
      },
      ...(client ? { client } : {}),
    });
  });
  afterAll(() => connection?.close());
  beforeEach(() => {
    seen.length = 0;
  });
  const sandbox: GuardSandbox = {
    get connection() {
      if (!connection) throw new Error('the sandbox starts in beforeAll');
      return connection;
    },
    seen,
    mutating: () => seen.filter((line) => !line.startsWith('GET ')),
    async createVm(name, tags = [], { size = 's-1vcpu-1gb', settle = false } = {}) {
      const { droplet } = (await runTool(
        tool('vm-create'),
        { Name: name, Size: size, ImageID: 161928327, Region: 'nyc3', Tags: tags },
        { client: sandbox.connection.client },
      )) as { droplet: { id: number } };
      if (settle) await sandbox.connection.sandbox.advanceClock(120_000);
      seen.length = 0;
      return droplet.id;
    },
  };
  return sandbox;
}
