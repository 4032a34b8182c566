/**
 * `apps logs APP [COMPONENT] --type build|deploy|run [--follow]` through the CLI, as doctl's: the
 * text at the URLs app-get-logs answers, read from the sandbox on loopback (a live URL as a
 * WebSocket, an archive as a file) and written to stdout as it comes. A followed build streams
 * until the build is over; a followed run until the deployment is superseded, or Ctrl-C. Against a
 * stand-in platform on loopback: the API token never reaches the log URLs, an archive is read
 * within its bound, and a failing URL is named without its token.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LOG_MAX_BYTES } from './app-logs.js';
import { cliRunner, sandboxBeside } from './testing/run.js';

const cli = cliRunner();
const { ok } = cli;
/** A second sandbox on the CLI's state file, to move its clock. */
const helper = sandboxBeside(cli);

const spec = (name: string) =>
  JSON.stringify({
    name,
    region: 'ams',
    services: [{ name: 'web', github: { repo: 'acme/shop', branch: 'main' }, http_port: 8080 }],
    workers: [{ name: 'queue-worker', github: { repo: 'acme/shop', branch: 'main' } }],
  });

/** The lines printed, each `COMPONENT TIMESTAMP MESSAGE`: their components and messages. */
const linesOf = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [component, time, ...message] = line.split(' ');
      expect(Number.isNaN(Date.parse(time ?? ''))).toBe(false);
      return `${component}: ${message.join(' ')}`;
    });

describe('apps logs through the CLI: the text at the URLs, as doctl reads it', () => {
  it('follows a build until it is over, then reads deploy logs from the archive, of one component or all', async () => {
    const { app } = await ok('apps', 'create', '--spec', spec('logs-shop'));
    // Not building yet: no lines, said on stderr.
    const none = await cli.sandbox('apps', 'logs', 'logs-shop', '--type', 'build');
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('cloudcall: no log lines (yet)\n');
    // Building (the sandbox's clock): a followed build log streams as the build goes.
    const follow = cli.start(['--sandbox', 'apps', 'logs', 'logs-shop', '--type', 'build', '--follow']);
    await helper().advanceClock(2_000);
    await follow.until(/\[build\] Cloning github:acme\/shop@main/);
    expect(follow.output.stdout).not.toContain('Build complete');
    await helper().advanceClock(3_000);
    const built = await follow.exit;
    expect(built.code, built.stderr).toBe(0);
    const lines = linesOf(built.stdout);
    expect(lines.filter((line) => line.startsWith('web: '))).toEqual([
      'web: [build] Cloning github:acme/shop@main at 5538902',
      'web: [build] Detecting buildpacks: heroku/nodejs, digitalocean/procfile',
      'web: [build] Installing dependencies (npm ci)',
      'web: [build] Building (npm run build)',
      'web: [build] Exporting the image to the app registry',
      'web: [build] Build complete',
    ]);
    expect(lines.filter((line) => line.startsWith('queue-worker: '))).toHaveLength(6);

    // Deployed: its deploy log is an archive now; one component's (given second, as doctl), or all.
    await helper().advanceClock(10_000);
    expect((await ok('apps', 'get', app.id)).app.active_deployment.phase).toBe('ACTIVE');
    const web = await cli.sandbox('apps', 'logs', 'logs-shop', 'web', '--type', 'deploy');
    expect(web.code, web.stderr).toBe(0);
    expect(linesOf(web.stdout)).toEqual([
      'web: [deploy] Pulling the image for web',
      'web: [deploy] Starting 1 instance',
      'web: [deploy] Health checks passing',
      'web: [deploy] Deployed',
    ]);
    const all = await cli.sandbox('apps', 'logs', app.id, '--type', 'DEPLOY');
    expect(linesOf(all.stdout)).toContain('queue-worker: [deploy] Deployed');
    // The tool itself still answers the URLs.
    const urls = await ok('app-get-logs', 'logs-shop', '--type', 'deploy');
    expect(urls.historic_urls[0]).toMatch(/\/archive\/deploy\.log\?token=[0-9a-f]{32}$/);

    const missing = await cli.sandbox('apps', 'logs', 'logs-shop', 'nope', '--type', 'deploy');
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
  });

  it("reads a live run's lines and stops; followed, it streams until the deployment is superseded, or Ctrl-C", async () => {
    await ok('apps', 'create', '--spec', spec('run-shop'));
    await helper().advanceClock(10_000);
    const now = await cli.sandbox('apps', 'logs', 'run-shop');
    expect(now.code, now.stderr).toBe(0);
    expect(linesOf(now.stdout)).toEqual(
      expect.arrayContaining(['web: Listening on port 8080', 'queue-worker: Worker started']),
    );

    const follow = cli.start(['--sandbox', 'apps', 'logs', 'run-shop', 'web', '--follow']);
    await follow.until(/web \S+ Listening on port 8080/);
    await helper().advanceClock(25_000);
    await follow.until(/GET \/healthz 200/);
    // A new deployment, live: the one followed is superseded, and its stream ends.
    await ok('apps', 'create-deployment', 'run-shop');
    await helper().advanceClock(60_000);
    const ended = await follow.exit;
    expect(ended.code, ended.stderr).toBe(0);
    expect(linesOf(ended.stdout).every((line) => line.startsWith('web: '))).toBe(true);
    expect(
      linesOf(ended.stdout).filter((line) => line.includes('GET /healthz')).length,
    ).toBeGreaterThanOrEqual(2);

    // Ctrl-C ends a followed stream: 130, as any command stopped so.
    const stopped = cli.start(['--sandbox', 'apps', 'logs', 'run-shop', '--follow']);
    await stopped.until(/Listening on port 8080/);
    stopped.child.kill();
    const interrupted = await stopped.exit;
    expect(interrupted.code).toBe(130);
  });
});

/** A stand-in platform on loopback: the logs answer points at its own log URLs. */
async function standIn(logs: (url: string) => unknown, serve: (path: string, res: ServerResponse) => void) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    seen.push({ path, headers: req.headers });
    if (path.startsWith('/v2/apps/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(logs(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
    } else serve(path, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const APP = '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30';
const DEPLOYMENT = '0f9f3c1e-43f6-4a53-9a4d-3ad8a8d0e3b1';
const TOKEN = 'dop_v1_logs-api-token';

describe('apps logs against the platform: its URLs are read as they are, and only them', () => {
  it('sends no API token to the log URL, and reads an archive within its bound', async () => {
    const line = `web 2026-01-02T03:04:05.000Z ${'x'.repeat(1000)}\n`;
    const platform = await standIn(
      (base) => ({ historic_urls: [`${base}/archive/run.log?token=log-url-secret`] }),
      (_path, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        // More than the bound: what is read stops there.
        const chunk = line.repeat(1024);
        let sent = 0;
        const more = () => {
          while (sent < LOG_MAX_BYTES * 2) {
            sent += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', more);
              return;
            }
          }
          res.end();
        };
        res.on('error', () => undefined);
        more();
      },
    );
    try {
      const read = await cli.run([
        '--api-url',
        platform.url,
        '--token',
        TOKEN,
        'apps',
        'logs',
        APP,
        '--deployment',
        DEPLOYMENT,
      ]);
      expect(read.code, read.stderr).toBe(0);
      expect(Buffer.byteLength(read.stdout)).toBe(LOG_MAX_BYTES);
      expect(read.stderr).toContain('the logs were cut at 16 MiB');
      const api = platform.seen.filter((request) => request.path.startsWith('/v2/'));
      const log = platform.seen.filter((request) => request.path.startsWith('/archive/'));
      expect(api.map((request) => request.path)).toEqual([
        `/v2/apps/${APP}/deployments/${DEPLOYMENT}/logs?type=RUN`,
      ]);
      expect(api[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(log).toHaveLength(1);
      expect(log[0]?.path).toBe('/archive/run.log?token=log-url-secret');
      expect(log[0]?.headers.authorization).toBeUndefined();
      expect(JSON.stringify(log[0]?.headers)).not.toContain(TOKEN);
    } finally {
      await platform.close();
    }
  });

  it('names a failing log URL without its token; a live URL nothing serves is a network error', async () => {
    const refusing = await standIn(
      (base) => ({ historic_urls: [`${base}/archive/build.log?token=log-url-secret`] }),
      (_path, res) => {
        res.writeHead(403);
        res.end('expired');
      },
    );
    try {
      const refused = await cli.run([
        '--api-url',
        refusing.url,
        '--token',
        TOKEN,
        'apps',
        'logs',
        APP,
        '--deployment',
        DEPLOYMENT,
      ]);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain(`the log at ${refusing.url}/archive/build.log answered HTTP 403`);
      expect(refused.stderr).not.toContain('log-url-secret');
    } finally {
      await refusing.close();
    }
    const nowhere = await standIn(
      () => ({ live_url: 'ws://127.0.0.1:9/live?token=log-url-secret' }),
      () => undefined,
    );
    try {
      const broken = await cli.run([
        '--api-url',
        nowhere.url,
        '--token',
        TOKEN,
        'apps',
        'logs',
        APP,
        '--deployment',
        DEPLOYMENT,
      ]);
      expect(broken.code).toBe(4);
      expect(broken.stderr).toContain('could not open the live log at ws://127.0.0.1:9/live');
      expect(broken.stderr).not.toContain('log-url-secret');
    } finally {
      await nowhere.close();
    }
  });
});
