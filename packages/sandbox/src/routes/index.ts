/**
 * The sandbox's router, loading routes as requests need them: requests are matched on the
 * generated route table (every route, hand and generic, most specific first, as createRouter
 * orders them), and only the family whose route matches is imported, or the generic layer
 * (its 150 KB of answers) when the match is one of its routes. A command that lists SSH keys
 * loads the account routes and nothing else.
 */
import type { Route } from '../http.js';
import { type CompiledRoute, compileRoute, type RouteMatch } from '../router.js';
import { type FamilyName, familyRoutes } from './families.js';
import { ROUTE_TABLE } from './table.generated.js';
import type { TableRow } from './table.js';

/** A route of the table as matched before its code is loaded. */
export interface TableRoute {
  method: Route['method'];
  path: string;
  /** The family whose module holds it; undefined for the generic layer's. */
  family: FamilyName | undefined;
  /** The operation the generic layer answers here (unset on hand routes). */
  operationId: string | undefined;
}

/** A match on the table: the route without its code. */
export type TableMatch =
  | { route: TableRoute; params: Record<string, string> }
  | { route: undefined; pathKnown: boolean };

export interface SandboxRouter {
  /** The route for a method and path, from the table alone: nothing is loaded. */
  match(method: string, path: string): TableMatch;
  /** The route for a method and path, its code loaded (HEAD is the caller's to map to GET). */
  resolve(method: string, path: string): Promise<RouteMatch>;
}

interface Row {
  index: number;
  row: TableRow;
  compiled?: { pattern: RegExp; names: string[] };
}

/**
 * The segment rows are filed under: the one after `/v2/`, or `*` when it is a parameter. Found
 * with indexOf rather than split and a pattern: every command the sandbox answers files the whole
 * table first.
 */
const bucketOf = (path: string) => {
  const second = path.indexOf('/', path.indexOf('/') + 1);
  if (second < 0) return '';
  const end = path.indexOf('/', second + 1);
  const segment = path.slice(second + 1, end < 0 ? undefined : end);
  return segment.startsWith('{') && /^\{\w+\}$/.test(segment) ? '*' : segment;
};

let router: SandboxRouter | undefined;

/** The sandbox's router; its table is read when first needed. */
export function sandboxRouter(): SandboxRouter {
  router ??= lazyRouter(ROUTE_TABLE);
  return router;
}

function lazyRouter(table: readonly TableRow[]): SandboxRouter {
  // Rows filed by their first segment after /v2/, so that a match tries the few of its resource
  // (and compiles only their patterns); rows with a parameter there are tried with every path.
  const buckets = new Map<string, Row[]>();
  table.forEach((row, index) => {
    const key = bucketOf(row[1]);
    const bucket = buckets.get(key) ?? [];
    bucket.push({ index, row });
    buckets.set(key, bucket);
  });
  const anywhere = buckets.get('*') ?? [];
  const candidates = (path: string): Row[] => {
    const own = buckets.get(bucketOf(path)) ?? [];
    if (!anywhere.length) return own;
    return [...own, ...anywhere].sort((a, b) => a.index - b.index);
  };

  function find(method: string, path: string): { row: Row; params: Record<string, string> } | boolean {
    let pathKnown = false;
    for (const entry of candidates(path)) {
      const [rowMethod, pattern] = entry.row;
      entry.compiled ??= compileRoute(pattern);
      const found = entry.compiled.pattern.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (rowMethod !== method) continue;
      const params: Record<string, string> = {};
      entry.compiled.names.forEach((name, i) => {
        // parseTarget has checked that every segment decodes.
        params[name] = decodeURIComponent(found[i + 1] ?? '');
      });
      return { row: entry, params };
    }
    return pathKnown;
  }

  // The generic layer, made once when a request first needs it.
  let generic: Promise<Map<string, Route>> | undefined;
  const genericLayer = () => {
    generic ??= import('../generic/routes.js').then(({ genericRoutes }) => {
      const hand = table.filter((row) => row[2] !== null).map(([method, path]) => ({ method, path }));
      const routes = genericRoutes(hand, lookupLoaded);
      return new Map(routes.map((route) => [route.operationId as string, route]));
    });
    return generic;
  };
  // What has been loaded, for the generic layer's look-ups (which run inside a transaction).
  const loadedFamilies = new Map<FamilyName, Map<string, Route>>();
  let loadedGeneric: Map<string, Route> | undefined;

  const compiled = (entry: Row, route: Route): CompiledRoute => ({
    ...route,
    ...(entry.compiled ?? compileRoute(entry.row[1])),
  });

  /** The code of a matched row, once loaded (undefined when it is not). */
  function loadedRoute(entry: Row): Route | undefined {
    const [method, path, family, operationId] = entry.row;
    if (family === null) return loadedGeneric?.get(operationId as string);
    return loadedFamilies.get(family)?.get(`${method} ${path}`);
  }

  async function load(entry: Row): Promise<Route> {
    const [method, path, family, operationId] = entry.row;
    if (family === null) {
      loadedGeneric = await genericLayer();
    } else if (!loadedFamilies.has(family)) {
      const byRoute = new Map<string, Route>();
      // The first of a method and path, as the router tries them.
      for (const route of await familyRoutes(family)) {
        const key = `${route.method} ${route.path}`;
        if (!byRoute.has(key)) byRoute.set(key, route);
      }
      loadedFamilies.set(family, byRoute);
    }
    const route = loadedRoute(entry);
    if (!route)
      throw new Error(`the route table is stale: ${method} ${path} (${family ?? operationId}) is gone`);
    return route;
  }

  /** The generic layer's look-up: matches among loaded routes only (resolve loads what it needs). */
  function lookupLoaded(method: string, path: string): RouteMatch {
    const found = find(method, path);
    if (typeof found === 'boolean') return { route: undefined, pathKnown: found };
    const route = loadedRoute(found.row);
    if (!route)
      throw new Error(`${method} ${path}: its route was not loaded before the generic layer needed it`);
    return { route: compiled(found.row, route), params: found.params };
  }

  return {
    match(method, path) {
      const found = find(method, path);
      if (typeof found === 'boolean') return { route: undefined, pathKnown: found };
      const [rowMethod, rowPath, family, operationId] = found.row.row;
      return {
        route: { method: rowMethod, path: rowPath, family: family ?? undefined, operationId },
        params: found.params,
      };
    },
    async resolve(method, path) {
      const found = find(method, path);
      if (typeof found === 'boolean') return { route: undefined, pathKnown: found };
      const route = await load(found.row);
      if (found.row.row[2] === null) {
        // A generic route reads what the path names first (a GET of each shorter path ending in a
        // parameter), whichever family's it is: those families are loaded now.
        // Each as sent, and as the layer spells it (its parameters decoded, then encoded again).
        const segments = path.split('/');
        const respelled = segments.map((segment) => encodeURIComponent(decodeURIComponent(segment)));
        for (let count = 3; count < segments.length; count++) {
          for (const above of new Set([segments, respelled].map((list) => list.slice(0, count).join('/')))) {
            const row = find('GET', above);
            if (typeof row !== 'boolean') await load(row.row);
          }
        }
      }
      return { route: compiled(found.row, route), params: found.params };
    },
  };
}
