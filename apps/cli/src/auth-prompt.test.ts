/**
 * `auth init` at its hidden prompt, on a real pseudo-terminal (util-linux `script`), against a
 * sandbox served on loopback (which accepts any token), in a temporary XDG_CONFIG_HOME: a typed
 * token is not echoed and is saved (mode 0600, masked by `auth list`); Ctrl+C at the prompt exits
 * 130 and saves nothing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configPath } from './config.js';
import { EXIT } from './program.js';
import { cliRunner, onTerminal } from './testing/run.js';

/** Each test's own config directory: a test sees only what it saved. */
let cli: ReturnType<typeof cliRunner>;
let XDG: string;
let config: string;
const TYPED = 'dop_v1_cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc3333';
const PROMPT = 'API token (input hidden):';
let sandbox: Sandbox;
const seen: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ onRequest: (info) => seen.push(`${info.method} ${info.target}`) });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => {
  cli = cliRunner();
  XDG = `${cli.home}/config`;
  config = configPath({ XDG_CONFIG_HOME: XDG });
  // The requests of this test only.
  seen.length = 0;
});

/** The CLI on a pseudo-terminal; `keys` are typed once the token prompt has appeared. */
const onTerminalHere = (args: string[], keys: string) =>
  onTerminal(args, {
    env: { PATH: process.env.PATH ?? '', HOME: cli.home, XDG_CONFIG_HOME: XDG },
    prompt: PROMPT,
    keys,
  });

describe('auth init at the hidden prompt', () => {
  it('Ctrl+C at the prompt exits 130 and saves nothing', async () => {
    const cancelled = await onTerminalHere(
      ['auth', 'init', '--context', 'term', '--api-url', sandbox.url],
      '\u0003',
    );
    expect(cancelled.text).toContain(PROMPT);
    expect(cancelled.code, cancelled.text).toBe(EXIT.cancelled);
    expect(cancelled.text).toContain('cloudcall: cancelled');
    expect(seen).toEqual([]);
    expect(existsSync(config)).toBe(false);
  });

  it('takes a typed token without echoing it, checks it, and saves it with mode 0600', async () => {
    const init = await onTerminalHere(
      ['auth', 'init', '--context', 'term', '--api-url', sandbox.url],
      `${TYPED}\r`,
    );
    expect(init.text).toContain(PROMPT);
    expect(init.code, init.text).toBe(EXIT.ok);
    // Hidden: neither the token nor a long piece of it reached the terminal; its mask did.
    expect(init.text).not.toContain(TYPED);
    expect(init.text).not.toContain(TYPED.slice(0, 20));
    expect(init.text).not.toContain('cccccccc');
    expect(init.text).toContain('*'.repeat(TYPED.length));
    expect(init.text).toContain('token dop_v1_****3333 works (account ');
    expect(init.text).toContain(`saved as context term in ${config}, now the current context`);
    expect(seen).toContain('GET /v2/account');

    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({
      current: 'term',
      contexts: { term: { token: TYPED, apiUrl: sandbox.url } },
    });
    const list = await cli.run(['auth', 'list']);
    expect(list.code, list.stderr).toBe(EXIT.ok);
    expect(list.json).toEqual({
      contexts: [
        {
          name: 'term',
          current: true,
          kind: 'token',
          token: 'dop_v1_****3333',
          expires: '',
          issuer: '',
          api_url: sandbox.url,
        },
      ],
    });
    expect(list.stdout).not.toContain(TYPED);
  });
});
