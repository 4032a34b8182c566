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
export type SshKeyList = { ssh_keys: SshKey[] } & Paged;

export type { Action };
