/**
 * A real nginx on loopback in front of local replicas, for the replica tests and the benchmark:
 * round-robin, no stickiness, proxying /mcp with the project's own deploy/mcp-proxy.conf, so the
 * settings shipped for deployment are the ones tested. Runs as whoever runs the tests (no root
 * needed): config, pid, logs and temp files all live in a fresh temp directory, `daemon off`.
 * Plain JavaScript (with nginx.d.mts) so that the benchmark's plain node can import it too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accepts, freePort } from './net.mjs';

/** The proxy settings shipped in deploy/ (included inside `location /mcp`). */
export const MCP_PROXY_CONF = fileURLToPath(new URL('../../../deploy/mcp-proxy.conf', import.meta.url));

/** nginx's path: on PATH, or where Debian puts it (/usr/sbin is not on every user's PATH). */
export function findNginx() {
  for (const candidate of ['nginx', '/usr/sbin/nginx', '/usr/local/sbin/nginx']) {
    if (!spawnSync(candidate, ['-v']).error) return candidate;
  }
  throw new Error(
    'nginx is not installed (apt-get install nginx; .ci/run installs it): the replica tests run a real nginx in front of the servers',
  );
}

/**
 * The whole nginx.conf: one upstream of the given loopback ports, /mcp and --auth oauth's
 * metadata (/.well-known/oauth-protected-resource...) proxied to it, as deploy/nginx.conf does.
 */
export function nginxConfig({ dir, port, upstreams }) {
  const servers = upstreams
    .map((up) => `    server 127.0.0.1:${up} max_fails=1 fail_timeout=30s;`)
    .join('\n');
  const root = process.getuid?.() === 0 ? 'user root;\n' : '';
  return `${root}daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 2048; }
http {
  log_format upstreams '$msec $request_id $status $upstream_addr $upstream_status $request_time';
  access_log ${join(dir, 'access.log')} upstreams;
  client_body_temp_path ${join(dir, 'client_body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  upstream cloudcall {
${servers}
    keepalive 64;
    keepalive_timeout 60s;
  }
  server {
    listen 127.0.0.1:${port};
    location /mcp {
      set $cloudcall_upstream cloudcall;
      include ${MCP_PROXY_CONF};
    }
    location /.well-known/oauth-protected-resource {
      set $cloudcall_upstream cloudcall;
      include ${MCP_PROXY_CONF};
    }
  }
}
`;
}

/**
 * Starts nginx and resolves once it accepts connections: with nginxConfig's configuration, or
 * with `config`'s (given the directory to keep its files in and the port to listen on).
 */
export async function startNginx({ upstreams = [], config }) {
  const nginx = findNginx();
  const dir = mkdtempSync(join(tmpdir(), 'cloudcall-nginx-'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, config ? config({ dir, port }) : nginxConfig({ dir, port, upstreams }));
  const child = spawn(nginx, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const errorLog = () =>
    existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
  for (let attempt = 1; !(await accepts(port)); attempt++) {
    if (child.exitCode !== null || attempt === 100) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start on ${port}: ${stderr}${errorLog()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    errorLog,
    accessLog: () => readFileSync(join(dir, 'access.log'), 'utf8'),
    stop: async () => {
      if (child.exitCode === null) {
        await new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
