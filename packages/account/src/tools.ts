/**
 * The account family: account information, balance, billing history, invoices, SSH keys and
 * actions. Each tool is one platform request, described by its mapping.
 */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { LIMITS, numericId, pageArgs, pageQuery, text, uuid } from '@cloudcall/core/internal';
import { z } from 'zod';
import type {
  Account,
  Action,
  ActionList,
  Balance,
  BillingHistoryList,
  InvoiceItemList,
  InvoiceList,
  InvoiceSummary,
  SshKey,
  SshKeyList,
} from './types.js';

/** Account lists page by 30 (the spec's Limits table). */
const page = pageArgs(30);
const noArgs = z.strictObject({});

const SshKeyId = numericId('SSH key id');
const InvoiceId = uuid('From invoice-list');

export const accountTools = [
  defineTool({
    name: 'account-get-information',
    family: 'account',
    title: 'Get account information',
    description: 'Account info and resource limits.',
    details:
      'Shows the account behind the token: email, status, team, and limits on VMs, reserved IPs and volumes.',
    input: noArgs,
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/account' },
    result: returns<{ account: Account }>(),
  }),
  defineTool({
    name: 'balance-get',
    family: 'account',
    title: 'Get balance',
    description: 'Balance and usage to date, USD.',
    details: 'Shows the account balance, the month-to-date usage and the month-to-date balance, in USD.',
    input: noArgs,
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/customers/my/balance' },
    result: returns<Balance>(),
  }),
  defineTool({
    name: 'billing-history-list',
    family: 'account',
    title: 'List billing history',
    description: 'Invoices, payments, credits.',
    details:
      'Lists billing events, newest first: invoices, payments and credits, with amounts in USD. Paginated: `links.pages.next` is present while more pages exist.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: '/v2/customers/my/billing_history',
      query: pageQuery,
    },
    result: returns<BillingHistoryList>(),
  }),
  defineTool({
    name: 'invoice-list',
    family: 'account',
    title: 'List invoices',
    description: 'Monthly invoices and preview.',
    details: 'Lists monthly invoices (uuid, period, amount) and a preview of the current month. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: '/v2/customers/my/invoices',
      query: pageQuery,
    },
    result: returns<InvoiceList>(),
  }),
  defineTool({
    name: 'invoice-get',
    family: 'account',
    beyondSpec: true,
    title: 'Get invoice',
    description: "One invoice's line items.",
    details:
      'Lists the line items of one invoice: product, resource, description, amount in USD, and the hours billed between start and end. Takes an invoice_uuid from invoice-list (closed invoices or the current preview). Paginated.',
    input: z.strictObject({ ID: InvoiceId, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/customers/my/invoices/{ID}', query: pageQuery },
    result: returns<InvoiceItemList>(),
  }),
  defineTool({
    name: 'invoice-get-summary',
    family: 'account',
    beyondSpec: true,
    title: 'Get invoice summary',
    description: "One invoice's totals by product.",
    details:
      'Shows the totals of one invoice: billing period, amount, the customer billed, product charges grouped by product, overages, taxes, and credits and adjustments, in USD. Takes an invoice_uuid from invoice-list.',
    input: z.strictObject({ ID: InvoiceId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/customers/my/invoices/{ID}/summary' },
    result: returns<InvoiceSummary>(),
  }),
  defineTool({
    name: 'key-create',
    family: 'account',
    title: 'Create SSH key',
    description: 'Add an SSH public key.',
    details:
      'Adds an SSH public key to the account so it can be installed on new VMs. Returns the key with its id and fingerprint. The name is up to 255 characters; the key is one line of a .pub file, such as "ssh-ed25519 AAAA... comment".',
    input: z.strictObject({
      Name: text('Key name', { max: LIMITS.name }),
      PublicKey: text('OpenSSH format', { max: LIMITS.publicKey }),
    }),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/account/keys', body: { name: 'Name', public_key: 'PublicKey' } },
    result: returns<{ ssh_key: SshKey }>(),
  }),
  defineTool({
    name: 'key-get',
    family: 'account',
    title: 'Get SSH key',
    description: 'One SSH key.',
    details: 'Shows one SSH key of the account: name, fingerprint and public key.',
    input: z.strictObject({ ID: SshKeyId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/account/keys/{ID}' },
    result: returns<{ ssh_key: SshKey }>(),
  }),
  defineTool({
    name: 'key-list',
    family: 'account',
    title: 'List SSH keys',
    description: "The account's SSH keys.",
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/account/keys', query: pageQuery },
    result: returns<SshKeyList>(),
  }),
  defineTool({
    name: 'key-delete',
    family: 'account',
    title: 'Delete SSH key',
    description: 'Remove an SSH key; VMs keep it.',
    details: 'Removes an SSH key from the account. VMs that already have it keep it.',
    input: z.strictObject({ ID: SshKeyId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/account/keys/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'action-get',
    family: 'account',
    title: 'Get action',
    description: 'One action and its status.',
    details:
      'Shows one action (an event such as a VM power-off or an image transfer): its type, status (in-progress, completed, errored) and resource. Its id comes from action-list or from the tool that started it.',
    input: z.strictObject({ ID: numericId('Action id') }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/actions/{ID}' },
    result: returns<{ action: Action }>(),
  }),
  defineTool({
    name: 'action-list',
    family: 'account',
    title: 'List actions',
    description: 'Actions, newest first.',
    details: 'Lists the actions performed on the account, newest first. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/actions', query: pageQuery },
    result: returns<ActionList>(),
  }),
] as const;
