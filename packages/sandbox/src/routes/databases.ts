/** databases endpoints of the sandbox. */
import type { Route } from '../http.js';

export const databasesRoutes: Route[] = [];
