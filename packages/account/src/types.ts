/** The platform's answers to the account tools, as library users receive them. */
import type { Action, Links, Meta } from '@cloudcall/core';

export interface Account {
  uuid: string;
  email: string;
  name?: string;
  email_verified: boolean;
  status: 'active' | 'warning' | 'locked';
  status_message: string;
  droplet_limit: number;
  floating_ip_limit: number;
  volume_limit: number;
  team?: { uuid: string; name: string };
}

export interface Balance {
  month_to_date_balance: string;
  account_balance: string;
  month_to_date_usage: string;
  generated_at: string;
}

export interface BillingHistoryEntry {
  description: string;
  amount: string;
  invoice_id?: string;
  invoice_uuid?: string;
  date: string;
  type: string;
}

export interface Invoice {
  invoice_uuid: string;
  invoice_id?: string;
  amount: string;
  invoice_period: string;
  updated_at: string;
}

/** One line of an invoice: a resource's usage in the invoice's month. Amounts are USD. */
export interface InvoiceItem {
  product: string;
  resource_uuid?: string;
  resource_id?: string;
  group_description?: string;
  description: string;
  amount: string;
  duration?: string;
  duration_unit?: string;
  start_time?: string;
  end_time?: string;
  project_name?: string;
}

export interface Charge {
  name: string;
  amount: string;
}

/** An invoice's totals: the customer billed, and the charges by product. Amounts are USD. */
export interface InvoiceSummary {
  invoice_uuid: string;
  invoice_id?: string;
  /** `YYYY-MM`. */
  billing_period: string;
  amount: string;
  user_name?: string;
  user_company?: string;
  user_email?: string;
  user_billing_address?: {
    address_line1?: string;
    address_line2?: string;
    city?: string;
    region?: string;
    postal_code?: string;
    country_iso2_code?: string;
    created_at?: string;
    updated_at?: string;
  };
  product_charges?: Charge & { items?: (Charge & { count: string })[] };
  overages?: Charge;
  taxes?: Charge;
  credits_and_adjustments?: Charge;
}

export interface SshKey {
  id: number;
  fingerprint: string;
  public_key: string;
  name: string;
}

interface Paged {
  links: Links;
  meta: Meta;
}

export type ActionList = { actions: Action[] } & Paged;
export type BillingHistoryList = { billing_history: BillingHistoryEntry[] } & Paged;
export type InvoiceList = { invoices: Invoice[]; invoice_preview?: Invoice } & Paged;
export type InvoiceItemList = { invoice_items: InvoiceItem[] } & Paged;
export type SshKeyList = { ssh_keys: SshKey[] } & Paged;

export type { Action };

/** A project: a group of resources of any family. */
export interface Project {
  id: string;
  owner_uuid: string;
  owner_id: number;
  name: string;
  description: string;
  purpose: string;
  environment?: 'Development' | 'Staging' | 'Production';
  is_default: boolean;
  created_at: string;
  updated_at: string;
}
export type ProjectList = { projects: Project[]; links: Links; meta: Meta };

/** A resource in a project, by URN. */
export interface ProjectResource {
  urn: string;
  assigned_at?: string;
  links?: { self: string };
  status: 'ok' | 'not_found' | 'assigned' | 'already_assigned' | 'service_down';
}
export type ProjectResourceList = { resources: ProjectResource[]; links: Links; meta: Meta };
export type ProjectResources = { resources: ProjectResource[] };
