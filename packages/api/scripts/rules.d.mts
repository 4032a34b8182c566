// Types of the reviewed table's exports that src/rules.test.ts reads.
import type { Container, KindData, Role } from '../src/model-data.js';

/** A request a rule is held to, and the values the model must find in it at the rule's place. */
export interface RuleExample {
  op: string;
  body?: unknown;
  query?: Record<string, unknown>;
  values: (string | number)[];
}

export interface BodyRule {
  field: string;
  under?: RegExp;
  ops?: string[];
  kind: string;
  role: Role | 'none';
  by?: 'id' | 'name' | 'urn' | 'typed' | 'members';
  within?: string;
  note?: string;
  test: RuleExample;
}

export interface ExtraReference {
  op: string;
  in: 'body' | 'query';
  at: string;
  kind: string;
  role: Role;
  by?: 'id' | 'name' | 'urn' | 'typed' | 'members';
  within?: string;
  note?: string;
  test: Omit<RuleExample, 'op'>;
}

export const KINDS: Record<string, KindData>;
export const BODY_RULES: BodyRule[];
export const NOT_REFERENCES: string[];
export const REFERENCE_LIKE: RegExp;
export const EXTRA_REFERENCES: ExtraReference[];
export const NOT_REFERENCE_QUERIES: string[];
export const DESTRUCTIVE: Record<string, true | string[]>;
export const CONTAINERS: Record<string, Container>;
