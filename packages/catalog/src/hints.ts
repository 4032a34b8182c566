/**
 * What to do about a failed call, from tables rather than ad-hoc strings: the token scopes an
 * operation needs (from the platform's API description, see scopes.generated.ts), the list tool that shows
 * what exists for a path that answered 404, and a few known refusals by status and message.
 * Both apps add the hint to the error report (`reportError`).
 */

import { findOperation } from '@cloudcall/api/model';
import { ApiError, CloudcallError, InputError, WaitFailedError, WaitTimeoutError } from '@cloudcall/core';
import { type ErrorReport, errorReport } from '@cloudcall/core/internal';

/** Path templates (most specific first) and what a 404 on them means. */
const NOT_FOUND: readonly (readonly [template: string, hint: string])[] = [
  [
    '/v2/droplets/{id}/actions/{id}',
    'No such action on that VM: vm-get checks the VM; action-list shows actions.',
  ],
  ['/v2/droplets/{id}', 'No VM has that id: vm-list shows the VMs of the account.'],
  ['/v2/actions/{id}', 'No action has that id: action-list shows recent actions.'],
  ['/v2/databases/{id}/users/{id}', 'No such user: db-cluster-list-users shows the users of the cluster.'],
  [
    '/v2/databases/{id}/topics/{id}',
    'No such topic: db-cluster-list-topics shows the topics of the cluster.',
  ],
  [
    '/v2/databases/{id}/online-migration/{id}',
    'No such migration: db-cluster-get-migration shows the current one.',
  ],
  ['/v2/databases/{id}', 'No database cluster has that UUID: db-cluster-list shows the clusters.'],
  ['/v2/load_balancers/{id}', 'No load balancer has that UUID: load-balancer-list shows them.'],
  ['/v2/firewalls/{id}', 'No firewall has that UUID: firewall-list shows them.'],
  ['/v2/vpcs/{id}', 'No VPC has that UUID: vpc-list shows them.'],
  ['/v2/vpc_peerings/{id}', 'No VPC peering has that UUID: vpc-peering-list shows them.'],
  ['/v2/certificates/{id}', 'No certificate has that UUID: certificate-list shows them.'],
  ['/v2/domains/{id}/records/{id}', 'No such record: domain-record-list shows the records of the domain.'],
  ['/v2/domains/{id}', 'No such domain in the account: domain-list shows them.'],
  ['/v2/account/keys/{id}', 'No SSH key has that id or fingerprint: key-list shows them.'],
  ['/v2/images/{id}', 'No image has that id: image-list shows the images you can use.'],
  ['/v2/reserved_ips/{id}', 'No such reserved IP: reserved-ip-list shows them.'],
  ['/v2/reserved_ipv6/{id}', 'No such reserved IPv6: reserved-ip-list with Type ipv6 shows them.'],
  ['/v2/byoip_prefixes/{id}', 'No such BYOIP prefix: byoip-prefix-list shows them.'],
  ['/v2/customers/my/invoices/{id}', 'No such invoice: invoice-list shows them.'],
  [
    '/v2/tags/{id}/resources',
    'No such tag, or no such resource: tag-list shows the tags (names are case-sensitive); vm-list, image-list and db-cluster-list the resources.',
  ],
  ['/v2/tags/{id}', 'No such tag (names are case-sensitive): tag-list shows them.'],
  ['/v2/snapshots/{id}', 'No snapshot has that id: snapshot-list shows them.'],
];

/** The tool that shows each kind of thing `wait` watches. */
const GET_TOOL: Record<string, string> = {
  action: 'action-get',
  vm: 'vm-get',
  database: 'db-cluster-get',
  'load-balancer': 'load-balancer-get',
  certificate: 'certificate-get',
};

/**
 * Refusals recognised by status and the platform's message, the first match wins: more specific
 * rows come first (a resize refused for its smaller disk also says "size is not available").
 */
const KNOWN_REFUSALS: readonly { status: number; message: RegExp; hint: string }[] = [
  {
    status: 422,
    message: /\bsmaller disk\b/i,
    hint: "A VM's disk cannot shrink: choose a size whose disk is at least the VM's (size-list shows each size's disk).",
  },
  {
    status: 422,
    message: /\binvalid size\b|\bnot a size slug\b/i,
    hint: 'No size has that slug: size-list shows the sizes and the regions of each.',
  },
  {
    status: 422,
    message: /\bsize\b.*\bno longer available\b/i,
    hint: 'That size is no longer sold: size-list shows the sizes on sale (available: true).',
  },
  {
    status: 422,
    message: /size\b.*\bnot available|size\b.*\bregion|region\b.*\bsize\b/i,
    hint: 'That size is not offered in that region: size-list shows the regions of each size.',
  },
  // The platform answers these 403s whatever the token's scopes: a scope hint would mislead.
  {
    status: 403,
    message: /delete VPC with members/i,
    hint: 'The VPC still has members: vpc-list-members shows them; delete them or move them to another VPC, then delete the VPC.',
  },
  {
    status: 403,
    message: /delete the default VPC/i,
    hint: "A region's default VPC cannot be deleted; vpc-list shows which VPC is the default (default: true).",
  },
  {
    status: 422,
    message: /\binvalid region\b|\bnot a region slug\b/i,
    hint: 'No region has that slug: region-list shows the regions and the sizes each offers.',
  },
  {
    status: 422,
    message: /\binvalid image\b/i,
    hint: 'No image has that id or slug: image-list shows the images you can use.',
  },
  {
    status: 422,
    message: /\bnot a database size\b/i,
    hint: 'db-cluster-list-options shows the sizes of each engine.',
  },
  {
    status: 422,
    message: /\bonce it is online\b/i,
    hint: 'The cluster is busy: wait with Kind database and its ID, then send this call again.',
  },
  {
    status: 422,
    message: /\bpending event\b/i,
    hint: 'An action on it is still running: wait with Kind action and its ID (action-list shows it), then send this call again.',
  },
  {
    status: 422,
    message: /\bcurrently on\b.*\bpower it off\b/i,
    hint: 'The VM must be off first: power-off-vm, wait for its action, then send this call again.',
  },
  {
    status: 422,
    message: /image\b.*\bnot available in region/i,
    hint: 'The image is not in that region: image-list shows its regions; image-action-transfer copies it.',
  },
];

/**
 * A path template (`/v2/droplets/{id}`) as a RegExp matching filled paths: the whole path, or with
 * `below` also any path under it (a 404 on `/v2/droplets/1/snapshots` is about the VM).
 */
function templatePattern(template: string, below = false): RegExp {
  const source = template
    .split(/\{[^}]*\}/)
    .map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${source}${below ? '(/|$)' : '$'}`);
}

const NOT_FOUND_RULES = NOT_FOUND.map(([template, hint]) => ({
  pattern: templatePattern(template, true),
  hint,
}));

/**
 * The scope sets that let a token make a call (any one set, all of its scopes), as the API
 * description lists them (through the operation model); undefined for an operation it does not
 * describe.
 */
export function scopesFor(method: string, path: string): readonly (readonly string[])[] | undefined {
  return findOperation(method, path)?.operation.scopes;
}

/** A hint for a failed call, or undefined when there is nothing better to say than the message. */
export function hintFor(error: unknown): string | undefined {
  if (error instanceof ApiError) {
    if (error.status === 401) {
      return 'The token is missing, expired or revoked: create one in the control panel (API > Tokens) and set DIGITALOCEAN_API_TOKEN.';
    }
    const refusal = KNOWN_REFUSALS.find(
      (rule) => rule.status === error.status && rule.message.test(error.apiMessage),
    );
    if (refusal) return refusal.hint;
    if (error.status === 403) {
      const sets = scopesFor(error.method, error.path);
      if (!sets?.length)
        return 'The token may not do this: check its scopes in the control panel (API > Tokens).';
      const needed = sets.map((set) => set.join(' and ')).join(', or ');
      return `This call needs a token with the scope ${needed}: add it to the token (API > Tokens) or use a full-access token.`;
    }
    if (error.status === 404) {
      return NOT_FOUND_RULES.find((rule) => rule.pattern.test(error.path))?.hint;
    }
    if (error.status === 429) {
      const wait = error.retryAfterSeconds === undefined ? 'a minute' : `${error.retryAfterSeconds} s`;
      return `Rate limited: wait ${wait}, then send the same call again. Make fewer calls (larger PerPage, wait instead of polling).`;
    }
    if (error.status >= 500 && error.retryable) {
      return 'The platform failed: retry in a few seconds; if it keeps failing, check the platform status page.';
    }
    return undefined;
  }
  if (error instanceof WaitTimeoutError) {
    return `Not ready yet, nothing failed: call wait again with Kind ${error.target.kind} and ID ${error.target.id} to keep waiting.`;
  }
  if (error instanceof WaitFailedError) {
    const get = GET_TOOL[error.target.kind];
    return `It will not become ready${get ? `: ${get} shows its state` : ''}; fix the cause or start over.`;
  }
  if (error instanceof InputError) {
    return "Nothing was sent. Fix the arguments named; the tool's input schema lists each one.";
  }
  if (error instanceof CloudcallError && error.kind === 'network') {
    return 'The API could not be reached or did not answer in time: retry; check the network and the API URL if it persists.';
  }
  return undefined;
}

/** The error report both apps give: core's facts plus the hint from the tables here. */
export function reportError(error: unknown): ErrorReport {
  const report = errorReport(error);
  const hint = report.hint ?? hintFor(error);
  return hint ? { ...report, hint } : report;
}
