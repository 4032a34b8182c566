/**
 * Which token the CLI sends, as docs/cli.md states it: `-t/--token`, then the context `--context`
 * names, then DIGITALOCEAN_API_TOKEN (then DIGITALOCEAN_ACCESS_TOKEN), else the current context.
 * The built CLI as a process, against an API on loopback that records the token of each request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configPath, writeConfig } from './config.js';
import { cliRunner } from './testing/run.js';

const cli = cliRunner({}, { process: true });
let server: Server;
let url: string;
/** The bearer token of each request the API answered. */
const tokens: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    tokens.push(/^Bearer (.*)$/.exec(request.headers.authorization ?? '')?.[1] ?? '');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ssh_keys: [], links: {}, meta: { total: 0 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeConfig(configPath(cli.env), {
    current: 'home',
    contexts: {
      home: { token: 'token-of-home', apiUrl: url },
      work: { token: 'token-of-work', apiUrl: url },
    },
  });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** The token `key-list` sends with these flags and variables (every request to the loopback API). */
async function tokenSent(
  flags: string[],
  env: Record<string, string> = {},
): Promise<{ token: string; stderr: string }> {
  tokens.length = 0;
  const run = await cli.run(['--api-url', url, ...flags, 'key-list'], env);
  expect(run.code, run.stderr).toBe(0);
  expect(new Set(tokens).size).toBe(1);
  return { token: tokens[0] as string, stderr: run.stderr };
}

describe('the token the CLI sends', () => {
  const env = { DIGITALOCEAN_API_TOKEN: 'token-of-env', DIGITALOCEAN_ACCESS_TOKEN: 'token-of-access-env' };

  it('is --token before a --context and the environment', async () => {
    expect((await tokenSent(['-t', 'token-of-flag', '--context', 'work'], env)).token).toBe('token-of-flag');
  });

  it("is --context's before the environment's", async () => {
    const sent = await tokenSent(['--context', 'work'], env);
    expect(sent.token).toBe('token-of-work');
    expect(sent.stderr).toBe('');
  });

  it("is the environment's before the current context's, saying so", async () => {
    const sent = await tokenSent([], env);
    expect(sent.token).toBe('token-of-env');
    expect(sent.stderr).toContain(
      'using the token from DIGITALOCEAN_API_TOKEN, not the current context home',
    );
    expect((await tokenSent([], { DIGITALOCEAN_ACCESS_TOKEN: 'token-of-access-env' })).token).toBe(
      'token-of-access-env',
    );
  });

  it("is the current context's when nothing else gives one", async () => {
    expect((await tokenSent([])).token).toBe('token-of-home');
  });
});
