import { accountRoutes } from './account.js';
export const routes = [...accountRoutes];
