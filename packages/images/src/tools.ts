/**
 * The images family: the public images (distributions and 1-Click applications) and the account's
 * own (snapshots, backups, custom images), image actions, snapshots across resources (a VM's
 * snapshots are images; volumes have them too), the VM sizes of size-list and the regions of
 * region-list (what every Region argument names).
 */
import { annotations, defineTool, returns, sendRequest } from '@cloudcall/core';
import {
  LIMITS,
  numericId,
  pageArgs,
  pageQuery,
  regionSlug,
  tagName,
  text,
  UUID_PATTERN,
} from '@cloudcall/core/internal';
import { SNAPSHOTS_RESOURCE_TYPE } from '@cloudcall/platform';
import { z } from 'zod';
import type { Image, ImageAction, ImageList, RegionList, SizeList, Snapshot, SnapshotList } from './types.js';

/** Image and size lists page by 50 (the spec's Limits table); region-list pages as size-list does. */
const page = pageArgs(50);

const ImageId = numericId('Image id');
/** VM snapshots have numeric ids (they are images); volume snapshots have UUIDs. */
const SnapshotId = z
  .union([
    z.number().int().positive(),
    z.string().regex(UUID_PATTERN, 'expected a VM snapshot id or a volume snapshot UUID'),
  ])
  .describe('Id, or UUID for volumes');
const ImageName = (description: string) => text(description, { max: LIMITS.name });
const TagName = tagName();

/**
 * The URL the platform downloads a custom image from: http or https only, so `file:`,
 * `javascript:` or `ftp:` never reach it, and no control character (a CR or LF would let a value
 * smuggle text into whatever logs or headers carry it) or space.
 */
const ImageUrl = z
  .string()
  .max(LIMITS.url)
  .regex(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
    /^[^\u0000-\u0020\u007f-\u009f]*$/,
    'must not contain spaces or control characters (such as CR or LF)',
  )
  // Checked first: the URL parser would drop a trailing CR or LF silently.
  .pipe(
    z.url({
      protocol: /^https?$/,
      hostname: /./,
      error: 'must be an http:// or https:// URL, such as "https://example.com/disk.qcow2.gz"',
    }),
  )
  .describe('Disk image URL');

/** `Type` as the platform's query: `user` means the account's private images (API-MAP pitfall 8). */
const LIST_FILTER = {
  distribution: { type: 'distribution' },
  application: { type: 'application' },
  user: { private: true },
} as const;

export const imagesTools = [
  defineTool({
    name: 'image-list',
    family: 'images',
    title: 'List images',
    description: 'OS, app and own images.',
    details:
      'Lists images: with Type "distribution" the operating systems, "application" the 1-Click apps, "user" the account\'s own snapshots, backups and custom images; without Type, all of them. Paginated.',
    input: z.strictObject({
      ...page,
      Type: z.enum(['distribution', 'application', 'user']).optional().describe('user: own images'),
    }),
    annotations: annotations.read,
    pages: pageQuery,
    handler: (args, context) =>
      sendRequest<ImageList>(
        { method: 'GET', path: '/v2/images', query: { ...pageQuery, type: 'type', private: 'private' } },
        { ...args, ...(args.Type ? LIST_FILTER[args.Type] : {}) },
        context,
      ),
    result: returns<ImageList>(),
  }),
  defineTool({
    name: 'image-get',
    family: 'images',
    title: 'Get image',
    description: 'Get one image.',
    details:
      'Shows one image: type, distribution, regions where it can be used, minimum disk size and status.',
    input: z.strictObject({ ID: ImageId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/images/{ID}' },
    result: returns<{ image: Image }>(),
  }),
  defineTool({
    name: 'image-create',
    family: 'images',
    title: 'Create custom image',
    description: 'Import a disk image from a URL.',
    details:
      'Imports a custom image from a public http(s) URL (a raw, qcow2, vhdx, vdi or vmdk disk image, optionally gzip/bzip2 compressed), such as "https://example.com/disk.qcow2.gz". It is "NEW" while importing and "available" once done (poll image-get). Distribution takes the platform\'s names, such as "Ubuntu" or "Debian".',
    input: z.strictObject({
      Name: ImageName('Image name'),
      Url: ImageUrl,
      Region: regionSlug('e.g. nyc3'),
      Distribution: text('e.g. Ubuntu', { max: LIMITS.name }).optional(),
      Description: text('Free text', { max: LIMITS.description, min: 0 }).optional(),
      Tags: z.array(TagName).optional().describe('Tag names'),
    }),
    annotations: annotations.create,
    wait: { kind: 'image' },
    request: {
      method: 'POST',
      path: '/v2/images',
      body: {
        name: 'Name',
        url: 'Url',
        region: 'Region',
        distribution: 'Distribution',
        description: 'Description',
        tags: 'Tags',
      },
    },
    result: returns<{ image: Image }>(),
  }),
  defineTool({
    name: 'image-update',
    family: 'images',
    title: 'Rename image',
    description: 'Rename an own image.',
    details: "Renames one of the account's images (snapshot, backup or custom).",
    input: z.strictObject({ ID: ImageId, Name: ImageName('New name') }),
    annotations: annotations.update,
    request: { method: 'PUT', path: '/v2/images/{ID}', body: { name: 'Name' } },
    result: returns<{ image: Image }>(),
  }),
  defineTool({
    name: 'image-delete',
    family: 'images',
    title: 'Delete image',
    description: 'Delete an own image.',
    details:
      "Deletes one of the account's images or snapshots for good (image-list with Type user lists them). Public images cannot be deleted.",
    input: z.strictObject({ ID: ImageId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/images/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'image-action-transfer',
    family: 'images',
    title: 'Transfer image to region',
    description: 'Copy an image to a region.',
    details:
      "Copies one of the account's images to another region, so VMs can be created from it there. The region appears in the image's regions when the action completes (poll image-action-get).",
    input: z.strictObject({ ID: ImageId, Region: regionSlug('Target region') }),
    annotations: annotations.action,
    wait: { kind: 'action' },
    request: {
      method: 'POST',
      path: '/v2/images/{ID}/actions',
      body: { region: 'Region' },
      fixed: { type: 'transfer' },
    },
    result: returns<{ action: ImageAction }>(),
  }),
  defineTool({
    name: 'image-action-convert',
    family: 'images',
    title: 'Convert backup to snapshot',
    description: 'Make a backup a snapshot.',
    details:
      "Turns a backup of a VM (an id from the VM's backup_ids) into a snapshot, which is kept when the VM is deleted or its backups are turned off.",
    input: z.strictObject({ ID: numericId('Backup image id') }),
    annotations: annotations.action,
    wait: { kind: 'action' },
    request: { method: 'POST', path: '/v2/images/{ID}/actions', fixed: { type: 'convert' } },
    result: returns<{ action: ImageAction }>(),
  }),
  defineTool({
    name: 'image-action-get',
    family: 'images',
    title: 'Get image action',
    description: 'One image action.',
    details:
      'Shows one action performed on an image (transfer or convert, which return its id): its status and region.',
    input: z.strictObject({ ImageID: ImageId, ActionID: numericId('Action id') }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/images/{ImageID}/actions/{ActionID}' },
    result: returns<{ action: ImageAction }>(),
  }),
  defineTool({
    name: 'snapshot-list',
    family: 'images',
    beyondSpec: true,
    title: 'List snapshots',
    description: 'Snapshots of VMs and volumes.',
    details:
      "Lists the account's snapshots: of VMs (resource_type droplet; they are images too, in image-list with Type user) and of volumes. ResourceType keeps one kind. Each names the resource it was taken of (resource_id). Paginated.",
    input: z.strictObject({
      ...page,
      ResourceType: z.enum(SNAPSHOTS_RESOURCE_TYPE).optional().describe('droplet: VM snapshots'),
    }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/snapshots', query: { ...pageQuery, resource_type: 'ResourceType' } },
    result: returns<SnapshotList>(),
  }),
  defineTool({
    name: 'snapshot-get',
    family: 'images',
    beyondSpec: true,
    title: 'Get snapshot',
    description: 'One snapshot.',
    details:
      'Shows one snapshot: its name, regions, size, minimum disk size, tags and the resource it was taken of. A VM snapshot has a numeric id, a volume snapshot a UUID (snapshot-list shows both).',
    input: z.strictObject({ ID: SnapshotId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/snapshots/{ID}' },
    result: returns<{ snapshot: Snapshot }>(),
  }),
  defineTool({
    name: 'snapshot-delete',
    family: 'images',
    beyondSpec: true,
    title: 'Delete snapshot',
    description: 'Delete a VM or volume snapshot.',
    details:
      "Deletes a snapshot for good. A VM snapshot is an image: it leaves image-list and the VM's snapshot_ids too. The VM or volume it was taken of stays.",
    input: z.strictObject({ ID: SnapshotId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/snapshots/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'size-list',
    family: 'images',
    title: 'List VM sizes',
    description: 'VM sizes and prices.',
    details:
      'Lists the VM sizes: slug, memory (MiB), vCPUs, disk (GB), transfer, monthly and hourly price in USD, and the regions offering each. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/sizes', query: pageQuery },
    result: returns<SizeList>(),
  }),
  defineTool({
    name: 'region-list',
    family: 'images',
    beyondSpec: true,
    title: 'List regions',
    description: 'Regions, their features and sizes.',
    details:
      'Lists the regions: slug (such as "nyc3", what Region arguments take), name, whether new resources can be created there, its features (backups, ipv6, metadata...) and the VM sizes it offers. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/regions', query: pageQuery },
    result: returns<RegionList>(),
  }),
] as const;
