/**
 * @cloudcall/account: account information, balance, billing history, invoices, SSH keys and
 * actions, as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { accountApi } from '@cloudcall/account';
 * const account = accountApi(createClient({ token }));
 * const { ssh_keys } = await account.keyList({ PerPage: 100 });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { accountTools } from './tools.js';

export type {
  Account,
  Action,
  ActionList,
  Balance,
  BillingHistoryEntry,
  BillingHistoryList,
  Invoice,
  InvoiceList,
  SshKey,
  SshKeyList,
} from './types.js';
export { accountTools };

export const accountFamily: ToolFamily = {
  name: 'account',
  title: 'Account',
  description: 'Account information, balance, billing history, invoices, SSH keys and actions.',
  tools: accountTools,
};

/** The account tools bound to a client: `keyCreate`, `keyList`, `balanceGet`... */
export function accountApi(client: ApiClient): BoundTools<typeof accountTools> {
  return bindTools(client, accountTools);
}
