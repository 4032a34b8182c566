/**
 * @cloudcall/account: account information, balance, billing history, invoices, SSH keys,
 * actions, projects (see projects.ts for why they live here), and `wait` for actions and resources
 * to be ready, as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { accountApi } from '@cloudcall/account';
 * const account = accountApi(createClient({ token }));
 * const { ssh_keys } = await account.keyList({ PerPage: 100 });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { projectTools } from './projects.js';
import { accountTools as requestTools } from './tools.js';
import { waitTool } from './wait.js';

export type {
  Account,
  Action,
  ActionList,
  Balance,
  BillingHistoryEntry,
  BillingHistoryList,
  Charge,
  Invoice,
  InvoiceItem,
  InvoiceItemList,
  InvoiceList,
  InvoiceSummary,
  Project,
  ProjectList,
  ProjectResource,
  ProjectResourceList,
  ProjectResources,
  SshKey,
  SshKeyList,
} from './types.js';
export {
  MAX_WAIT_SECONDS,
  POLL,
  pendingWaits,
  WAIT_KINDS,
  type WaitArgs,
  type WaitKindName,
  type WaitTargetArgs,
  waitAfter,
  waitFor,
  waitTargets,
  waitTool,
} from './wait.js';

/** Every account tool: one platform request each (tools.ts, projects.ts), and `wait`, which polls. */
export const accountTools = [...requestTools, waitTool, ...projectTools] as const;

export const accountFamily: ToolFamily = {
  name: 'account',
  title: 'Account',
  description:
    'Account information, balance, billing history, invoices, SSH keys, actions, and projects (groups of resources of any family).',
  tools: accountTools,
};

/** The account tools bound to a client: `keyCreate`, `keyList`, `balanceGet`... */
export function accountApi(client: ApiClient): BoundTools<typeof accountTools> {
  return bindTools(client, accountTools);
}
