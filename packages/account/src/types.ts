/**
 * The platform's answers to the account tools, as library users receive them: the shapes of the
 * platform's OpenAPI description (@cloudcall/platform, generated), under the names this package
 * has always exported. Where the description leaves a field optional that the platform always
 * sends (an object's id, what a caller passes on to the next tool), `Always` says so.
 */
import type { Action } from '@cloudcall/core';
import type { Always, ListAnswer, Schemas } from '@cloudcall/platform';

/** The description leaves out `volume_limit`, which the platform sends (as the sandbox does). */
export type Account = Schemas['account'] & { volume_limit: number };
export type Balance = Schemas['balance'];
export type BillingHistoryEntry = Schemas['billing_history'];
export type Invoice = Always<Schemas['invoice_preview'], 'invoice_uuid' | 'amount' | 'invoice_period'>;
/** One line of an invoice: a resource's usage in the invoice's month. Amounts are USD. */
export type InvoiceItem = Schemas['invoice_item'];
export type Charge = Schemas['simple_charge'];
/** An invoice's totals: the customer billed, and the charges by product. Amounts are USD. */
export type InvoiceSummary = Schemas['invoice_summary'];
export type SshKey = Always<Schemas['sshKeys'], 'id' | 'fingerprint'>;

export type ActionList = ListAnswer<'actions_list', 'actions', Action>;
export type BillingHistoryList = ListAnswer<'billingHistory_list', 'billing_history'>;
export type InvoiceList = ListAnswer<'invoices_list', 'invoices', Invoice>;
export type InvoiceItemList = ListAnswer<'invoices_get_byUUID', 'invoice_items'>;
export type SshKeyList = ListAnswer<'sshKeys_list', 'ssh_keys', SshKey>;

export type { Action };

/** A project: a group of resources of any family. */
export type Project = Always<Schemas['project'], 'id' | 'name' | 'is_default'>;
export type ProjectList = ListAnswer<'projects_list', 'projects', Project>;

/** A resource in a project, by URN. */
export type ProjectResource = Always<Schemas['resource'], 'urn' | 'status'>;
export type ProjectResourceList = ListAnswer<'projects_list_resources', 'resources', ProjectResource>;
export type ProjectResources = ListAnswer<'projects_assign_resources', 'resources', ProjectResource>;
