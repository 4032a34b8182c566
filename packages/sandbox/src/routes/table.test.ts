/**
 * The route table the sandbox matches requests on is what its routes make now (nothing
 * regenerates it but `pnpm generate`), and the router loads a family's routes only when a request
 * needs them: one route of each family is resolved to that family's own code, and a request to
 * the account routes loads no other family's module and not the generic layer.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAMILIES, type FamilyName, handRoutes } from './families.js';
import { sandboxRouter } from './index.js';
import { ROUTE_TABLE } from './table.generated.js';
import { fullRouter, tableOf } from './table.js';

const hand = await handRoutes();

describe('the route table', () => {
  it('is what the routes make now: every route, in the order the full router tries them (pnpm generate)', () => {
    expect(ROUTE_TABLE).toEqual(tableOf(fullRouter(hand)));
  });

  it('is what scripts/generate-routes.mjs writes from the built routes', () => {
    const script = fileURLToPath(new URL('../../scripts/generate-routes.mjs', import.meta.url));
    const run = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(`${run.stderr}${run.status}`).toBe('0');
  }, 60_000);

  it('lists every family, and matches as the full router does, 405s and unknown paths included', () => {
    expect(new Set(ROUTE_TABLE.map((row) => row[2]).filter(Boolean))).toEqual(new Set(Object.keys(FAMILIES)));
    const full = fullRouter(hand);
    const lazy = sandboxRouter();
    const tries: [string, string][] = [
      ['GET', '/v2/account/keys'],
      ['GET', '/v2/account/keys/abc'],
      ['PUT', '/v2/account'],
      ['GET', '/v2/droplets/autoscale'],
      ['GET', '/v2/droplets/123/'],
      ['GET', '/v2/nothing/here'],
      ['GET', '/v3/account'],
      ['GET', '/'],
      ['DELETE', '/v2/projects/default'],
      ...ROUTE_TABLE.map(([method, path]): [string, string] => [method, path.replace(/\{\w+\}/g, 'x%20y')]),
    ];
    for (const [method, path] of tries) {
      const want = full.match(method, path);
      const got = lazy.match(method, path);
      expect(got.route ? [got.route.method, got.route.path, got.params] : got, `${method} ${path}`).toEqual(
        want.route ? [want.route.method, want.route.path, want.params] : want,
      );
    }
  });

  it("resolves a route to its family's own handler, and a generic one to the generic layer's", async () => {
    const lazy = sandboxRouter();
    const full = fullRouter(hand);
    const firstOf = new Map<FamilyName | null, (typeof ROUTE_TABLE)[number]>();
    for (const row of ROUTE_TABLE) if (!firstOf.has(row[2])) firstOf.set(row[2], row);
    for (const [family, [method, path]] of firstOf) {
      const concrete = path.replace(/\{\w+\}/g, '7');
      const got = await lazy.resolve(method, concrete);
      const want = full.match(method, concrete);
      if (!got.route || !want.route) throw new Error(`${method} ${concrete} is not routed`);
      expect(got.params).toEqual(want.params);
      if (family === null) expect(got.route.operationId).toBe(want.route.operationId);
      else expect(got.route.handler).toBe(want.route.handler);
      expect(Boolean(got.route.ownLengths), `${family}`).toBe(Boolean(want.route.ownLengths));
    }
  });
});

describe('loading on demand', () => {
  it('loads the account routes alone for a request to them (a fresh process)', () => {
    // A process of its own: this file's other tests load every family. The built router, as the
    // CLI's bundle runs it, with Node's module loader reporting each module it loads.
    const program = `
      const { sandboxRouter } = await import('./routes/index.js');
      const found = await sandboxRouter().resolve('GET', '/v2/account/keys');
      console.log(JSON.stringify({ path: found.route.path }));`;
    const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
      cwd: dist,
      encoding: 'utf8',
      env: { ...process.env, NODE_DEBUG: 'esm' },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toEqual({ path: '/v2/account/keys' });
    const loaded = [...run.stderr.matchAll(/dist\/((?:routes|generic)\/[\w.-]+\.js)/g)].map(
      (m) => m[1] ?? '',
    );
    expect(loaded).toContain('routes/account.js');
    const others = new Set(
      loaded.filter(
        (file) => !/^routes\/(account|actions|invoice-files|index|families|table\.generated)\.js$/.test(file),
      ),
    );
    expect([...others]).toEqual([]);
  });
});
