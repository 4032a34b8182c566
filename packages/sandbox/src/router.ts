/**
 * Which route answers a request. Of the routes whose path matches, the most specific wins: a
 * literal segment beats a parameter at the first place they differ, reading from the left
 * (`/v2/droplets/autoscale` before `/v2/droplets/{id}`), as the API description's own paths
 * intend; of equally specific routes, the first listed (hand models are listed before the
 * generic layer, which has no route of their shapes anyway).
 */
import type { Route } from './http.js';

export interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

export type RouteMatch =
  | { route: CompiledRoute; params: Record<string, string> }
  /** No route for the method; `pathKnown` when one matches the path with another method (a 405). */
  | { route: undefined; pathKnown: boolean };

export interface Router {
  /** Every route, in the order they are tried. */
  readonly routes: readonly CompiledRoute[];
  /** The route for a request's method and path (HEAD is the caller's to map to GET). */
  match(method: string, path: string): RouteMatch;
}

/** A path pattern's regular expression, and the names of its parameters in order. */
export function compileRoute(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}/?$`), names };
}

const compile = (route: Route): CompiledRoute => ({ ...route, ...compileRoute(route.path) });

/** `0` for each literal segment, `1` for each parameter: ordered as text, the specific come first. */
const rank = (path: string) =>
  path
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? '1' : '0'))
    .join('');

export function createRouter(routes: readonly Route[]): Router {
  // Array.prototype.sort is stable: equally specific routes keep their order.
  const compiled = routes
    .map((route) => ({ route: compile(route), rank: rank(route.path) }))
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))
    .map(({ route }) => route);
  return {
    routes: compiled,
    match(method, path) {
      let pathKnown = false;
      for (const route of compiled) {
        const found = route.pattern.exec(path);
        if (!found) continue;
        pathKnown = true;
        if (route.method !== method) continue;
        const params: Record<string, string> = {};
        route.names.forEach((name, i) => {
          // parseTarget has checked that every segment decodes.
          params[name] = decodeURIComponent(found[i + 1] ?? '');
        });
        return { route, params };
      }
      return { route: undefined, pathKnown };
    },
  };
}
