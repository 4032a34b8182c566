/**
 * Contexts, as processes in a temporary XDG_CONFIG_HOME, against a sandbox served on loopback
 * (which accepts any token): `auth init` checks and saves a token (mode 0600), `auth list` masks
 * it, `switch` and `remove` change the file, and tool commands use the context.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configPath, resolveToken, writeConfig } from './config.js';
import { EXIT } from './program.js';
import { cliRunner } from './testing/run.js';

/** Each test's own config directory: a test sees only the contexts it saved. */
let cli: ReturnType<typeof cliRunner>;
let config: string;
beforeEach(() => {
  cli = cliRunner();
  config = configPath({ XDG_CONFIG_HOME: `${cli.home}/config` });
});
/** What auth list says of a context auth init made: a token, nothing of OAuth. */
const PLAIN = { kind: 'token', expires: '', issuer: '' };
const WORK = 'dop_v1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1111';
const HOME_TOKEN = 'dop_v1_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2222';
let sandbox: Sandbox;
const seen: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ onRequest: (info) => seen.push(`${info.method} ${info.target}`) });
});
afterAll(async () => {
  await sandbox.close();
});

/** `auth init` of a context on the sandbox, expecting success. */
async function saved(name: string, token: string): Promise<void> {
  const init = await cli.run(['auth', 'init', '--context', name, '--api-url', sandbox.url], {}, `${token}\n`);
  expect(init.code, init.stderr).toBe(EXIT.ok);
}

describe('contexts', () => {
  it('auth init reads the token from stdin, checks it, and saves it with mode 0600', async () => {
    const init = await cli.run(
      ['auth', 'init', '--context', 'work', '--api-url', sandbox.url],
      {},
      `${WORK}\n`,
    );
    expect(init.code, init.stderr).toBe(EXIT.ok);
    expect(seen).toContain('GET /v2/account');
    expect(init.stderr).toContain('token dop_v1_****1111 works (account ');
    expect(init.stderr).toContain(`saved as context work in ${config}, now the current context`);
    expect(init.stdout + init.stderr).not.toContain(WORK);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({
      current: 'work',
      contexts: { work: { token: WORK, apiUrl: sandbox.url } },
    });
  });

  it('auth init refuses a token the API refuses, and saves nothing', async () => {
    await saved('work', WORK);
    const refusing = await startSandbox();
    await refusing.injectFault({ method: 'GET', path: '/v2/account', status: 401 });
    try {
      const init = await cli.run(
        ['auth', 'init', '--context', 'bad', '--api-url', refusing.url],
        {},
        'nope-token\n',
      );
      expect(init.code).toBe(EXIT.api);
      expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({
        current: 'work',
        contexts: { work: { token: WORK, apiUrl: sandbox.url } },
      });
    } finally {
      await refusing.close();
    }
  });

  it('tool commands use the current context, and --context picks another', async () => {
    await saved('work', WORK);
    const init = await cli.run(
      ['auth', 'init', '--context', 'home', '--api-url', sandbox.url],
      {},
      HOME_TOKEN,
    );
    expect(init.code, init.stderr).toBe(EXIT.ok);
    seen.length = 0;
    const current = await cli.run(['key-list']);
    expect(current.code, current.stderr).toBe(EXIT.ok);
    expect(seen).toEqual(['GET /v2/account/keys?page=1&per_page=30']);
    const other = await cli.run(['--context', 'work', 'key-list']);
    expect(other.code, other.stderr).toBe(EXIT.ok);
    const missing = await cli.run(['--context', 'nowhere', 'key-list']);
    expect(missing.code).toBe(EXIT.input);
    expect(missing.stderr).toContain('no context named "nowhere" (there are: work, home)');
  });

  it('auth list masks every token; switch and remove change the file', async () => {
    await saved('work', WORK);
    await saved('home', HOME_TOKEN);
    const list = await cli.run(['auth', 'list']);
    expect(list.code, list.stderr).toBe(EXIT.ok);
    expect(list.json).toEqual({
      contexts: [
        { ...PLAIN, name: 'work', current: false, token: 'dop_v1_****1111', api_url: sandbox.url },
        { ...PLAIN, name: 'home', current: true, token: 'dop_v1_****2222', api_url: sandbox.url },
      ],
    });
    expect(list.stdout).not.toContain(WORK);
    expect(list.stdout).not.toContain(HOME_TOKEN);

    expect((await cli.run(['auth', 'switch', 'work'])).code).toBe(EXIT.ok);
    expect(JSON.parse(readFileSync(config, 'utf8')).current).toBe('work');
    const unknown = await cli.run(['auth', 'switch', 'elsewhere']);
    expect(unknown.code).toBe(EXIT.input);

    expect((await cli.run(['auth', 'remove', 'work'])).code).toBe(EXIT.ok);
    const after = JSON.parse(readFileSync(config, 'utf8'));
    expect(after.current).toBeUndefined();
    expect(Object.keys(after.contexts)).toEqual(['home']);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    // No current context and no token anywhere: the CLI says where a token can come from.
    const none = await cli.run(['key-list']);
    expect(none.code).toBe(EXIT.input);
    expect(none.stderr).toContain('pass -t/--token, or run "cloudcall auth login"');
  });
});

describe('token precedence: --token, then --context, then the environment, then the current context', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'cloudcall-cli-')), 'precedence');
  const env = { XDG_CONFIG_HOME: dir };
  beforeAll(() => {
    writeConfig(configPath(env), {
      current: 'ctx',
      contexts: { ctx: { token: 'from-context', apiUrl: 'http://x' } },
    });
  });

  it('takes --token before the environment, and --context before it too', () => {
    expect(resolveToken({ ...env, DIGITALOCEAN_API_TOKEN: 'from-env' }, { token: 'from-flag' })).toEqual({
      token: 'from-flag',
      source: '--token',
    });
    expect(resolveToken({ ...env, DIGITALOCEAN_API_TOKEN: 'from-env' }, { context: 'ctx' })).toEqual({
      token: 'from-context',
      source: 'context ctx',
      apiUrl: 'http://x',
      context: 'ctx',
    });
  });
  it("--token with --context keeps the context's API URL; with no flag, the current context", () => {
    expect(resolveToken(env, { token: 'from-flag', context: 'ctx' })).toEqual({
      token: 'from-flag',
      source: '--token',
      apiUrl: 'http://x',
    });
    expect(resolveToken(env, {})).toEqual({
      token: 'from-context',
      source: 'context ctx',
      apiUrl: 'http://x',
      context: 'ctx',
    });
  });
});

describe('a config file that is not a small regular file', () => {
  it('stops a command at once, naming the file, for a FIFO, /dev/zero, a directory or a file too large', async () => {
    const cases: [() => void, string][] = [
      [() => execFileSync('mkfifo', [config]), 'not a regular file (a FIFO)'],
      [() => symlinkSync('/dev/zero', config), 'not a regular file (a device)'],
      [() => mkdirSync(config), 'not a regular file (a directory)'],
      [() => writeFileSync(config, `{"contexts": {}}${' '.repeat(1024 * 1024)}`), 'larger than 1 MiB'],
    ];
    for (const [make, why] of cases) {
      cli = cliRunner();
      config = configPath({ XDG_CONFIG_HOME: `${cli.home}/config` });
      mkdirSync(join(config, '..'), { recursive: true });
      make();
      const expected = `cloudcall: invalid input: config file ${config}: ${why}; fix or remove it\n`;
      // Reading the contexts, and finding the token of a command when no flag or variable gives one.
      const listed = await cli.run(['auth', 'list']);
      expect(listed.code, why).toBe(EXIT.input);
      expect(listed.stderr).toBe(expected);
      const command = await cli.run(['--api-url', sandbox.url, 'key-list']);
      expect(command.code, why).toBe(EXIT.input);
      expect(command.stderr.startsWith(expected), command.stderr).toBe(true);
    }
  }, 60_000);

  it('still reads one just under the limit', async () => {
    mkdirSync(join(config, '..'), { recursive: true });
    writeFileSync(config, `{"contexts": {}}${' '.repeat(1024 * 1024 - 16)}`);
    const listed = await cli.run(['auth', 'list']);
    expect(listed.code, listed.stderr).toBe(EXIT.ok);
  });
});
