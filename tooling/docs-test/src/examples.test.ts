/**
 * Every example in the README and in each package's README runs as written, against the
 * sandbox: TypeScript examples compiled as they stand and run with node (their imports resolve to
 * the built workspace packages); the CLI's lines run by the built CLI; the MCP server's host
 * configuration started as a host would start it, and called.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSandbox } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { codeBlocks, LIBRARIES, newUserEnv, ROOT, read } from './markdown.js';

const run = promisify(execFile);
const HERE = join(ROOT, 'tooling/docs-test');
const BINS: Record<string, string> = {
  cloudcall: join(ROOT, 'apps/cli/dist/bin.cjs'),
  'cloudcall-mcp': join(ROOT, 'apps/mcp-server/dist/main.js'),
};

async function runTypeScript(name: string, source: string) {
  const { outputText, diagnostics } = ts.transpileModule(source, {
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  expect(diagnostics ?? []).toEqual([]);
  // Inside this package, so its imports resolve to the workspace packages it depends on.
  mkdirSync(join(HERE, '.examples'), { recursive: true });
  const file = join(HERE, '.examples', `${name}.mjs`);
  writeFileSync(file, outputText);
  return run(process.execPath, [file], { env: newUserEnv(), timeout: 60_000 });
}

/** The lines of a shell block that call the CLI, each run with the built CLI in one sandbox. */
async function runCliLines(block: string) {
  const env = newUserEnv();
  const lines = block.split('\n').filter((line) => line.startsWith('cloudcall '));
  expect(lines.length).toBeGreaterThan(0);
  const outputs: string[] = [];
  for (const line of lines) {
    const words = [...line.replace(/\s+#.*$/, '').matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map(
      (match) => match[1] ?? match[2] ?? match[3] ?? '',
    );
    const running = run(process.execPath, [BINS.cloudcall as string, ...words.slice(1)], {
      env,
      timeout: 60_000,
    });
    // A line that waits (`--wait`) for the sandbox's VM to boot: once the CLI says what it waits
    // for, the sandbox's clock moves on (a second sandbox on the state file), so the test does not
    // sleep through the boot a user sees.
    if (words.includes('--wait')) void moveClockWhenWaiting(running.child, env.CLOUDCALL_SANDBOX_STATE ?? '');
    const { stdout } = await running.catch((error: { stderr?: string; message: string }) => {
      throw new Error(`${line}\nfailed: ${error.stderr || error.message}`);
    });
    outputs.push(stdout);
  }
  return outputs;
}

async function moveClockWhenWaiting(child: ChildProcess, statePath: string): Promise<void> {
  let stderr = '';
  await new Promise<void>((resolve) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk;
      if (/: new \(|: in-progress \(/.test(stderr)) resolve();
    });
    child.on('close', () => resolve());
  });
  if (child.exitCode !== null) return;
  const clock = await startSandbox({ statePath });
  try {
    await clock.advanceClock(60_000);
  } finally {
    await clock.close();
  }
}

describe('the README', () => {
  it('library quick start runs against the sandbox and creates a VM from a slug', async () => {
    const [example] = codeBlocks(read('README.md')).filter((block) => block.lang === 'js');
    const { stdout } = await runTypeScript('readme', example?.text ?? '');
    expect(stdout).toMatch(/^created VM \d+ \(new\)\n1 VMs: web-1\n$/);
  });

  // The quick start's CLI commands, each a process, in turn: on a machine shared with other work,
  // more than the default 30 s.
  it('CLI quick start runs, every line, against one sandbox', async () => {
    const block = codeBlocks(read('README.md')).find(
      (b) => b.lang === 'sh' && b.text.includes('cloudcall --sandbox vm create'),
    );
    const outputs = await runCliLines(block?.text ?? '');
    // In a pipe, JSON; --format makes a table even there.
    expect(JSON.parse(outputs[1] ?? '').droplets).toMatchObject([{ name: 'web-1', status: 'active' }]);
    expect(outputs[2]).toMatch(/^ID\s+Name\s+networks\.v4\.0\.ip_address\n\d+\s+web-1\s+192\.0\.2\.\d+\n$/);
    expect(JSON.parse(outputs[3] ?? '')).toMatchObject({ valid: true, request: { method: 'POST' } });
    expect(outputs[4]?.trim()).toBe('["web-1"]');
    expect(outputs[5]).toMatch(/vm-create/);
  }, 120_000);
});

describe.each(LIBRARIES)('packages/%s/README.md', (name) => {
  it('has an example that runs as written against the sandbox', async () => {
    const examples = codeBlocks(read(`packages/${name}/README.md`)).filter((block) => block.lang === 'ts');
    expect(examples).toHaveLength(1);
    const { stdout, stderr } = await runTypeScript(name, examples[0]?.text ?? '');
    expect(stderr).toBe('');
    expect(stdout.length).toBeGreaterThan(0);
  });
});

describe('apps/cli/README.md', () => {
  it('has example lines that run as written against the sandbox', async () => {
    const [block] = codeBlocks(read('apps/cli/README.md')).filter(
      (b) => b.lang === 'sh' && b.text.includes('--sandbox'),
    );
    const outputs = await runCliLines(block?.text ?? '');
    expect(JSON.parse(outputs[2] ?? '')).toMatchObject({
      droplet: { name: 'web-1', image: { slug: 'ubuntu-24-04-x64' } },
    });
  });
});

describe('apps/mcp-server/README.md', () => {
  it('has a host configuration that starts the server, under VS Code’s 128 tools', async () => {
    const [block] = codeBlocks(read('apps/mcp-server/README.md')).filter((b) => b.lang === 'json');
    const entry = JSON.parse(block?.text ?? '').mcpServers.cloudcall as { command: string; args: string[] };
    expect(entry.command).toBe('cloudcall-mcp');
    const client = new Client({ name: 'readme', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BINS['cloudcall-mcp'] as string, ...entry.args],
        env: newUserEnv(),
        stderr: 'ignore',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeLessThan(128);
      const result = await client.callTool({ name: 'vm-list', arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
