/**
 * The route table: every route the sandbox answers, hand and generic, as the router tries them
 * (most specific first), without their code. scripts/generate-routes.mjs writes it to
 * table.generated.ts from the built routes; index.ts matches requests on it and imports a
 * family's routes, or the generic layer, only when a request needs them.
 */
import { genericRoutes } from '../generic/routes.js';
import type { Route } from '../http.js';
import { createRouter, type Router } from '../router.js';
import type { FamilyName, HandRoute } from './families.js';

/**
 * One route: its method, its path pattern, and the family whose module holds it, or `null` and
 * the operation the generic layer answers.
 */
export type TableRow =
  | readonly [method: Route['method'], path: string, family: FamilyName]
  | readonly [method: Route['method'], path: string, family: null, operationId: string];

/** The router over every route, hand and generic, loaded at once (the table's source). */
export function fullRouter(hand: readonly HandRoute[]): Router {
  let router: Router | undefined;
  router = createRouter([
    ...hand,
    ...genericRoutes(hand, (method, path) => (router as Router).match(method, path)),
  ]);
  return router;
}

/** The table of a router over hand routes (with their family) and generic ones. */
export function tableOf(router: Router): TableRow[] {
  return router.routes.map((route): TableRow => {
    const { family } = route as Partial<HandRoute>;
    if (family) return [route.method, route.path, family];
    if (route.operationId === undefined) throw new Error(`${route.method} ${route.path} has no family`);
    return [route.method, route.path, null, route.operationId];
  });
}
