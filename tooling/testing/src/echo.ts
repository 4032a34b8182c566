/**
 * A hostile stand-in for the platform API on loopback that echoes the caller's bearer token back
 * in every place an answer can carry text: deep in a long non-JSON error body, in the error id,
 * the request id, the `x-request-id` header, a redirect's `Location` and a successful result.
 * The secrets tests point both apps at it and look for any part of the token in what they show.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EchoingApi {
  url: string;
  /** Request paths seen, in order. */
  seen: string[];
  close(): Promise<void>;
}

/** Where each kind of echo is answered. */
export const ECHO_PATHS = {
  /** 401, text/plain: the token after 180 characters of padding (past the old 200-character cut). */
  longBody: '/v2/account',
  /** 404 JSON with the token in `id`, `message` and `request_id`, and in `x-request-id`. */
  errorFields: '/v2/account/keys/1',
  /** 404 JSON without a request id in the body: the `x-request-id` header (the token) is used. */
  requestIdHeader: '/v2/account/keys/2',
  /** 200 JSON result holding the token. */
  result: '/v2/account/keys',
  /** 302 with the token in `Location`. */
  redirect: '/v2/actions',
} as const;

export async function startEchoingApi(): Promise<EchoingApi> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? 'no-token';
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push(path);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    switch (path) {
      case ECHO_PATHS.longBody:
        res.writeHead(401, { 'content-type': 'text/plain' });
        res.end(`${'Unable to authenticate you. '.repeat(7).slice(0, 180)}${token} ${'.'.repeat(100)}`);
        return;
      case ECHO_PATHS.errorFields:
        json(
          404,
          { id: `not_found:${token}`, message: `no key for ${token}`, request_id: `req-${token}` },
          { 'x-request-id': token },
        );
        return;
      case ECHO_PATHS.requestIdHeader:
        json(
          404,
          { id: 'not_found', message: 'The resource could not be found.' },
          { 'x-request-id': token },
        );
        return;
      case ECHO_PATHS.result:
        json(
          200,
          {
            ssh_keys: [{ id: 1, name: token, fingerprint: 'f', public_key: 'k' }],
            links: {},
            meta: { total: 1 },
          },
          { 'x-request-id': token },
        );
        return;
      case ECHO_PATHS.redirect:
        res.writeHead(302, { location: `https://elsewhere.invalid/?t=${token}`, 'x-request-id': token });
        res.end();
        return;
      default:
        json(404, { id: 'not_found', message: `nothing at ${path}` });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A token shaped as the platform's personal access tokens. */
export const ECHO_TOKEN = `dop_v1_${'5e1f'.repeat(16)}`;

/** Every 8-character run of a secret that appears in `text` (none, when nothing leaked). */
export function secretRuns(text: string, secret: string = ECHO_TOKEN): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) {
    const run = secret.slice(i, i + 8);
    if (text.includes(run)) found.push(run);
  }
  return found;
}
