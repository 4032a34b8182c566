/**
 * The server as a team service: two stateless replicas behind a real nginx (Debian's package,
 * round-robin, no stickiness, the proxy settings shipped in deploy/), 50 official-SDK clients at
 * once, each passing its own API token through, against a loopback API stand-in that records
 * which replica and which token every request came with.
 *
 * Two replicas show what more would: a client's consecutive calls land on different processes,
 * each replica counts only its own, and one dies under load while the other carries on. The
 * concurrency that could mix tokens up is the 50 clients in flight at once; each replica's start
 * and first calls (loading and compiling the tools) cost more than its share of the calls.
 */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@cloudcall/testing';
import { MCP_PROXY_CONF, type Nginx, startNginx } from '@cloudcall/testing/nginx';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { startStandInDns } from './testing/dns.js';
import { httpRequest, killAll, startHttp } from './testing/process.js';
import {
  httpClient,
  observations,
  type Replica,
  type StandInApi,
  sample,
  scrape,
  startReplicas,
  startStandInApi,
} from './testing/service.js';

const CLIENTS = 50;
const CALLS = 8;
const REPLICAS = ['r1', 'r2'];
// 400 calls through nginx on a small CI machine: room to finish, not a speed test.
const LONG = 120_000;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  killAll();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The stand-in API, the replicas of the built server (one --api-url prefix each), nginx. */
async function startService(): Promise<{ api: StandInApi; replicas: Replica[]; nginx: Nginx }> {
  const api = await startStandInApi();
  cleanup.push(api.close);
  // nginx's port is known only once it starts, and the replicas must allow it in Host: the
  // replicas allow the name nginx passes on, 127.0.0.1 on any port.
  const { replicas, nginx } = await startReplicas(REPLICAS, (name) => [
    ...['--api-url', api.urlFor(name), '--families', 'account'],
  ]);
  cleanup.push(nginx.stop);
  return { api, replicas, nginx };
}

/** Each client's token: its index, to tell whose it is, and a random part nobody else has. */
const tokenOf = (client: number) => `caller-${client}-${randomUUID()}`;
/** The key id a client asks for in a call: whose call it is, and which. */
const keyId = (client: number, n: number) => client * 1000 + n + 1;

/** The service, and CLIENTS SDK clients connected through nginx, each with its own token. */
async function startServiceWithClients() {
  const service = await startService();
  const tokens = Array.from({ length: CLIENTS }, (_, client) => tokenOf(client));
  const clients: Client[] = await Promise.all(
    tokens.map((token) => httpClient(service.nginx.url, `Bearer ${token}`)),
  );
  cleanup.push(async () => void (await Promise.all(clients.map((client) => client.close()))));
  return { ...service, tokens, clients };
}

describe('stateless replicas behind nginx, passing each caller token through', () => {
  // One service for both rounds: its replicas' start and first calls cost more than the calls.
  it(
    '50 clients x 8 calls all succeed, spread over both replicas, each upstream request with its caller token; then a replica killed mid-run fails only the calls in flight on it, and every next call succeeds',
    async () => {
      const { api, replicas, nginx, tokens, clients } = await startServiceWithClients();

      const results = await Promise.all(
        clients.map(async (client, index) => {
          const answers: unknown[] = [];
          for (let n = 0; n < CALLS; n++) {
            const result = await call(client, 'key-get', { ID: keyId(index, n) });
            answers.push(
              result.isError ? result.text : (result.json as { ssh_key: { id: number } }).ssh_key.id,
            );
          }
          return answers;
        }),
      );
      // Every call succeeded with its own answer.
      expect(results).toEqual(
        tokens.map((_, index) => Array.from({ length: CALLS }, (_, n) => keyId(index, n))),
      );

      // One upstream request per call, each carrying the token of the client that made the call.
      expect(api.seen).toHaveLength(CLIENTS * CALLS);
      const wrong = api.seen.filter((upstream) => upstream.token !== tokens[Math.floor(upstream.id / 1000)]);
      expect(wrong).toEqual([]);
      expect(new Set(api.seen.map((upstream) => upstream.id)).size).toBe(CLIENTS * CALLS);

      // Round-robin without stickiness: every replica answered calls (and initializes) of many clients.
      const perReplica = REPLICAS.map((name) => api.seen.filter((upstream) => upstream.replica === name));
      for (const served of perReplica) {
        expect(served.length).toBeGreaterThan(CLIENTS * CALLS * 0.3);
        expect(new Set(served.map((upstream) => Math.floor(upstream.id / 1000))).size).toBeGreaterThan(10);
      }

      // Each replica's /metrics, parsed as Prometheus text, counts exactly the calls it served.
      for (const [index, replica] of replicas.entries()) {
        const metrics = await scrape(replica.url);
        expect(sample(metrics, 'cloudcall_tool_calls_total', { tool: 'key-get', outcome: 'ok' })).toBe(
          perReplica[index]?.length,
        );
        expect(sample(metrics, 'cloudcall_upstream_responses_total', { status: '200' })).toBe(
          perReplica[index]?.length,
        );
        expect(observations(metrics, 'cloudcall_tool_call_duration_seconds')).toBe(perReplica[index]?.length);
        expect(sample(metrics, 'cloudcall_sessions_open')).toBe(0);
      }

      // The logs are JSON lines with request ids (nginx's), and hold no caller's token.
      for (const replica of replicas) {
        const lines = replica.output().trim().split('\n');
        const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
        const requests = parsed.filter((line) => line.msg === 'request');
        expect(requests.length).toBeGreaterThan(CALLS);
        for (const line of requests) expect(line.req_id).toMatch(/^[0-9a-f]{32}$/);
        for (const token of tokens) {
          expect(replica.output()).not.toContain(token.slice(-12));
        }
      }
      expect(nginx.errorLog()).not.toMatch(/\[(error|crit|alert|emerg)\]/);

      // The second round, on the same clients: the first calls run freely, then one replica dies.
      const roundTwo = api.seen.length;
      let finished = 0;
      const outcomes = Promise.all(
        clients.map(async (client, index) => {
          const failed: number[] = [];
          for (let n = CALLS; n < 2 * CALLS; n++) {
            const id = keyId(index, n);
            try {
              const result = await call(client, 'key-get', { ID: id });
              if (result.isError) failed.push(id);
            } catch {
              failed.push(id); // nginx answered 502: the replica died with the call
            }
            // The first calls run freely; then r2 stops getting answers, until every client still
            // running has a call in flight on r2 (round-robin brings each one there).
            if (api.seen.length >= roundTwo + CLIENTS * 2) api.hold ??= 'r2';
          }
          finished++;
          return failed;
        }),
      );
      while (api.hold === undefined || api.held.length === 0 || api.held.length < CLIENTS - finished) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const inFlight = api.held.map((upstream) => upstream.id).sort();
      const seenBefore = api.seen.length;
      const r2 = replicas[1] as Replica;
      await new Promise((resolve) => {
        r2.child.once('exit', resolve);
        r2.child.kill('SIGKILL');
      });
      api.hold = undefined;
      api.release(); // their replica is gone: nobody is left to read these answers

      const failed = (await outcomes).flat().sort();
      // Exactly the calls in flight on the killed replica failed; every other call, each client's
      // next one included, succeeded.
      expect(inFlight.length).toBeGreaterThan(0);
      expect(failed).toEqual(inFlight);
      const after = api.seen.slice(seenBefore);
      expect(after.length).toBe(roundTwo + CLIENTS * CALLS - seenBefore);
      expect(after.filter((upstream) => upstream.replica === 'r2')).toEqual([]);
      expect(new Set(after.map((upstream) => upstream.replica))).toEqual(new Set(['r1']));
      expect(
        api.seen.filter((upstream) => upstream.token !== tokens[Math.floor(upstream.id / 1000)]),
      ).toEqual([]);

      // No caller's token reached a log, the dead replica's included.
      for (const replica of replicas) {
        for (const token of tokens) expect(replica.output()).not.toContain(token.slice(-12));
      }
    },
    LONG,
  );
});

describe("deploy/nginx.conf (Compose's balancer) follows the replicas' addresses in DNS", () => {
  it(
    'serves a replica that came back at a new address, and replicas added by --scale, without restarting',
    async () => {
      const api = await startStandInApi();
      cleanup.push(api.close);
      const dns = await startStandInDns();
      cleanup.push(dns.close);
      // Docker's DNS server and the service's port, made loopback ones; the rest as shipped:
      // the name `mcp` is still resolved, by the stand-in DNS (answers valid 1 s, not 10).
      const port = await freePort();
      const shipped = readFileSync(new URL('../../../deploy/nginx.conf', import.meta.url), 'utf8');
      const nginx = await startNginx({
        config: ({ dir, port: listen }) => {
          const config = shipped
            .replace('resolver 127.0.0.11 valid=10s', `resolver 127.0.0.1:${dns.port} valid=1s`)
            .replace('$cloudcall_upstream mcp:3333;', `$cloudcall_upstream mcp:${port};`)
            .replace('listen 8080;', `listen 127.0.0.1:${listen};`)
            // The config's own /tmp paths, before any path of this checkout (which may be under /tmp) goes in.
            .replace(/\/tmp\//g, `${dir}/`)
            .replaceAll('/etc/nginx/mcp-proxy.conf', MCP_PROXY_CONF)
            .replace('error_log /dev/stderr', `error_log ${join(dir, 'error.log')}`)
            .replace('access_log /dev/stdout', `access_log ${join(dir, 'access.log')}`);
          expect(config).toContain(`mcp:${port};`);
          expect(config).toContain(`resolver 127.0.0.1:${dns.port}`);
          // As root (CI containers), nginx's workers would run as nobody, who cannot write `dir`.
          return `${process.getuid?.() === 0 ? 'user root;\n' : ''}daemon off;\n${config}`;
        },
      });
      cleanup.push(nginx.stop);
      // Each replica on its own loopback address, all on the service's one port, as in Compose.
      const replica = (name: string, address: string) =>
        startHttp([
          ...['--transport', 'http', '--host', address, '--port', String(port), '--stateless'],
          ...['--auth', 'token-passthrough', '--api-url', api.urlFor(name), '--allowed-hosts', '127.0.0.1'],
          ...['--families', 'account'],
        ]);
      let n = 0;
      /** One call through nginx: the replica that served it, or nginx's status when none did. */
      const callThrough = async (): Promise<string> => {
        const id = ++n;
        const answer = await httpRequest(nginx.url, {
          body: {
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'key-get', arguments: { ID: id } },
          },
          headers: { authorization: 'Bearer caller-token-0123456789' },
        });
        if (answer.status !== 200) return String(answer.status);
        return api.seen.find((upstream) => upstream.id === id)?.replica ?? 'not served';
      };
      /** Calls until one is served by a replica in `names` (nginx follows DNS within `valid`). */
      const until = async (names: string[]): Promise<string[]> => {
        const served: string[] = [];
        for (const deadline = Date.now() + 10_000; !names.includes(served.at(-1) ?? ''); ) {
          if (Date.now() > deadline) throw new Error(`never served by ${names}: ${served.join(' ')}`);
          served.push(await callThrough());
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return served;
      };

      dns.records.set('mcp', ['127.0.0.2']);
      const first = await replica('first', '127.0.0.2');
      expect(await callThrough()).toBe('first');
      expect(dns.asked).toContain('mcp');

      // The replica restarts at a new address: nginx, asking DNS again, finds it there.
      await new Promise((resolve) => {
        first.child.once('exit', resolve);
        first.child.kill('SIGTERM');
      });
      await replica('restarted', '127.0.0.3');
      dns.records.set('mcp', ['127.0.0.3']);
      await until(['restarted']);
      for (let i = 0; i < 4; i++) expect(await callThrough()).toBe('restarted');

      // Scaled up to two: both serve.
      await replica('added', '127.0.0.4');
      dns.records.set('mcp', ['127.0.0.3', '127.0.0.4']);
      await until(['added']);
      // Each nginx worker asks DNS on its own (within `valid` of its last answer), so for a moment
      // a call may reach one that knows only the first: calls go on until both have answered (or
      // ten seconds pass), and nothing else answers meanwhile.
      const spread = new Set<string>();
      for (const deadline = Date.now() + 10_000; spread.size < 2 && Date.now() < deadline; ) {
        spread.add(await callThrough());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(spread).toEqual(new Set(['restarted', 'added']));
    },
    LONG,
  );
});
