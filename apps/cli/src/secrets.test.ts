/**
 * Secrets stay out of the CLI's output: database passwords unless --show-secrets is given, and
 * the API token always, even when the API echoes it back in every field it can.
 */
import { ECHO_PATHS, ECHO_TOKEN, type EchoingApi, secretRuns, startEchoingApi } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner } from './testing/run.js';

const cli = cliRunner();
const create = ['--name', 'pg-secret', '--engine', 'pg', '--version', '16', '--region', 'nyc1'];
const sized = [...create, '--size', 'db-s-1vcpu-1gb', '--num_nodes', '1'];

describe('secrets in output', () => {
  it('are hidden by default and shown with --show-secrets, on either side of the tool name', async () => {
    const hidden = await cli.run(['--sandbox', 'db-cluster-create', ...sized]);
    expect(hidden.code).toBe(0);
    const id = (hidden.json as { database: { id: string } }).database.id;
    expect(hidden.stdout).toMatch(/"password":"\[hidden/);

    const shown = await cli.run(['--sandbox', '--show-secrets', 'db-cluster-get', '--id', id]);
    const password = (shown.json as { database: { connection: { password: string } } }).database.connection
      .password;
    expect(password).not.toMatch(/hidden/);
    expect(shown.stdout).toContain(`:${password}@`);

    const after = await cli.run(['db-cluster-get', '--id', id, '--sandbox', '--show-secrets']);
    expect(after.stdout).toContain(password);
    const plain = await cli.run(['db-cluster-get', '--id', id, '--sandbox']);
    expect(plain.stdout).not.toContain(password);
  });
});

describe('the API token', () => {
  let api: EchoingApi;
  beforeAll(async () => {
    api = await startEchoingApi();
  });
  afterAll(() => api.close());

  it('never appears, in any 8-character part, in output or errors when the API echoes it back', async () => {
    const env = { DIGITALOCEAN_API_TOKEN: ECHO_TOKEN };
    const at = ['--api-url', api.url];
    const runs = await Promise.all([
      cli.run([...at, 'account-get-information'], env),
      cli.run([...at, 'key-get', '--ID', '1'], env),
      cli.run([...at, 'key-get', '--ID', '2'], env),
      cli.run([...at, 'key-list'], env),
      cli.run([...at, 'action-list'], env),
      // A JSON flag that does not parse: the parser's message would quote the value.
      cli.run(
        [
          ...at,
          'db-cluster-update-firewall-rules',
          '--force',
          '--id',
          '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30',
          '--rules',
          `[{"type": "ip_addr", "value": ${ECHO_TOKEN}}]`,
        ],
        env,
      ),
    ]);
    // Each call reached its answer: the echoing paths were all asked, and each failure is reported.
    expect(new Set(api.seen)).toEqual(new Set(Object.values(ECHO_PATHS)));
    expect(runs.map((run) => run.code)).toEqual([3, 3, 3, 0, 3, 2]);
    expect(runs[0]?.stderr).toMatch(/API error 401 \(unauthorized\): Unable to authenticate you/);
    expect(runs[1]?.stderr).toMatch(/API error 404 \(not_found:\[REDACTED\], request id req-\[REDACTED\]\)/);
    expect(runs[2]?.stderr).toMatch(/request id \[REDACTED\]/);
    expect(runs[3]?.stdout).toContain('[REDACTED]');
    expect(runs[4]?.stderr).toMatch(/API error 302 \(unexpected_redirect/);
    expect(runs[5]?.stderr).toMatch(
      /--rules: expected JSON; the value is not valid JSON( at character \d+)? \(value not shown\)/,
    );
    for (const run of runs) expect(secretRuns(run.stdout + run.stderr)).toEqual([]);
  });
});
