/** Every route the sandbox answers, family by family. A new family adds its list here. */
import type { Route } from '../http.js';
import { accountRoutes } from './account.js';

export const routes: Route[] = [...accountRoutes];
