/**
 * @cloudcall/account: account information, balance, billing history, invoices, SSH keys,
 * actions, projects (see projects.ts for why they live here), and `wait` for actions and resources
 * to be ready (its logic is @cloudcall/wait's), as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { accountApi } from '@cloudcall/account';
 * const account = accountApi(createClient({ token }));
 * const { ssh_keys } = await account.keyList({ PerPage: 100 });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import * as waiting from '@cloudcall/wait';
import { projectTools } from './projects.js';
import { accountTools as requestTools } from './tools.js';

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
// Waiting moved to @cloudcall/wait; these names stay here for one release.
/** @deprecated Import `MAX_WAIT_SECONDS` from `@cloudcall/wait`; this re-export goes in the next release. */
export const MAX_WAIT_SECONDS = waiting.MAX_WAIT_SECONDS;
/** @deprecated Import `POLL` from `@cloudcall/wait`; this re-export goes in the next release. */
export const POLL = waiting.POLL;
/** @deprecated Import `WAIT_KINDS` from `@cloudcall/wait`; this re-export goes in the next release. */
export const WAIT_KINDS = waiting.WAIT_KINDS;
/** @deprecated Import `pendingWaits` from `@cloudcall/wait`; this re-export goes in the next release. */
export const pendingWaits = waiting.pendingWaits;
/** @deprecated Import `waitAfter` from `@cloudcall/wait`; this re-export goes in the next release. */
export const waitAfter = waiting.waitAfter;
/** @deprecated Import `waitFor` from `@cloudcall/wait`; this re-export goes in the next release. */
export const waitFor = waiting.waitFor;
/** @deprecated Import `waitTargets` from `@cloudcall/wait`; this re-export goes in the next release. */
export const waitTargets = waiting.waitTargets;
/** @deprecated Import `waitTool` from `@cloudcall/wait` (it stays among `accountTools`); this re-export goes in the next release. */
export const waitTool = waiting.waitTool;
/** @deprecated Import `WaitArgs` from `@cloudcall/wait`; this re-export goes in the next release. */
export type WaitArgs = waiting.WaitArgs;
/** @deprecated Import `WaitKindName` from `@cloudcall/wait`; this re-export goes in the next release. */
export type WaitKindName = waiting.WaitKindName;
/** @deprecated Import `WaitTargetArgs` from `@cloudcall/wait`; this re-export goes in the next release. */
export type WaitTargetArgs = waiting.WaitTargetArgs;

/** Every account tool: one platform request each (tools.ts, projects.ts), and `wait`, which polls. */
export const accountTools = [...requestTools, waiting.waitTool, ...projectTools] as const;

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
