/**
 * @cloudcall/vms: create, inspect, delete, power and feature actions, tag-based bulk actions.
 * Its tools arrive in a later release; the family is registered now so the apps compose it.
 */
import type { AnyTool, ToolFamily } from '@cloudcall/core';

export const vmsTools: readonly AnyTool[] = [];

export const vmsFamily: ToolFamily = {
  name: 'vms',
  title: 'VMs',
  description: 'Create, inspect and delete VMs; power and feature actions; tag-based bulk actions.',
  tools: vmsTools,
};
