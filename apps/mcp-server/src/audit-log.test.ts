/**
 * The audit log through the built server over Streamable HTTP:
 * - a client whose answer was lost (its replica killed while the request was at the API: a 502 at
 *   the client) asks another replica with `audit-list` and the JSON-RPC id of its call whether it
 *   ran: the intent is there (`unknown`: it may have), a finished call is `ok` with the requests it
 *   sent, a call that never came to a request is absent; both replicas' lines make one chain;
 * - `audit-list` on a 150 MiB log reads from its end with bounded memory and time: another
 *   caller's call beside it is served promptly, and the server's peak memory grows by little.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyAudit } from '@cloudcall/guard';
import { writeAuditLog } from '@cloudcall/testing';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { httpRequest, killAll, startHttp } from './testing/process.js';

afterEach(killAll);

const V = { 'mcp-protocol-version': '2025-06-18' };
const temp = () => mkdtempSync(join(tmpdir(), 'cloudcall-audit-log-'));

/** tools/call as a raw JSON-RPC request with the caller's own id; resolves with the result. */
async function toolCall(url: string, id: string | number, name: string, args: Record<string, unknown>) {
  const answer = await httpRequest(url, {
    headers: V,
    body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
  });
  const result = (answer.json as { result?: { isError?: boolean; structuredContent?: unknown } })?.result;
  if (!result) throw new Error(`no result: ${answer.status} ${answer.text}`);
  return result;
}

type Listed = {
  entries: {
    rpc_id?: unknown;
    outcome: string;
    args: { Name?: string };
    request?: unknown;
    requests?: unknown;
  }[];
  more: boolean;
};
const auditList = async (url: string, args: Record<string, unknown>) =>
  (await toolCall(url, `list-${Math.random()}`, 'audit-list', args)).structuredContent as Listed;

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('a call whose answer was lost', () => {
  it('is found by its JSON-RPC id on another replica: its intent (unknown: it may have run), or its outcome', async () => {
    // The platform: answers tag creates, except the one named "hung", which it receives and never answers.
    const received: string[] = [];
    let arrived: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const api = createServer(async (req, res) => {
      const body = await bodyOf(req);
      const name = body ? (JSON.parse(body) as { name?: string }).name : undefined;
      received.push(`${req.method} ${req.url} ${name ?? ''}`.trim());
      if (name === 'hung') {
        arrived();
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': `req-${name}` });
      res.end(JSON.stringify({ tag: { name, resources: { count: 0 } } }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const log = join(temp(), 'audit.jsonl');
      const args = [
        '--transport',
        'http',
        '--port',
        '0',
        '--stateless',
        '--families',
        'vms,account',
        '--api-url',
        `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
        '--audit-log',
        log,
      ];
      const env = { DIGITALOCEAN_ACCESS_TOKEN: 'dop_v1_replicas_0123456789abcdef' };
      const [first, second] = await Promise.all([startHttp(args, env), startHttp(args, env)]);

      const done = await toolCall(first.url, 'client-7f3a-41', 'tag-create', { Name: 'done' });
      expect(done.isError).toBeFalsy();
      const lost = toolCall(first.url, 'client-7f3a-42', 'tag-create', { Name: 'hung' }).catch(
        (error: unknown) => error,
      );
      await hung;
      // The replica dies with the request at the API: its client gets no answer (a 502 behind nginx).
      first.child.kill('SIGKILL');
      expect(await lost).toBeInstanceOf(Error);

      const asked = await auditList(second.url, { RequestID: 'client-7f3a-42' });
      expect(asked.entries).toEqual([
        expect.objectContaining({
          rpc_id: 'client-7f3a-42',
          outcome: 'unknown',
          tool: 'tag-create',
          args: { Name: 'hung' },
          request: { method: 'POST', path: '/v2/tags' },
        }),
      ]);
      expect(received).toContain('POST /v2/tags hung');
      const finished = await auditList(second.url, { RequestID: 'client-7f3a-41' });
      expect(finished.entries).toEqual([
        expect.objectContaining({
          rpc_id: 'client-7f3a-41',
          outcome: 'ok',
          request_id: 'req-done',
          requests: [{ method: 'POST', path: '/v2/tags' }],
        }),
      ]);
      // Numeric ids too; a call refused as invalid sent nothing, and says so (no requests).
      const refused = await toolCall(second.url, 9001, 'tag-create', { Name: 'x'.repeat(300) });
      expect(refused.isError).toBe(true);
      const byNumber = await auditList(second.url, { RequestID: 9001 });
      expect(byNumber.entries).toEqual([expect.objectContaining({ rpc_id: 9001, outcome: 'error' })]);
      expect(byNumber.entries[0]).not.toHaveProperty('requests');
      expect((await auditList(second.url, { RequestID: 'never-made' })).entries).toEqual([]);

      // The intent line itself carries the caller and the id; both replicas' lines are one chain.
      const intent = readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.phase === 'intent' && line.rpc_id === 'client-7f3a-42');
      expect(intent).toMatchObject({ caller: expect.stringMatching(/^local:/), tool: 'tag-create' });
      expect(await verifyAudit([log])).toMatchObject({ intact: true, problems: [] });
    } finally {
      api.closeAllConnections();
      api.close();
    }
  }, 60_000);
});

/** The server's resident memory now, and its peak since the last reset (Linux's /proc). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/** Bytes a process has read so far, through any read call (files and sockets: Linux's /proc). */
function bytesRead(pid: number): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
}

/** Resets a process's peak RSS to its current RSS (clear_refs 5); false where not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

describe('audit-list on a 150 MiB log', () => {
  it('reads from the end, at most its last 32 MiB, beside another caller, and its memory stays bounded', async () => {
    const dir = temp();
    // 150 MiB: not left behind.
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const log = join(dir, 'audit.jsonl');
    const started = Date.now();
    const made = writeAuditLog(log, { bytes: 150 * 1024 * 1024 });
    process.stderr.write(`150 MiB audit log (${made.lines} lines) written in ${Date.now() - started} ms\n`);
    const { url, child } = await startHttp([
      '--transport',
      'http',
      '--port',
      '0',
      '--stateless',
      '--sandbox',
      '--families',
      'account',
      '--audit-log',
      log,
    ]);
    const pid = child.pid as number;
    // Warm: the guard and the account family (balance-get's; audit-list is filed under it too) are
    // loaded before anything is measured.
    await toolCall(url, 'warm-1', 'balance-get', {});
    await toolCall(url, 'warm-2', 'balance-get', {});
    // The server's memory before any audit-list: what reading the log may add to, a little.
    const baseline = memory(pid).rss;

    const timed = async (run: () => Promise<unknown>) => {
      const from = performance.now();
      await run();
      return performance.now() - from;
    };
    const report: string[] = [];
    const MiB = 1024 * 1024;
    // What each may read: the 32 MiB window (and a little for the requests themselves), or for
    // the latest 1000 entries, their own lines.
    for (const [what, args, reads] of [
      ['a filter nothing matches (reads its 32 MiB)', { Tool: 'no-such-tool' }, 34 * MiB],
      ['the latest 1000', { Limit: 1000 }, 8 * MiB],
      ['one request id', { RequestID: 'client-never' }, 34 * MiB],
    ] as const) {
      const peakReset = resetPeak(pid);
      const readBefore = bytesRead(pid);
      let listing = true;
      const listStart = performance.now();
      const listed = auditList(url, args).finally(() => {
        listing = false;
      });
      // Another caller's calls, one after another while audit-list runs (at least one).
      const others: number[] = [];
      do others.push(await timed(() => toolCall(url, `other-${others.length}`, 'balance-get', {})));
      while (listing);
      const result = await listed;
      const listTime = performance.now() - listStart;
      const after = memory(pid);
      const read = bytesRead(pid) - readBefore;
      // Without clear_refs the peak is the process's since it started: the check is then looser.
      const growth = (peakReset ? after.peak : after.rss) - baseline;
      report.push(
        `${what}: ${result.entries.length} entries in ${Math.round(listTime)} ms, read ${(read / MiB).toFixed(1)} MiB, more ${result.more}; other caller ${others.length} calls, slowest ${Math.round(Math.max(...others))} ms; peak RSS +${Math.round(growth / MiB)} MiB`,
      );
      expect(result.more).toBe(true);
      // Bounded reading is what keeps the other caller served (the times above are a figure, not
      // a check: a loaded machine stretches them); its calls all answered.
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(reads);
      expect(others.every((ms) => Number.isFinite(ms))).toBe(true);
      expect(growth).toBeLessThan(128 * MiB);
    }
    process.stderr.write(`${report.join('\n')}\n`);
    const latest = await auditList(url, { Limit: 3 });
    expect(latest.entries.map((entry) => entry.args.Name)).toEqual([
      `generated-${made.lines / 2 - 3}`,
      `generated-${made.lines / 2 - 2}`,
      `generated-${made.lines / 2 - 1}`,
    ]);
  }, 120_000);
});
