/**
 * The text at App Platform's log URLs (apps-logs.ts, live-logs.ts): an archive is a plain text
 * file of `COMPONENT TIMESTAMP MESSAGE` lines, answered for the URL's own token (no API token);
 * a live URL is a WebSocket sending each line as `{"data": LINE}`, closing once what there is is
 * sent, or (followed) once the part it shows is over. A real WebSocket client (undici's) and raw
 * frames on a socket check the protocol: the handshake, close and ping frames, refusals over HTTP.
 */
import { connect } from 'node:net';
import { WebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSandboxInProcess } from './connect.js';
import { type Sandbox, startSandbox } from './server.js';
import { callOperation } from './testing/operations.js';

let sandbox: Sandbox;
const call = (operationId: string, options?: Parameters<typeof callOperation>[2]) =>
  callOperation(sandbox.url, operationId, options);

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

const GITHUB = { repo: 'acme/shop', branch: 'main' };

async function createApp(name: string) {
  const created = await call('apps_create', {
    json: {
      spec: {
        name,
        services: [{ name: 'web', github: GITHUB, http_port: 8080 }],
        workers: [{ name: 'queue', github: GITHUB }],
      },
    },
  });
  expect(created.status, created.text).toBe(200);
  return created.body.app as { id: string; in_progress_deployment: { id: string } };
}

/** The logs answer of a deployment: `type`, maybe one component, maybe followed. */
async function logsOf(app: string, deployment: string, type: string, extra = '') {
  const reply = await call('apps_get_logs_aggregate', {
    params: { app_id: app, deployment_id: deployment },
    query: `?type=${type}${extra}`,
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { live_url?: string; historic_urls?: string[] };
}

/** Every message of a live URL until it closes, and how it closed. */
function readLive(url: string, onMessage: (line: string) => void = () => undefined) {
  const lines: string[] = [];
  const socket = new WebSocket(url.replace(/^http/, 'ws'));
  const closed = new Promise<{ code: number; lines: string[] }>((resolve) => {
    socket.addEventListener('message', (event) => {
      const line = JSON.parse(String(event.data)).data as string;
      lines.push(line);
      onMessage(line);
    });
    socket.addEventListener('close', (event) => resolve({ code: event.code, lines }));
  });
  return { socket, closed };
}

const LINE = /^(web|queue) \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S.*$/;

describe('log URLs', () => {
  it('an archive is a text file for its own token, and is refused without it', async () => {
    const app = await createApp('archived');
    const deployment = app.in_progress_deployment.id;
    await sandbox.advanceClock(20_000);
    const [url = ''] = (await logsOf(app.id, deployment, 'BUILD')).historic_urls ?? [];
    // No Authorization header: the URL's token is its credential.
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const lines = (await file.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    for (const line of lines) expect(line).toMatch(LINE);
    expect(lines.filter((line) => line.startsWith('web '))[5]).toMatch(/ \[build\] Build complete$/);

    const [webOnly = ''] =
      (
        await call('apps_get_logs', {
          params: { app_id: app.id, deployment_id: deployment, component_name: 'web' },
          query: '?type=DEPLOY',
        })
      ).body.historic_urls ?? [];
    expect(webOnly).toMatch(/\/archive\/deploy-web\.log\?token=/);
    const web = (await (await fetch(webOnly)).text()).trimEnd().split('\n');
    expect(web.map((line) => line.replace(/^web \S+ /, ''))).toEqual([
      '[deploy] Pulling the image for web',
      '[deploy] Starting 1 instance',
      '[deploy] Health checks passing',
      '[deploy] Deployed',
    ]);

    const refused = await fetch(url.replace(/token=\w+/, 'token=nope'));
    expect(refused.status).toBe(403);
    expect((await fetch(url.replace(/\?.*/, ''))).status).toBe(403);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(405);
    // A live URL is no file: read as a WebSocket.
    const live = (await logsOf(app.id, deployment, 'RUN')).live_url ?? '';
    expect((await fetch(live)).status).toBe(426);
    // Gone with its app.
    expect((await call('apps_delete', { params: { id: app.id } })).status).toBe(200);
    expect((await fetch(url)).status).toBe(404);
  });

  it('the same archive answers in process, through the in-process client', async () => {
    const inside = await connectSandboxInProcess();
    try {
      const { app } = await inside.client.request<{
        app: { id: string; in_progress_deployment: { id: string } };
      }>({
        method: 'POST',
        path: '/v2/apps',
        body: { spec: { name: 'inside', services: [{ name: 'web', github: GITHUB }] } },
      });
      await inside.sandbox.advanceClock(20_000);
      const logs = await inside.client.request<{ historic_urls: string[] }>({
        method: 'GET',
        path: `/v2/apps/${app.id}/deployments/${app.in_progress_deployment.id}/logs`,
        query: { type: 'DEPLOY' },
      });
      const archive = new URL(logs.historic_urls[0] ?? '');
      expect(archive.origin).toBe(inside.sandbox.url);
      const text = await inside.client.request<string>({
        method: 'GET',
        path: archive.pathname,
        query: { token: archive.searchParams.get('token') ?? '' },
        responseText: true,
      });
      expect(text).toMatch(/^web \S+ \[deploy\] Pulling the image for web\n/);
    } finally {
      await inside.close();
    }
  });

  it('a live URL sends what there is and closes; followed, it streams until the build is over', async () => {
    const app = await createApp('streamed');
    const deployment = app.in_progress_deployment.id;
    await sandbox.advanceClock(2_000);
    const once = await logsOf(app.id, deployment, 'BUILD');
    const first = await readLive(once.live_url ?? '').closed;
    expect(first.code).toBe(1000);
    expect(first.lines.length).toBeGreaterThan(0);
    expect(first.lines.some((line) => line.endsWith('Build complete'))).toBe(false);

    const followed = await logsOf(app.id, deployment, 'BUILD', '&follow=true');
    const seen: string[] = [];
    const stream = readLive(followed.live_url ?? '', (line) => seen.push(line));
    await expect.poll(() => seen.length).toBe(first.lines.length);
    // The build goes on: its next lines come, each once, then the stream ends with it.
    await sandbox.advanceClock(5_000);
    const { code, lines } = await stream.closed;
    expect(code).toBe(1000);
    expect(lines.slice(0, first.lines.length)).toEqual(first.lines);
    expect(lines.filter((line) => line.endsWith('Build complete'))).toHaveLength(2);
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) expect(line).toMatch(LINE);
  });

  it('a followed run streams until the app is deleted; a closing server ends it', async () => {
    const app = await createApp('deleted');
    await sandbox.advanceClock(20_000);
    const run = await logsOf(app.id, app.in_progress_deployment.id, 'RUN', '&follow=true');
    const seen: string[] = [];
    const stream = readLive(run.live_url ?? '', (line) => seen.push(line));
    await expect.poll(() => seen.some((line) => line.endsWith('Listening on port 8080'))).toBe(true);
    expect((await call('apps_delete', { params: { id: app.id } })).status).toBe(200);
    expect((await stream.closed).code).toBe(1000);

    const other = await startSandbox();
    try {
      const kept = await callOperation(other.url, 'apps_create', {
        json: { spec: { name: 'kept', services: [{ name: 'web', github: GITHUB }] } },
      });
      await other.advanceClock(20_000);
      const logs = await callOperation(other.url, 'apps_get_logs_aggregate', {
        params: { app_id: kept.body.app.id, deployment_id: kept.body.app.in_progress_deployment.id },
        query: '?type=RUN&follow=true',
      });
      const open: string[] = [];
      const alive = readLive(logs.body.live_url, (line) => open.push(line));
      await expect.poll(() => open.length).toBeGreaterThan(0);
      await other.close();
      // Broken off, not closed: the client sees an abnormal end.
      expect((await alive.closed).code).toBe(1006);
    } finally {
      await other.close().catch(() => undefined);
    }
  });

  it('speaks only what a log stream needs: the handshake, close and ping; refuses the rest over HTTP', async () => {
    const app = await createApp('frames');
    await sandbox.advanceClock(20_000);
    const run = await logsOf(app.id, app.in_progress_deployment.id, 'RUN', '&follow=true');
    const url = new URL(run.live_url ?? '');
    const raw = (request: string, then?: (socket: ReturnType<typeof connect>, text: () => string) => void) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(url.port), url.hostname);
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString('latin1');
        });
        socket.on('close', () => resolve(text));
        socket.write(request);
        then?.(socket, () => text);
      });
    const handshake = (target: string, key = 'dGhlIHNhbXBsZSBub25jZQ==') =>
      `GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`;
    const masked = (opcode: number, payload: Buffer) => {
      const mask = Buffer.from([1, 2, 3, 4]);
      return Buffer.concat([
        Buffer.from([0x80 | opcode, 0x80 | payload.length]),
        mask,
        payload.map((byte, i) => byte ^ (mask[i % 4] as number)),
      ]);
    };

    // RFC 6455's own example key and answer; a ping is answered with its pong; a close, with a close.
    const answered = await raw(handshake(`${url.pathname}${url.search}`), (socket, text) => {
      const wait = setInterval(() => {
        if (!text().includes('Listening on port')) return;
        clearInterval(wait);
        socket.write(masked(0x9, Buffer.from('hi')));
        socket.write(masked(0x8, Buffer.from([0x03, 0xe8])));
      }, 10);
    });
    expect(answered).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(answered).toContain('sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n');
    expect(answered).toContain('\x8a\x02hi');
    expect(answered.endsWith('\x88\x02\x03\xe8')).toBe(true);

    // An unmasked client frame is a protocol error: closed with 1003.
    const unmasked = await raw(handshake(`${url.pathname}${url.search}`), (socket, text) => {
      const wait = setInterval(() => {
        if (!text().includes('101')) return;
        clearInterval(wait);
        socket.write(Buffer.from([0x81, 0x01, 0x41]));
      }, 10);
    });
    expect(unmasked.endsWith('\x88\x02\x03\xeb')).toBe(true);

    expect(await raw(handshake('/v2/account'))).toMatch(/^HTTP\/1\.1 404 /);
    expect(await raw(handshake(`${url.pathname}?token=nope`))).toMatch(/^HTTP\/1\.1 403 /);
    expect(await raw(handshake(`${url.pathname}${url.search}`, 'short'))).toMatch(/^HTTP\/1\.1 400 /);
  });
});
