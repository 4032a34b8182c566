/**
 * @cloudcall/vms: create, inspect and delete VMs (the platform's droplets), run power and feature
 * actions on one VM or on every VM carrying a tag, as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { vmsApi } from '@cloudcall/vms';
 * const vms = vmsApi(createClient({ token }));
 * const { droplet } = await vms.vmCreate({ Name: 'web-1', Size: 's-1vcpu-1gb', ImageID: 161928327, Region: 'nyc3' });
 * await vms.powerOffVm({ ID: droplet.id });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { vmsTools } from './tools.js';

export type {
  NetworkV4,
  NetworkV6,
  Vm,
  VmAction,
  VmActionResult,
  VmActionsResult,
  VmCreated,
  VmImage,
  VmList,
  VmRegion,
  VmSize,
} from './types.js';
export { vmsTools };

export const vmsFamily: ToolFamily = {
  name: 'vms',
  title: 'VMs',
  description: 'Create, inspect and delete VMs; power and feature actions; tag-based bulk actions.',
  tools: vmsTools,
};

/** The vms tools bound to a client: `vmCreate`, `vmGet`, `powerOffVm`, `snapshotVmsTag`... */
export function vmsApi(client: ApiClient): BoundTools<typeof vmsTools> {
  return bindTools(client, vmsTools);
}
