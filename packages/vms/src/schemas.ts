/** Argument schemas the vms family's tools share. */
import { numericId, pageArgs, tagName } from '@cloudcall/core/internal';

/** VM lists page by 50 (the spec's Limits table); so do the VM's snapshots, backups and kernels, and tags. */
export const page = pageArgs(50);

export const VmId = numericId('VM id');

export const TagName = tagName('VM tag');
