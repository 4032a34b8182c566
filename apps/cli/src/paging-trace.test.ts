/**
 * `--all` and `--trace`, as processes against the sandbox: every page merged, the rate limit
 * respected between pages (in sandbox time, moved by a second sandbox on the same state file), and
 * each request and response traced with the token and secrets masked.
 */
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from './program.js';
import { cliRunner, VM_FLAGS } from './testing/run.js';

const cli = cliRunner();
let helper: Sandbox;
const TOKEN = 'dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab';

beforeAll(async () => {
  for (const name of ['page-1', 'page-2', 'page-3', 'page-4', 'page-5']) {
    const created = await cli.run(['--sandbox', 'vm-create', '--name', name, ...VM_FLAGS]);
    expect(created.code, created.stderr).toBe(0);
  }
  helper = await startSandbox({ statePath: cli.statePath });
});
afterAll(async () => {
  await helper.clearFaults();
  await helper.close();
});

const names = (json: unknown) => (json as { droplets: { name: string }[] }).droplets.map((vm) => vm.name);
const requests = (stderr: string) =>
  stderr.split('\n').filter((line) => line.startsWith('cloudcall: trace: > GET /v2/droplets'));

describe('--all', () => {
  it('follows links.pages.next over 3 pages and merges them', async () => {
    const one = await cli.run(['--sandbox', 'vm-list', '--PerPage', '2']);
    expect(names(one.json)).toEqual(['page-1', 'page-2']);

    const all = await cli.run(['--sandbox', 'vm-list', '--PerPage', '2', '--all', '--trace']);
    expect(all.code, all.stderr).toBe(EXIT.ok);
    expect(names(all.json)).toEqual(['page-1', 'page-2', 'page-3', 'page-4', 'page-5']);
    expect(all.json).toMatchObject({ meta: { total: 5 }, links: {} });
    expect(requests(all.stderr)).toEqual([
      'cloudcall: trace: > GET /v2/droplets?page=1&per_page=2 authorization: Bearer [hidden]',
      'cloudcall: trace: > GET /v2/droplets?page=2&per_page=2 authorization: Bearer [hidden]',
      'cloudcall: trace: > GET /v2/droplets?page=3&per_page=2 authorization: Bearer [hidden]',
    ]);
  });

  it('spaces the pages out when the rate limit runs low, saying so', async () => {
    // 10 requests left of 5000 for an hour: 6 minutes between requests makes them last.
    await helper.setRateLimit({ remaining: 10, resetInSeconds: 3600 });
    try {
      const run = cli.start(['--sandbox', 'vm-list', '--PerPage', '2', '--all']);
      await run.until(/waiting \d+ s before page 2: API rate limit low: 10 of 5000 requests left/);
      expect(run.output.stdout).toBe('');
      await helper.advanceClock(400_000);
      await run.until(/before page 3/);
      await helper.advanceClock(400_000);
      const result = await run.exit;
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(names(result.json)).toHaveLength(5);
    } finally {
      await helper.setRateLimit(undefined);
    }
  });

  it('follows the pages of a list tool that runs a handler (image-list) as well', async () => {
    const first = await cli.run(['--sandbox', 'image-list', '--type', 'distribution', '--per-page', '2']);
    expect(first.code, first.stderr).toBe(EXIT.ok);
    const { meta } = first.json as { meta: { total: number } };
    expect(meta.total).toBeGreaterThan(2);
    const all = await cli.run([
      '--sandbox',
      'image-list',
      '--type',
      'distribution',
      '--per-page',
      '2',
      '--all',
      '--trace',
    ]);
    expect(all.code, all.stderr).toBe(EXIT.ok);
    const images = (all.json as { images: { id: number }[] }).images;
    expect(images).toHaveLength(meta.total);
    expect(new Set(images.map((image) => image.id)).size).toBe(meta.total);
    expect(
      all.stderr.split('\n').filter((line) => line.startsWith('cloudcall: trace: > GET /v2/images')),
    ).toHaveLength(Math.ceil(meta.total / 2));
  });

  it('is offered only by list tools', async () => {
    expect((await cli.run(['vm-list', '--help'])).stdout).toMatch(/--all\s+fetch every page/);
    expect((await cli.run(['vm-get', '--help'])).stdout).not.toMatch(/--all/);
  });
});

describe('--trace', () => {
  it('prints each request and response with status, time and rate limit, and never the token', async () => {
    const result = await cli.run([
      '--api-url',
      helper.url,
      '--token',
      TOKEN,
      '--trace',
      'vm-list',
      '--PerPage',
      '1',
    ]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      'cloudcall: trace: > GET /v2/droplets?page=1&per_page=1 authorization: Bearer [hidden]',
    );
    expect(lines[1]).toMatch(
      /^cloudcall: trace: < 200 GET \/v2\/droplets\?page=1&per_page=1 in \d+ ms; ratelimit 4999\/5000 reset \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; request id [0-9a-f-]{36}$/,
    );
    expect(result.stderr).not.toContain(TOKEN);
    expect(result.stderr).not.toContain(TOKEN.slice(-12));
  });

  it('masks secrets in request bodies', async () => {
    const secret = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw-not-for-the-log';
    const key = `-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----`;
    const cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    const result = await cli.run([
      '--sandbox',
      '--trace',
      'custom-certificate-create',
      '--Name',
      'traced',
      '--PrivateKey',
      key,
      '--LeafCertificate',
      cert,
      '--CertificateChain',
      cert,
    ]);
    // The sandbox refuses the made-up key; the request was traced all the same.
    expect(result.code).toBe(EXIT.api);
    const line = result.stderr
      .split('\n')
      .find((l) => l.startsWith('cloudcall: trace: > POST /v2/certificates'));
    expect(line).toContain('"private_key":"[hidden: run with --show-secrets to see it]"');
    expect(line).toContain('"name":"traced"');
    expect(result.stderr).not.toContain(secret);
  });
});
