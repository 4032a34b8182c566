/** Networking endpoints of the sandbox, resource by resource. */
import type { Route } from '../http.js';
import { addressRoutes } from './networking-addresses.js';
import { dnsRoutes } from './networking-dns.js';
import { trafficRoutes } from './networking-traffic.js';

export const networkingRoutes: Route[] = [...dnsRoutes, ...trafficRoutes, ...addressRoutes];
