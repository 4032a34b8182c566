/**
 * Test helpers: a real MCP client talking to the built server over a real transport.
 */
import { fileURLToPath } from 'node:url';
import { sshPublicKey } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/**
 * The environment of a server under test: PATH, and a sandbox in memory unless the test names a
 * state file (`--sandbox-state` wins over the variable), so no test touches the shared default.
 */
export function serverEnv(env: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', CLOUDCALL_SANDBOX_STATE: ':memory:', ...env };
}

/** Starts `node dist/main.js <args>` and connects an MCP client to it over stdio. */
export async function stdioClient(
  args: string[],
  env: Record<string, string> = {},
  options: ConstructorParameters<typeof Client>[1] = {},
): Promise<{ client: Client; stderr: () => string; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, ...args],
    env: serverEnv(env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'cloudcall-test', version: '1.0.0' }, options);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/**
 * Calls a tool and returns its result with the text parsed as JSON when it is JSON, and the
 * structuredContent.
 */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; text: string; json: unknown; structured: unknown }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : '';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: result.isError === true, text, json, structured: result.structuredContent };
}

/**
 * Calls a tool this server must refuse as a protocol error (an unknown or hidden tool: JSON-RPC
 * -32602), and returns that error's code, message and data; fails when the call is answered.
 */
export async function refusedCall(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ code: number; message: string; data: unknown }> {
  try {
    await client.callTool({ name, arguments: args });
  } catch (error) {
    if (error instanceof McpError) return { code: error.code, message: error.message, data: error.data };
    throw error;
  }
  throw new Error(`tools/call ${name} was answered; a JSON-RPC error was expected`);
}

/** The sandbox's Ubuntu image, for VMs a test creates. */
export const UBUNTU = 161928327;

/** Creates a small VM in the sandbox (through the server's vm-create) and returns its id. */
export async function createSandboxVm(client: Client, name: string): Promise<number> {
  const result = await call(client, 'vm-create', {
    Name: name,
    Size: 's-1vcpu-1gb',
    ImageID: UBUNTU,
    Region: 'nyc3',
  });
  if (result.isError) throw new Error(`vm-create ${name} failed: ${result.text}`);
  return (result.json as { droplet: { id: number } }).droplet.id;
}

/** A listed tool's hints as a host reads them: MCP's defaults for any hint not listed. */
export function hintsOf(tool: { annotations?: Record<string, unknown> | undefined }) {
  return {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
    ...tool.annotations,
  };
}

/** Creates an SSH key named `name` (expecting success) and returns its id. */
export async function createKey(client: Client, name: string): Promise<number> {
  const created = await call(client, 'key-create', { Name: name, PublicKey: sshPublicKey(name) });
  expect(created.isError, created.text).toBe(false);
  return (created.json as { ssh_key: { id: number } }).ssh_key.id;
}

/** Whether the SSH key still exists (key-get answers it, or 404). */
export async function keyExists(client: Client, id: number): Promise<boolean> {
  const result = await call(client, 'key-get', { ID: id });
  if (!result.isError) return true;
  expect(result.structured).toMatchObject({ status: 404 });
  return false;
}

/** Calls a tool expecting success (the failure message shows the tool's text): its JSON answer. */
export async function okCall(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  // biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
): Promise<any> {
  const result = await call(client, name, args);
  expect(result.isError, `${name}: ${result.text}`).toBe(false);
  return result.json;
}
