/**
 * @cloudcall/databases: clusters, users, firewall, Kafka topics, engine configuration and online migration.
 * Its tools arrive in a later release; the family is registered now so the apps compose it.
 */
import type { AnyTool, ToolFamily } from '@cloudcall/core';

export const databasesTools: readonly AnyTool[] = [];

export const databasesFamily: ToolFamily = {
  name: 'databases',
  title: 'Managed databases',
  description: 'Clusters, users, trusted sources, Kafka topics, engine configuration and online migration.',
  tools: databasesTools,
};
