/**
 * What the platform keeps about one VM besides the VM itself: its snapshots and backups, the
 * kernels it can boot, its backup policy, the VMs sharing its hardware, and the billable resources
 * tied to it (what deleting it leaves behind). All beyond the spec.
 */
import { annotations, defineTool, type InputSchema, returns } from '@cloudcall/core';
import { pageQuery } from '@cloudcall/core/internal';
import { z } from 'zod';
import { page, VmId } from './schemas.js';
import type {
  VmAssociatedResources,
  VmBackupList,
  VmBackupPolicyRecord,
  VmKernelList,
  VmList,
  VmSnapshotList,
} from './types.js';

/** One GET under a VM: its path below `/v2/droplets/{ID}`, paged when the input has pages. */
function vmRead<const N extends string, S extends InputSchema, R>(row: {
  name: N;
  title: string;
  description: string;
  details: string;
  path: string;
  input: S;
  result: R;
}) {
  const paged = 'Page' in row.input.shape;
  return defineTool({
    ...row,
    family: 'vms',
    beyondSpec: true,
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: `/v2/droplets/{ID}${row.path}`,
      query: (paged ? pageQuery : {}) as never,
    },
  });
}

const paged = z.strictObject({ ID: VmId, ...page });
const one = z.strictObject({ ID: VmId });

export const vmRelatedTools = [
  vmRead({
    name: 'vm-list-snapshots',
    title: 'List VM snapshots',
    description: "A VM's snapshots.",
    details:
      "Lists the snapshots taken of a VM (snapshot-vm): id, name, regions, size. Restore one with restore-vm; snapshot-list shows every resource's snapshots. Paginated.",
    path: '/snapshots',
    input: paged,
    result: returns<VmSnapshotList>(),
  }),
  vmRead({
    name: 'vm-list-backups',
    title: 'List VM backups',
    description: "A VM's backups.",
    details:
      'Lists the automatic backups of a VM (enable-backups-vm): id, name, regions, size. Restore one with restore-vm, or keep it for good with image-action-convert. Paginated.',
    path: '/backups',
    input: paged,
    result: returns<VmBackupList>(),
  }),
  vmRead({
    name: 'vm-list-kernels',
    title: 'List VM kernels',
    description: 'Kernels a VM can boot.',
    details:
      'Lists the kernels a VM can boot (their ids go to change-kernel-vm); VMs with internally managed kernels ignore the choice. Paginated.',
    path: '/kernels',
    input: paged,
    result: returns<VmKernelList>(),
  }),
  vmRead({
    name: 'vm-get-backup-policy',
    title: 'Get VM backup policy',
    description: "A VM's backup policy.",
    details:
      'Shows whether a VM is backed up and how: plan (daily or weekly), weekday, window start hour (UTC), window length, retention, and the next backup window. vm-update-backup-policy changes it.',
    path: '/backups/policy',
    input: one,
    result: returns<{ policy: VmBackupPolicyRecord }>(),
  }),
  vmRead({
    name: 'vm-list-neighbors',
    title: 'List VM neighbours',
    description: 'VMs on the same host.',
    details:
      "Lists the account's other VMs running on the same physical hardware as this one (an empty list when none does).",
    path: '/neighbors',
    input: one,
    result: returns<Pick<VmList, 'droplets'>>(),
  }),
  vmRead({
    name: 'vm-list-associated-resources',
    title: 'List resources tied to VM',
    description: 'IPs, snapshots, volumes billed with a VM.',
    details:
      'Lists the billable resources tied to a VM, with their monthly cost: reserved IPs, snapshots, volumes and volume snapshots. vm-delete leaves them (and their bills) in place.',
    path: '/destroy_with_associated_resources',
    input: one,
    result: returns<VmAssociatedResources>(),
  }),
] as const;
