/**
 * stdio and the HTTP-only options: as flags they stop start-up before anything is served; as
 * CLOUDCALL_ variables (which a host may set for every server it starts) they are ignored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitOf, killAll, rawStdio } from './testing/main.js';
import { initializeRaw } from './testing/process.js';

afterEach(killAll);

describe('--transport stdio with HTTP-only options', () => {
  it('refuses each HTTP-only flag with exit 2, naming it and --transport http', async () => {
    const cases = [
      ['--auth', 'static'],
      ['--stateless'],
      ['--host', '0.0.0.0'],
      ['--port', '4000'],
      ['--max-sessions', '5'],
      ['--session-idle-timeout', '60'],
      ['--client-keys', 'keys.txt'],
      ['--allowed-hosts', 'mcp.example'],
      ['--allowed-origins', 'https://app.example'],
      ['--grace-seconds', '5'],
      ['--max-in-flight', '5'],
    ];
    const results = await Promise.all(
      cases.map((args) =>
        exitOf(['--transport', 'stdio', '--sandbox', '--sandbox-state', ':memory:', ...args]),
      ),
    );
    results.forEach((result, index) => {
      const flag = cases[index]?.[0];
      expect(result.code, flag).toBe(2);
      expect(result.stderr, flag).toBe(`cloudcall-mcp: ${flag} needs --transport http (this is stdio)\n`);
      expect(result.stdout, flag).toBe('');
    });
  }, 60_000);

  it('names every HTTP-only flag given, and stdio is the default transport', async () => {
    const result = await exitOf(['--sandbox', '--port', '4000', '--stateless']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('cloudcall-mcp: --port, --stateless need --transport http (this is stdio)\n');
  });

  it('ignores their variables, even ones that would be refused over HTTP', async () => {
    const stdio = rawStdio(['--sandbox', '--sandbox-state', ':memory:'], {
      CLOUDCALL_AUTH: 'basic',
      CLOUDCALL_STATELESS: 'maybe',
      CLOUDCALL_PORT: 'not-a-port',
      CLOUDCALL_CLIENT_KEYS: '/nonexistent/keys',
    });
    await initializeRaw(stdio);
    expect(await stdio.end()).toBe(0);
    expect(stdio.stderr()).not.toMatch(/AUTH|STATELESS|PORT|client-keys/i);
  });

  it('still reads them over HTTP', async () => {
    const result = await exitOf(['--transport', 'http', '--sandbox'], { CLOUDCALL_STATELESS: 'maybe' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/CLOUDCALL_STATELESS must be 1 or 0/);
  });
});
