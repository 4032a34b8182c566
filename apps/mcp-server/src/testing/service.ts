/**
 * Test helpers for the server as a team service: a loopback stand-in for the API that records
 * which token and which replica each request came with (and can hold answers back), replicas of
 * the built server behind a real nginx, and a Prometheus scrape read with a real text-format
 * parser.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Nginx, startNginx } from '@cloudcall/testing/nginx';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import { startHttp } from './process.js';

export interface Upstream {
  /** The replica that sent it: each replica gets its own --api-url prefix, /<replica>. */
  replica: string;
  /** The bearer token it carried. */
  token: string;
  /** The SSH key id asked for (key-get). */
  id: number;
}

export interface StandInApi {
  /** The --api-url for a replica: requests through it are recorded as that replica's. */
  urlFor(replica: string): string;
  seen: Upstream[];
  /** Requests held back (not answered) while `hold` names their replica, or `holdToken` their token. */
  held: (Upstream & { res: ServerResponse })[];
  hold: string | undefined;
  holdToken?: string | undefined;
  /** Answers every held request. */
  release(): void;
  /** Statuses to answer key-get with before the usual 200, one per request (such as 429). */
  script: number[];
  close(): Promise<void>;
}

/** The API stand-in: GET /<replica>/v2/account/keys/<id> answers that key; anything else 401. */
export async function startStandInApi(): Promise<StandInApi> {
  const api: StandInApi = {
    urlFor: () => '',
    seen: [],
    held: [],
    hold: undefined,
    script: [],
    release() {
      for (const request of api.held.splice(0)) answer(request.res, request.id);
    },
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const match = /^\/(\w+)\/v2\/account\/keys\/(\d+)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!match) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'unauthorized', message: 'Unable to authenticate you.' }));
      return;
    }
    const upstream = { replica: match[1] as string, token, id: Number(match[2]) };
    api.seen.push(upstream);
    const scripted = api.script.shift();
    if (scripted !== undefined) {
      res.writeHead(scripted, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ id: `status_${scripted}`, message: `scripted ${scripted}` }));
    } else if (api.hold === upstream.replica || api.holdToken === upstream.token) {
      api.held.push({ ...upstream, res });
    } else {
      answer(res, upstream.id);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  api.urlFor = (replica) => `http://127.0.0.1:${port}/${replica}`;
  api.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return api;
}

function answer(res: ServerResponse, id: number): void {
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ ssh_key: { id, name: `key ${id}`, fingerprint: 'f', public_key: 'ssh-ed25519 AAAA' } }),
  );
}

/** An official SDK client over Streamable HTTP, sending `authorization` with every request. */
export async function httpClient(url: string, authorization?: string): Promise<Client> {
  const client = new Client({ name: 'service-test', version: '1.0.0' });
  const headers: Record<string, string> = authorization ? { authorization } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** GET <server>/metrics, parsed as Prometheus text by a real parser. */
export async function scrape(mcpUrl: string): Promise<MetricFamily[]> {
  const answer = await fetch(new URL('/metrics', mcpUrl));
  if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}`);
  expectType(answer.headers.get('content-type') ?? '');
  return parsePrometheusTextFormat(await answer.text());
}

function expectType(type: string): void {
  if (!type.startsWith('text/plain; version=0.0.4')) throw new Error(`/metrics content type ${type}`);
}

/** The value of the sample of `name` whose labels include `labels` (0 when there is none). */
export function sample(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((candidate) => candidate.name === name);
  if (!family) throw new Error(`no metric ${name} in the scrape`);
  const found = family.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  return Number(found?.value ?? 0);
}

/**
 * Observations in a histogram, all series together: the sum of their +Inf buckets (this parser
 * keeps neither the labels nor _count of histogram series, only their buckets).
 */
export function observations(families: MetricFamily[], name: string): number {
  const family = families.find((candidate) => candidate.name === name && candidate.type === 'HISTOGRAM');
  if (!family) throw new Error(`no histogram ${name} in the scrape`);
  return family.metrics.reduce((total, metric) => total + Number(metric.buckets?.['+Inf'] ?? 0), 0);
}

/** A replica of the built server, a process of its own. */
export interface Replica {
  name: string;
  url: string;
  output: () => string;
  child: ChildProcess;
}

/**
 * Replicas of the built server, one per name, stateless and passing each caller's token through,
 * serving the Host nginx passes on (127.0.0.1, any port), each with the flags `flags` gives it;
 * and a real nginx in front of them (round-robin, the proxy settings shipped in deploy/). The
 * caller stops nginx (`nginx.stop`) and the replicas (process.js `killAll`).
 */
export async function startReplicas(
  names: readonly string[],
  flags: (name: string) => string[],
  nodeArgs: string[] = [],
): Promise<{ replicas: Replica[]; nginx: Nginx }> {
  const replicas = await Promise.all(
    names.map(async (name) => {
      const started = await startHttp(
        [
          ...['--transport', 'http', '--port', '0', '--stateless', '--auth', 'token-passthrough'],
          ...['--allowed-hosts', '127.0.0.1', ...flags(name)],
        ],
        {},
        nodeArgs,
      );
      return { name, ...started };
    }),
  );
  const nginx = await startNginx({ upstreams: replicas.map((replica) => Number(new URL(replica.url).port)) });
  return { replicas, nginx };
}
