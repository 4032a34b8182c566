/**
 * Monthly prices before and after a call that changes what the account pays for. VM sizes come
 * from the platform's size list (`GET /v2/sizes`, `price_monthly`). The API lists no price for
 * database nodes, load balancers or reserved IPs, so those come from the platform's published
 * price list below; a plan says which source each figure comes from.
 */
import type { ApiClient, RequestOptions, Size } from '@cloudcall/core';
import type { Target } from './target.js';

/** The published monthly price of one database node, by size slug (USD). */
export const DATABASE_NODE_PRICES: Readonly<Record<string, number>> = {
  'db-s-1vcpu-1gb': 15,
  'db-s-1vcpu-2gb': 30,
  'db-s-2vcpu-4gb': 60,
  'db-s-4vcpu-8gb': 120,
  'db-s-6vcpu-16gb': 240,
  'db-s-8vcpu-16gb': 240,
  'db-s-8vcpu-32gb': 480,
  'db-s-16vcpu-64gb': 960,
};

/** The published monthly price of one load-balancer node, by type (USD). */
export const LOAD_BALANCER_NODE_PRICES: Readonly<Record<string, number>> = {
  REGIONAL: 12,
  REGIONAL_NETWORK: 15,
  GLOBAL: 15,
};

/** The published monthly price of a reserved IP while it is not assigned (USD; IPv6 is free). */
export const RESERVED_IP_PRICES: Readonly<Record<'ipv4' | 'ipv6', number>> = { ipv4: 5, ipv6: 0 };

export interface PriceChange {
  currency: 'USD';
  /** What the account pays a month for the target now (0 for something new). */
  monthly_before: number;
  monthly_after: number;
  monthly_delta: number;
  /** Where the figures come from. */
  source: string;
  /** What the figures cover, in a line. */
  basis: string;
}

const SIZE_LIST = 'size-list (GET /v2/sizes, price_monthly)';
const LISTED = "the platform's published price list (the API lists no price for these)";

/**
 * The price change of a mutating request, or undefined when it changes no price cloudcall knows
 * of. `target` is the resource the request acts on, as read before.
 */
export async function priceChange(
  client: ApiClient,
  request: Pick<RequestOptions, 'method' | 'path' | 'body'>,
  target: Target | undefined,
  signal?: AbortSignal,
): Promise<PriceChange | undefined> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const state = (target?.state ?? {}) as Record<string, unknown>;
  const { method, path } = request;
  let sizes: Promise<Size[]> | undefined;
  const vmPrice = async (slug: string): Promise<number> => {
    sizes ??= client
      .request<{ sizes: Size[] }>({ method: 'GET', path: '/v2/sizes', query: { per_page: 200 }, signal })
      .then((answer) => answer.sizes);
    const size = (await sizes).find((candidate) => candidate.slug === slug);
    if (!size) throw new Error(`size ${slug} is not in size-list, so its price is unknown`);
    return size.price_monthly;
  };
  const change = (before: number, after: number, source: string, basis: string): PriceChange => ({
    currency: 'USD',
    monthly_before: round(before),
    monthly_after: round(after),
    monthly_delta: round(after - before),
    source,
    basis,
  });

  if (method === 'POST' && path === '/v2/droplets' && typeof body.size === 'string') {
    const count = Array.isArray(body.names) ? body.names.length : 1;
    const after = (await vmPrice(body.size)) * count;
    return change(0, after, SIZE_LIST, `${count} VM${count > 1 ? 's' : ''} of size ${body.size}`);
  }
  if (method === 'POST' && /^\/v2\/droplets\/[^/]+\/actions$/.test(path) && body.type === 'resize') {
    const from = sizeSlugOf(state);
    const size = String(body.size);
    const before = from ? await vmPrice(from) : 0;
    return change(before, await vmPrice(size), SIZE_LIST, `VM size ${from ?? '?'} -> ${size}`);
  }
  if (method === 'POST' && path === '/v2/databases' && typeof body.size === 'string') {
    const nodes = Number(body.num_nodes ?? 1);
    return change(0, databasePrice(body.size) * nodes, LISTED, `${nodes} node(s) of ${body.size}`);
  }
  if (method === 'POST' && /^\/v2\/databases\/[^/]+\/replicas$/.test(path) && typeof body.size === 'string') {
    return change(0, databasePrice(body.size), LISTED, `1 replica node of ${body.size}`);
  }
  if (method === 'PUT' && /^\/v2\/databases\/[^/]+\/resize$/.test(path)) {
    const fromSize = String(state.size ?? '');
    const fromNodes = Number(state.num_nodes ?? 1);
    const toSize = String(body.size ?? fromSize);
    const toNodes = Number(body.num_nodes ?? fromNodes);
    return change(
      fromSize ? databasePrice(fromSize) * fromNodes : 0,
      databasePrice(toSize) * toNodes,
      LISTED,
      `${fromNodes} x ${fromSize || '?'} -> ${toNodes} x ${toSize}`,
    );
  }
  if (method === 'POST' && path === '/v2/load_balancers') {
    const type = String(body.type ?? 'REGIONAL');
    const units = type === 'GLOBAL' ? 1 : Number(body.size_unit ?? 1);
    return change(
      0,
      listed(LOAD_BALANCER_NODE_PRICES, type) * units,
      LISTED,
      `${type} load balancer, ${units} node(s)`,
    );
  }
  if (method === 'POST' && (path === '/v2/reserved_ips' || path === '/v2/reserved_ipv6')) {
    const family = path.endsWith('ipv6') ? 'ipv6' : 'ipv4';
    return change(
      0,
      RESERVED_IP_PRICES[family],
      LISTED,
      `a reserved ${family === 'ipv6' ? 'IPv6' : 'IPv4'} address while unassigned`,
    );
  }
  return undefined;
}

function sizeSlugOf(state: Record<string, unknown>): string | undefined {
  if (typeof state.size_slug === 'string') return state.size_slug;
  const size = state.size as { slug?: unknown } | undefined;
  return typeof size?.slug === 'string' ? size.slug : undefined;
}

function databasePrice(slug: string): number {
  return listed(DATABASE_NODE_PRICES, slug);
}

function listed(table: Readonly<Record<string, number>>, key: string): number {
  const price = table[key];
  if (price === undefined) throw new Error(`no listed price for ${key}`);
  return price;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
