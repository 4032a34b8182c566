/**
 * Where the CLI's credentials come from and where its calls land, as processes against a loopback
 * stand-in that records each request's API (path prefix) and token; every process has a preload
 * that refuses to resolve any host but loopback, so a call meant for the platform fails here
 * instead of leaving the machine.
 * - An explicit `--context` or `--token` beats DIGITALOCEAN_API_TOKEN; a context's API URL is
 *   never silently replaced.
 * - The config file is changed under a lock with an atomic rename: eight `auth init` at once
 *   keep all eight contexts. Its directory is 0700, also when the sandbox made it first.
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sshPublicKey } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configPath, resolveToken, writeConfig } from './config.js';
import { EXIT } from './program.js';
import { cliRunner } from './testing/run.js';

const PRELOAD = fileURLToPath(new URL('./testing/loopback-only.cjs', import.meta.url));
const ENV_TOKEN = 'dop_v1_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee0001';
const CONTEXT_TOKEN = 'dop_v1_cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc0002';
const FLAG_TOKEN = 'dop_v1_ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0003';

/** The stand-in: `/<api>/v2/...` answers as the platform would for a good token, and is recorded. */
const landed: { api: string; path: string; token: string }[] = [];
let base = '';
const server = createServer((req, res) => {
  const [, api = '', ...rest] = (req.url ?? '/').split('/');
  const path = `/${rest.join('/')}`;
  landed.push({ api, path, token: /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '' });
  res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
  if (req.method === 'POST') {
    res.end(
      JSON.stringify({ ssh_key: { id: 7, name: 'k', fingerprint: 'f', public_key: 'ssh-ed25519 AAAA' } }),
    );
  } else if (path.startsWith('/v2/account/keys')) {
    res.end(JSON.stringify({ ssh_keys: [], links: {}, meta: { total: 0 } }));
  } else {
    res.end(JSON.stringify({ account: { email: `${api}@example.com`, status: 'active' } }));
  }
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A CLI with its own config directory, the preload, and the given environment. */
function cliWith(env: Record<string, string> = {}) {
  return cliRunner({ NODE_OPTIONS: `--require ${PRELOAD}`, ...env });
}

describe('an explicit --context or --token beats the environment', () => {
  const cli = cliWith({ DIGITALOCEAN_API_TOKEN: ENV_TOKEN });
  const env = { XDG_CONFIG_HOME: join(cli.home, 'config') };
  beforeAll(() => {
    writeConfig(configPath(env), {
      current: 'sandbox',
      contexts: { sandbox: { token: CONTEXT_TOKEN, apiUrl: `${base}/context` } },
    });
  });
  const keyList = async (args: string[]) => {
    landed.length = 0;
    const run = await cli.run([...args, 'key-list']);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(run.stderr).not.toContain('loopback-only');
    return landed.map(({ api, token }) => ({ api, token }));
  };

  it("--context: the context's token goes to the context's API, not the environment's to the platform", async () => {
    expect(await keyList(['--context', 'sandbox'])).toEqual([{ api: 'context', token: CONTEXT_TOKEN }]);
  });

  it('--token: that token, to --api-url', async () => {
    expect(await keyList(['--token', FLAG_TOKEN, '--api-url', `${base}/flag`])).toEqual([
      { api: 'flag', token: FLAG_TOKEN },
    ]);
  });

  it("--token with --context: the flag's token, at the context's API", async () => {
    expect(await keyList(['--token', FLAG_TOKEN, '--context', 'sandbox'])).toEqual([
      { api: 'context', token: FLAG_TOKEN },
    ]);
  });

  it('the environment beats the current context, and says which context it set aside', () => {
    const resolved = resolveToken({ ...env, DIGITALOCEAN_API_TOKEN: ENV_TOKEN }, {});
    expect(resolved).toMatchObject({ token: ENV_TOKEN, source: 'DIGITALOCEAN_API_TOKEN' });
    expect(resolved?.apiUrl).toBeUndefined();
    expect(resolved?.note).toBe(
      `using the token from DIGITALOCEAN_API_TOKEN, not the current context sandbox; it goes to the platform's API, not ${base}/context; pass --context sandbox to use the context`,
    );
  });
});

describe('audit lines name the caller', () => {
  it("cli:CONTEXT for a context's token, the local user otherwise", async () => {
    const cli = cliWith();
    const env = { XDG_CONFIG_HOME: join(cli.home, 'config') };
    writeConfig(configPath(env), {
      current: 'work',
      contexts: { work: { token: CONTEXT_TOKEN, apiUrl: `${base}/work` } },
    });
    const log = join(cli.home, 'audit.jsonl');
    const create = ['--audit-log', log, 'key-create', '--name', 'k', '--public-key', sshPublicKey('k')];
    for (const args of [
      ['--context', 'work'],
      [],
      ['--token', FLAG_TOKEN, '--api-url', `${base}/flag`],
      ['--sandbox'],
    ]) {
      const run = await cli.run([...args, ...create]);
      expect(run.code, run.stderr).toBe(EXIT.ok);
    }
    const callers = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      // One outcome line per call; the write-ahead intent lines carry a phase.
      .filter((entry) => entry.phase === undefined)
      .map((entry) => entry.caller);
    const local = `local:${userInfo().username}`;
    expect(callers).toEqual(['cli:work', 'cli:work', local, local]);
  });
});

describe('the config file', () => {
  it('eight auth init at once keep all eight contexts, each saved whole', async () => {
    const cli = cliWith();
    const names = Array.from({ length: 8 }, (_, index) => `ctx${index}`);
    const runs = await Promise.all(
      names.map((name, index) =>
        cli.run(['auth', 'init', '--context', name, '--api-url', `${base}/${name}`], {}, `token-${index}\n`),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(EXIT.ok);
    const file = join(cli.home, 'config', 'cloudcall', 'config.json');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(saved.contexts).sort()).toEqual(names);
    for (const [index, name] of names.entries()) {
      expect(saved.contexts[name]).toEqual({ token: `token-${index}`, apiUrl: `${base}/${name}` });
    }
    expect(names).toContain(saved.current);
    // No temp file or lock left behind; the file and its directory are private.
    expect(readdirSync(dirname(file))).toEqual(['config.json']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('its directory is 0700 when the sandbox made it first', async () => {
    const cli = cliWith();
    const dir = join(cli.home, 'config', 'cloudcall');
    const run = await cli.sandbox('key-list');
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(readdirSync(dir)).toContain('sandbox.json');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('auth tightens a directory that exists with 0755 to 0700', async () => {
    const cli = cliWith();
    const dir = join(cli.home, 'config', 'cloudcall');
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    expect(statSync(dir).mode & 0o777).toBe(0o755);
    const init = await cli.run(
      ['auth', 'init', '--context', 'work', '--api-url', `${base}/work`],
      {},
      'tok\n',
    );
    expect(init.code, init.stderr).toBe(EXIT.ok);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});
