/**
 * Block-storage volumes: create (empty or from a volume snapshot), list, get, delete, attach to and
 * detach from a VM, resize, their actions, and volume snapshots. They live beside VMs, in this
 * family, because a volume is storage for a VM: it is attached to one VM of its region, `vm-create`
 * takes volumes, and a VM's `volume_ids` names them; a volumes family alone would need the VM
 * tools for anything but storing nothing, while the VM tools stay whole without volumes.
 *
 * Detaching and deleting are by id only. The platform also detaches and deletes by name and region
 * (`POST /v2/volumes/actions`, `DELETE /v2/volumes?name=`), but those requests name the volume in
 * their body or query, where the guard, which finds what a call acts on from its path, could not
 * see it, so a protection rule on the volume would not hold. Attaching, which loses nothing, is
 * offered by name too. The CLI takes a volume's name wherever a volume id is expected.
 */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { LIMITS, numericId, pageQuery, regionSlug, tagName, text, uuid } from '@cloudcall/core/internal';
import { z } from 'zod';
import { page, VmId } from './schemas.js';
import type {
  Volume,
  VolumeAction,
  VolumeActionList,
  VolumeList,
  VolumeSnapshot,
  VolumeSnapshotList,
} from './types.js';

export const VolumeId = uuid('Volume id');
const SnapshotId = uuid('Volume snapshot id');
const Region = regionSlug('Region slug');
/** The platform's volume names: lowercase letters, digits and "-", starting with a letter. */
const VolumeName = z
  .string()
  .max(64)
  .regex(/^[a-z][a-z0-9-]*$/, 'expected lowercase letters, digits and "-", starting with a letter')
  .describe('Volume name');
const SizeGigabytes = (description: string) => z.number().int().min(1).max(16_384).describe(description);
const Tags = z.array(tagName()).max(100).optional().describe('Tag names');

/** Starting an action answers `{ action }`; the wait tool (Kind action) follows it. */
const actionWait = { kind: 'action' } as const;

export const volumeTools = [
  defineTool({
    name: 'volume-list',
    family: 'vms',
    beyondSpec: true,
    title: 'List volumes',
    description: 'List block-storage volumes.',
    details:
      'Lists the block-storage volumes of the account, or those with a name (Name, optionally in Region). Each shows its size, region, filesystem and the VM it is attached to (droplet_ids). Paginated.',
    input: z.strictObject({
      ...page,
      Name: VolumeName.optional(),
      Region: Region.optional(),
    }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/volumes', query: { ...pageQuery, name: 'Name', region: 'Region' } },
    result: returns<VolumeList>(),
  }),
  defineTool({
    name: 'volume-get',
    family: 'vms',
    beyondSpec: true,
    title: 'Get volume',
    description: 'One volume by id.',
    details: 'Shows one block-storage volume: size, region, filesystem, tags and the VM it is attached to.',
    input: z.strictObject({ ID: VolumeId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/volumes/{ID}' },
    result: returns<{ volume: Volume }>(),
  }),
  defineTool({
    name: 'volume-create',
    family: 'vms',
    beyondSpec: true,
    title: 'Create volume',
    description: 'Create a volume, empty or from a volume snapshot.',
    details:
      "Creates a block-storage volume of SizeGigabytes (1-16384) in Region. From SnapshotID (volume-snapshot-list), it holds the snapshot's data, is in the snapshot's region (Region may then be left out) and is at least the snapshot's size. FilesystemType ext4 or xfs formats it (FilesystemLabel at most 16 characters on ext4, 12 on xfs); otherwise it is unformatted. Names are unique per region.",
    input: z
      .strictObject({
        Name: VolumeName,
        SizeGigabytes: SizeGigabytes('Size in GiB'),
        Region: Region.optional(),
        SnapshotID: SnapshotId.optional(),
        Description: text('Description', { max: LIMITS.short }).optional(),
        FilesystemType: z.enum(['ext4', 'xfs']).optional().describe('Format it'),
        FilesystemLabel: text('Filesystem label', { max: 16 }).optional(),
        Tags,
      })
      .superRefine((args, context) => {
        if (args.Region === undefined && args.SnapshotID === undefined) {
          context.addIssue({
            code: 'custom',
            path: ['Region'],
            message: 'is required unless SnapshotID is given',
          });
        }
        if (args.FilesystemLabel !== undefined && args.FilesystemType === undefined) {
          context.addIssue({ code: 'custom', path: ['FilesystemLabel'], message: 'needs FilesystemType' });
        }
        if (args.FilesystemType === 'xfs' && (args.FilesystemLabel?.length ?? 0) > 12) {
          context.addIssue({
            code: 'custom',
            path: ['FilesystemLabel'],
            message: 'at most 12 characters on xfs',
          });
        }
      }),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: '/v2/volumes',
      body: {
        name: 'Name',
        size_gigabytes: 'SizeGigabytes',
        region: 'Region',
        snapshot_id: 'SnapshotID',
        description: 'Description',
        filesystem_type: 'FilesystemType',
        filesystem_label: 'FilesystemLabel',
        tags: 'Tags',
      },
    },
    result: returns<{ volume: Volume }>(),
  }),
  defineTool({
    name: 'volume-delete',
    family: 'vms',
    beyondSpec: true,
    title: 'Delete volume',
    description: 'Delete a detached volume and its data.',
    details:
      'Destroys a block-storage volume and everything on it. It must be detached first (volume-detach); its snapshots are kept.',
    input: z.strictObject({ ID: VolumeId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/volumes/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'volume-attach',
    family: 'vms',
    beyondSpec: true,
    title: 'Attach volume',
    description: 'Attach a volume to a VM in its region.',
    details:
      'Attaches a volume to a VM of the same region. A volume is attached to one VM at a time, and a VM holds at most 15 volumes. Answers with the action; a formatted volume is mounted once it completes.',
    input: z.strictObject({ ID: VolumeId, VmID: VmId }),
    annotations: annotations.action,
    wait: actionWait,
    request: {
      method: 'POST',
      path: '/v2/volumes/{ID}/actions',
      body: { droplet_id: 'VmID' },
      fixed: { type: 'attach' },
    },
    result: returns<{ action: VolumeAction }>(),
  }),
  defineTool({
    name: 'volume-attach-by-name',
    family: 'vms',
    beyondSpec: true,
    title: 'Attach volume by name',
    description: 'Attach a volume, named with its region, to a VM.',
    details:
      'Attaches the volume called Name in Region (names are unique per region) to a VM of that region, as volume-attach does by id.',
    input: z.strictObject({ Name: VolumeName, Region, VmID: VmId }),
    annotations: annotations.action,
    wait: actionWait,
    request: {
      method: 'POST',
      path: '/v2/volumes/actions',
      body: { volume_name: 'Name', region: 'Region', droplet_id: 'VmID' },
      fixed: { type: 'attach' },
    },
    result: returns<{ action: VolumeAction }>(),
  }),
  defineTool({
    name: 'volume-detach',
    family: 'vms',
    beyondSpec: true,
    title: 'Detach volume',
    description: 'Detach a volume from its VM; unmount first.',
    details:
      'Detaches a volume from the VM it is attached to. Unmount it inside the VM first: writes in flight are lost. The volume and its data stay.',
    input: z.strictObject({ ID: VolumeId, VmID: VmId }),
    annotations: annotations.destructive,
    wait: actionWait,
    request: {
      method: 'POST',
      path: '/v2/volumes/{ID}/actions',
      body: { droplet_id: 'VmID' },
      fixed: { type: 'detach' },
    },
    result: returns<{ action: VolumeAction }>(),
  }),
  defineTool({
    name: 'volume-resize',
    family: 'vms',
    beyondSpec: true,
    title: 'Resize volume',
    description: 'Grow a volume; it cannot shrink.',
    details:
      'Grows a volume to SizeGigabytes (larger than now, at most 16384); a volume never shrinks, so this cannot be undone. Grow the filesystem inside the VM afterwards.',
    input: z.strictObject({
      ID: VolumeId,
      SizeGigabytes: SizeGigabytes('New size in GiB'),
      Region: Region.optional(),
    }),
    annotations: annotations.destructive,
    wait: actionWait,
    request: {
      method: 'POST',
      path: '/v2/volumes/{ID}/actions',
      body: { size_gigabytes: 'SizeGigabytes', region: 'Region' },
      fixed: { type: 'resize' },
    },
    result: returns<{ action: VolumeAction }>(),
  }),
  defineTool({
    name: 'volume-action-list',
    family: 'vms',
    beyondSpec: true,
    title: 'List volume actions',
    description: 'Actions of a volume.',
    details: 'Lists the actions (attach, detach, resize) performed on a volume, newest first. Paginated.',
    input: z.strictObject({ ID: VolumeId, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/volumes/{ID}/actions', query: pageQuery },
    result: returns<VolumeActionList>(),
  }),
  defineTool({
    name: 'volume-action-get',
    family: 'vms',
    beyondSpec: true,
    title: 'Get volume action',
    description: 'One action of a volume.',
    details: 'Shows one action performed on a volume: its type and status (in-progress, completed, errored).',
    input: z.strictObject({ ID: VolumeId, ActionID: numericId('Action id') }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/volumes/{ID}/actions/{ActionID}' },
    result: returns<{ action: VolumeAction }>(),
  }),
  defineTool({
    name: 'volume-snapshot-create',
    family: 'vms',
    beyondSpec: true,
    title: 'Snapshot volume',
    description: 'Snapshot a volume.',
    details:
      "Saves a snapshot of a volume's data, in the volume's region; volume-create with SnapshotID makes a new volume of it. Snapshots outlive their volume.",
    input: z.strictObject({ ID: VolumeId, Name: text('Snapshot name', { max: LIMITS.name }), Tags }),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/volumes/{ID}/snapshots', body: { name: 'Name', tags: 'Tags' } },
    result: returns<{ snapshot: VolumeSnapshot }>(),
  }),
  defineTool({
    name: 'volume-snapshot-list',
    family: 'vms',
    beyondSpec: true,
    title: 'List volume snapshots',
    description: 'Snapshots of a volume.',
    details: 'Lists the snapshots taken of a volume. Paginated.',
    input: z.strictObject({ ID: VolumeId, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/volumes/{ID}/snapshots', query: pageQuery },
    result: returns<VolumeSnapshotList>(),
  }),
  defineTool({
    name: 'volume-snapshot-get',
    family: 'vms',
    beyondSpec: true,
    title: 'Get volume snapshot',
    description: 'One volume snapshot by id.',
    details:
      'Shows one volume snapshot: its region, size, minimum volume size and the volume it was taken of.',
    input: z.strictObject({ ID: SnapshotId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/volumes/snapshots/{ID}' },
    result: returns<{ snapshot: VolumeSnapshot }>(),
  }),
  defineTool({
    name: 'volume-snapshot-delete',
    family: 'vms',
    beyondSpec: true,
    title: 'Delete volume snapshot',
    description: 'Delete a volume snapshot.',
    details: 'Deletes a volume snapshot; volumes made from it are not affected.',
    input: z.strictObject({ ID: SnapshotId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/volumes/snapshots/{ID}' },
    result: returns<{ ok: true }>(),
  }),
] as const;
