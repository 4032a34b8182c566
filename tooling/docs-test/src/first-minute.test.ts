/**
 * The first minute, as a new user meets it: `pnpm start` with a port after `--` (and without),
 * the build's progress before the URL, and every snippet the server prints run or connected to:
 * the Claude Code commands, the Claude Desktop, Cursor and VS Code configurations, the MCP
 * Inspector's URL. The documented profiles each list what the README says, under VS Code's limit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { freePort } from '@cloudcall/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUserEnv, ROOT, read } from './markdown.js';

const ENV = newUserEnv();
/** What the README says the server offers by default: the servers below must serve that many. */
const DEFAULT_TOOLS = Number(/offers (\d+) tools by default/.exec(read('README.md'))?.[1]);
const started: ChildProcess[] = [];

/** `pnpm start <args>` until it prints its URL: everything it wrote to stderr by then. */
async function pnpmStart(args: string[]): Promise<{ stderr: string; url: string }> {
  // Its own process group, so the test ends pnpm, the start script and the server together.
  const child = spawn('pnpm', ['start', ...args], {
    cwd: ROOT,
    env: ENV,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const url = /listening on (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (url && stderr.includes('Press Ctrl+C to stop.')) resolve({ stderr, url });
    });
    child.on('exit', (code) => reject(new Error(`pnpm start exited ${code}:\n${stderr}`)));
  });
}

/** The snippets of the banner, by host: each one's text (the lines indented under its heading). */
function snippets(banner: string): { host: string; where: string; text: string }[] {
  const section = banner.slice(banner.indexOf('Connect it:'), banner.indexOf('Press Ctrl+C'));
  const found: { host: string; where: string; text: string }[] = [];
  for (const line of section.split('\n').slice(1)) {
    const head = /^ {2}(\S.{14}) (.+):$/.exec(line);
    if (head) found.push({ host: (head[1] ?? '').trim(), where: head[2] ?? '', text: '' });
    else if (line.startsWith('    ') && found.length) {
      const last = found[found.length - 1] as { text: string };
      last.text += `${last.text ? '\n' : ''}${line.slice(4)}`;
    }
  }
  return found;
}

/** A shell command's words (the banner quotes with '...' where needed). */
const words = (command: string) =>
  [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replaceAll(`'\\''`, "'") : (m[2] ?? ''),
  );

async function connected(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: 'first-minute', version: '1' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const server = client.getServerVersion()?.name;
  const listed = await client.callTool({ name: 'vm-list', arguments: {} });
  await client.close();
  return { tools: tools.length, server, ok: !listed.isError };
}
const overHttp = (url: string) => connected(new StreamableHTTPClientTransport(new URL(url)));
const overStdio = (command: string, args: string[]) => {
  expect(isAbsolute(command) || command === 'node').toBe(true);
  expect(existsSync(args[0] ?? '')).toBe(true);
  return connected(new StdioClientTransport({ command, args, env: ENV, stderr: 'ignore' }));
};

let port: number;
let first: { stderr: string; url: string };
beforeAll(async () => {
  port = await freePort();
  first = await pnpmStart(['--', '--port', String(port)]);
}, 300_000);
afterAll(() => {
  for (const child of started) if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
});

describe('pnpm start', () => {
  it('takes the port after -- and says what it builds before the URL appears', () => {
    expect(first.url).toBe(`http://127.0.0.1:${port}/mcp`);
    const building = first.stderr.indexOf('cloudcall: building the MCP server');
    const built = first.stderr.search(/cloudcall: (built \d+ packages?|the build is up to date)/);
    expect(building).toBeGreaterThanOrEqual(0);
    expect(built).toBeGreaterThan(building);
    expect(first.stderr.indexOf('listening on')).toBeGreaterThan(built);
  });

  it('takes server flags without -- too', async () => {
    const other = await freePort();
    const { url, stderr } = await pnpmStart(['--port', String(other), '--families', 'vms']);
    expect(url).toBe(`http://127.0.0.1:${other}/mcp`);
    expect(stderr).toMatch(/serving 58 tools from vms/);
    expect((await overHttp(url)).tools).toBe(58);
  }, 120_000);
});

describe('every snippet the server prints', () => {
  it('names each host once or twice, and nothing else', () => {
    expect(snippets(first.stderr).map((s) => s.host)).toEqual([
      'Claude Code',
      'Claude Code',
      'Claude Desktop',
      'Cursor',
      'VS Code',
      'VS Code',
      'MCP Inspector',
    ]);
  });

  it('Claude Code over HTTP: the command adds this server, whose URL answers MCP', async () => {
    const [http] = snippets(first.stderr);
    expect(words(http?.text ?? '')).toEqual([
      'claude',
      'mcp',
      'add',
      '--transport',
      'http',
      'cloudcall',
      first.url,
    ]);
    expect(await overHttp(first.url)).toEqual({ tools: DEFAULT_TOOLS, server: 'cloudcall', ok: true });
  });

  it('Claude Code over stdio: the command after -- starts a server that answers', async () => {
    const command = words(snippets(first.stderr)[1]?.text ?? '');
    expect(command.slice(0, 5)).toEqual(['claude', 'mcp', 'add', 'cloudcall', '--']);
    const [program = '', ...args] = command.slice(5);
    expect(await overStdio(program, args)).toEqual({ tools: DEFAULT_TOOLS, server: 'cloudcall', ok: true });
  });

  it('Claude Desktop: the configuration points at a file that exists and starts the server', async () => {
    const config = JSON.parse(snippets(first.stderr)[2]?.text ?? '');
    const { command, args } = config.mcpServers.cloudcall;
    expect(args[0]).toBe(join(ROOT, 'apps/mcp-server/dist/main.js'));
    expect(await overStdio(command, args)).toEqual({ tools: DEFAULT_TOOLS, server: 'cloudcall', ok: true });
  });

  it('Cursor: the configuration names this server’s URL', async () => {
    const config = JSON.parse(snippets(first.stderr)[3]?.text ?? '');
    expect(config).toEqual({ mcpServers: { cloudcall: { url: first.url } } });
    expect((await overHttp(config.mcpServers.cloudcall.url)).ok).toBe(true);
  });

  it('VS Code: "servers", over HTTP, with the 128-tool limit said; and a stdio entry under it', async () => {
    const [, , , , http, stdio] = snippets(first.stderr);
    expect(http?.where).toContain(`at most 128 tools and this server serves ${DEFAULT_TOOLS}`);
    const httpConfig = JSON.parse(http?.text ?? '');
    expect(httpConfig).toEqual({ servers: { cloudcall: { type: 'http', url: first.url } } });
    const { command, args, type } = JSON.parse(stdio?.text ?? '').servers.cloudcall;
    expect(type).toBe('stdio');
    const small = await overStdio(command, args);
    expect(small.ok).toBe(true);
    expect(small.tools).toBeLessThan(128);
  });

  it('MCP Inspector: the command and the URL to enter', () => {
    const inspector = snippets(first.stderr)[6];
    expect(inspector?.text).toBe('npx @modelcontextprotocol/inspector');
    expect(inspector?.where).toContain(first.url);
  });
});

describe("the README's profiles for hosts with a tool limit", () => {
  const table = read('README.md')
    .split('\n')
    .filter((line) => /^\| .+ \| `--/.test(line))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim());
      return {
        flags: words((cells[2] ?? '').replaceAll('`', '')),
        listed: Number.parseInt(cells[3] ?? '', 10),
      };
    });

  it('are listed', () => {
    expect(table.length).toBeGreaterThanOrEqual(4);
  });

  it.each(table)('$flags lists $listed tools, under VS Code’s 128', async ({ flags, listed }) => {
    const { tools } = await overStdio(process.execPath, [
      join(ROOT, 'apps/mcp-server/dist/main.js'),
      '--sandbox',
      ...flags,
    ]);
    expect(tools).toBe(listed);
    expect(tools).toBeLessThan(128);
  });
});
