/**
 * The vms family: create, inspect, list and delete VMs (the platform's droplets), the actions one
 * VM can run, and the same actions applied to every VM carrying a tag. The actions are two tables,
 * one row per tool; each row becomes a tool posting `{type, ...}` to the droplet actions endpoint.
 */
import { annotations, defineTool, returns, type ToolAnnotations, type ToolDefinition } from '@cloudcall/core';
import {
  LIMITS,
  numericId,
  omitUndefined,
  pageQuery,
  regionSlug,
  slug,
  tagName,
  text,
  uuid,
} from '@cloudcall/core/internal';
import { DROPLET_BACKUP_POLICY_PLAN, DROPLET_BACKUP_POLICY_WEEKDAY } from '@cloudcall/platform';
import { z } from 'zod';
import { vmRelatedTools } from './related.js';
import { page, TagName, VmId } from './schemas.js';
import { tagTools } from './tags.js';
import type { Vm, VmActionResult, VmActionsResult, VmCreated, VmList } from './types.js';
import { VolumeId, volumeTools } from './volumes.js';

const RegionSlug = regionSlug('Region slug');
const SizeSlug = slug('Size slug', 's-1vcpu-1gb');
/** A VM name as the platform accepts it (also its hostname). */
const VmName = (description: string) =>
  z
    .string()
    .max(LIMITS.name)
    .regex(
      /^[a-zA-Z0-9]?[a-zA-Z0-9.-]*[a-zA-Z0-9]$/,
      'expected letters, digits, "." and "-", ending with a letter or digit',
    )
    .describe(description);
const SnapshotName = text('Snapshot name', { max: LIMITS.name });

/** An SSH key of the account as the platform addresses it: numeric id, or MD5 fingerprint. */
const SshKeyRef = z.union([
  z.number().int().positive(),
  z
    .string()
    .max(47)
    .regex(
      /^(\d+|[0-9a-f]{2}(:[0-9a-f]{2}){15})$/i,
      'expected a key id or an MD5 fingerprint such as "3b:16:…:45"',
    )
    .transform((ref) => (/^\d+$/.test(ref) ? Number(ref) : ref)),
]);

/**
 * The image a VM starts from, as the platform takes it: a numeric id, or a public image's slug
 * (`ubuntu-24-04-x64`). Digits in a string are the id.
 */
const ImageRef = z
  .union([
    z.number().int().positive(),
    z
      .string()
      .max(LIMITS.slug)
      .regex(/^(\d+|[a-z0-9][a-z0-9._-]*)$/, 'expected an image id or a slug such as "ubuntu-24-04-x64"')
      .transform((ref) => (/^\d+$/.test(ref) ? Number(ref) : ref)),
  ])
  .describe('Image id or slug');

/** The platform limits user data to 64 KiB of bytes, not characters. */
const UserData = z
  .string()
  .min(1)
  .max(LIMITS.userData)
  .refine((value) => new TextEncoder().encode(value).length <= LIMITS.userData, {
    message: `must be at most ${LIMITS.userData} bytes (64 KiB)`,
  })
  .describe('cloud-init, max 64 KiB');

type Shape = Record<string, z.ZodType>;

/** One row of an action table: the tool, the action type it sends, and any arguments it adds. */
interface ActionRow {
  name: string;
  type: string;
  title: string;
  /** What an agent reads in the tool list: terse. */
  description: string;
  /** The longer account, for the CLI's help. */
  details: string;
  annotations: ToolAnnotations;
  /** Arguments besides the VM's `ID` (or the `Tag`), with the wire field each one fills. */
  args?: Shape;
  /** Wire field -> argument, or a function for a body a table cannot express (nested fields). */
  // biome-ignore lint/suspicious/noExplicitAny: a row's own args type its body function.
  body?: Record<string, string> | ((args: any) => Record<string, unknown>);
  /** A tool the spec does not name (see ToolDefinition.beyondSpec). */
  beyondSpec?: true;
  /** Checks across arguments, run with the schema's (before any request). */
  // biome-ignore lint/suspicious/noExplicitAny: a row's own args type its check.
  check?: (args: any, context: z.RefinementCtx) => void;
}

type RowArgs<R extends ActionRow> = R extends { args: infer A extends Shape } ? A : Record<never, never>;
type RowTool<R extends ActionRow, Key extends Shape, Result> = ToolDefinition<
  z.ZodObject<Key & RowArgs<R>>,
  Result,
  R['name']
>;

/** Turns a table of single-VM actions into tools posting to `/v2/droplets/{ID}/actions`. */
function vmActionTools<const T extends readonly ActionRow[]>(
  rows: T,
): { [K in keyof T]: RowTool<T[K], { ID: typeof VmId }, VmActionResult> } {
  return rows.map((row) =>
    defineTool({
      name: row.name,
      family: 'vms',
      title: row.title,
      description: row.description,
      details: `${row.details} Answers with the action; follow it with vm-action or action-get.`,
      input: z.strictObject({ ID: VmId, ...row.args }).superRefine(row.check ?? (() => {})),
      annotations: row.annotations,
      ...(row.beyondSpec ? { beyondSpec: true } : {}),
      wait: { kind: 'action' },
      request: {
        method: 'POST',
        path: '/v2/droplets/{ID}/actions',
        body: (row.body ?? {}) as never,
        fixed: { type: row.type },
      },
      result: returns<VmActionResult>(),
    }),
  ) as never;
}

/** Turns a table of tag actions into tools posting to `/v2/droplets/actions?tag_name=`. */
function tagActionTools<const T extends readonly ActionRow[]>(
  rows: T,
): { [K in keyof T]: RowTool<T[K], { Tag: typeof TagName }, VmActionsResult> } {
  return rows.map((row) =>
    defineTool({
      name: row.name,
      family: 'vms',
      title: row.title,
      description: row.description,
      details: `${row.details} Applies to every VM carrying the tag and answers with one action per VM; a tag no VM carries is the platform's 404.`,
      input: z.strictObject({ Tag: TagName, ...row.args }),
      annotations: row.annotations,
      wait: { kind: 'action' },
      request: {
        method: 'POST',
        path: '/v2/droplets/actions',
        query: { tag_name: 'Tag' },
        body: (row.body ?? {}) as never,
        fixed: { type: row.type },
      },
      result: returns<VmActionsResult>(),
    }),
  ) as never;
}

const { action, update, create, destructive } = annotations;

/** Actions on one VM, as the spec lists them. */
const VM_ACTIONS = [
  {
    name: 'vm-reboot',
    type: 'reboot',
    title: 'Reboot VM',
    annotations: action,
    description: 'Reboot a VM gracefully.',
    details: 'Reboots a VM gracefully, like running `reboot` inside it.',
  },
  {
    name: 'reset-vm-password',
    type: 'password_reset',
    title: 'Reset VM root password',
    annotations: action,
    description: 'Reset root password; emailed.',
    details:
      'Resets the root password of a VM; the platform emails the new one to the account (it is never returned).',
  },
  {
    name: 'rename-vm',
    type: 'rename',
    title: 'Rename VM',
    annotations: update,
    description: 'Rename a VM (and hostname).',
    details: 'Gives a VM a new name (also its hostname).',
    args: { Name: VmName('New name') },
    body: { name: 'Name' },
  },
  {
    name: 'change-kernel-vm',
    type: 'change_kernel',
    title: 'Change VM kernel',
    annotations: update,
    description: 'Set kernel for next boot.',
    details:
      "Sets the kernel a VM boots on its next power-on; the kernel must be one offered for the VM's image.",
    args: { KernelID: numericId('Kernel id') },
    body: { kernel: 'KernelID' },
  },
  {
    name: 'enable-ipv6-vm',
    type: 'enable_ipv6',
    title: 'Enable IPv6 on VM',
    annotations: update,
    description: 'Give a VM public IPv6.',
    details: 'Gives a VM a public IPv6 address (it appears in networks.v6).',
  },
  {
    name: 'enable-private-net-vm',
    type: 'enable_private_networking',
    title: 'Enable private networking on VM',
    annotations: update,
    description: 'Enable private networking.',
    details: "Enables private networking on a VM, inside its region's VPC.",
  },
  {
    name: 'enable-backups-vm',
    type: 'enable_backups',
    title: 'Enable VM backups',
    annotations: update,
    description: 'Turn on weekly backups.',
    details: 'Turns on automatic weekly backups of a VM; backups then appear in backup_ids.',
  },
  {
    name: 'disable-backups-vm',
    type: 'disable_backups',
    title: 'Disable VM backups',
    annotations: update,
    description: 'Turn off backups.',
    details: 'Turns off automatic backups of a VM; backups already taken are kept.',
  },
  {
    name: 'rebuild-vm-by-slug',
    type: 'rebuild',
    title: 'Rebuild VM from image slug',
    annotations: destructive,
    description: 'Reinstall from image slug; erases disk.',
    details:
      "Reinstalls a VM from a public image named by slug. Erases the VM's disk; keeps its id and IP addresses.",
    args: {
      ImageSlug: slug('Public image slug', 'ubuntu-24-04-x64'),
    },
    body: { image: 'ImageSlug' },
  },
  {
    name: 'rebuild-vm',
    type: 'rebuild',
    title: 'Rebuild VM from image',
    annotations: destructive,
    description: 'Reinstall from an image; erases disk.',
    details:
      "Reinstalls a VM from an image (public, snapshot or custom). Erases the VM's disk; keeps its id and IP addresses.",
    args: { ImageID: numericId('Image id') },
    body: { image: 'ImageID' },
  },
  {
    name: 'power-cycle-vm',
    type: 'power_cycle',
    title: 'Power-cycle VM',
    annotations: destructive,
    description: 'Hard power-cycle a VM.',
    details: 'Turns a VM off and on again, like pulling the plug: unsaved data may be lost.',
  },
  {
    name: 'power-on-vm',
    type: 'power_on',
    title: 'Power on VM',
    annotations: update,
    description: 'Power on a VM.',
    details: 'Powers on a VM that is off.',
  },
  {
    name: 'power-off-vm',
    type: 'power_off',
    title: 'Power off VM',
    annotations: destructive,
    description: 'Cut power; prefer shutdown-vm.',
    details: 'Cuts the power of a VM, like pulling the plug: unsaved data may be lost. Prefer shutdown-vm.',
  },
  {
    name: 'shutdown-vm',
    type: 'shutdown',
    title: 'Shut down VM',
    annotations: destructive,
    description: 'Gracefully shut down a VM.',
    details:
      'Shuts a VM down gracefully, like running `shutdown` inside it; it stays off (and billed) until powered on.',
  },
  {
    name: 'restore-vm',
    type: 'restore',
    title: 'Restore VM from backup or snapshot',
    annotations: destructive,
    description: 'Restore disk from backup/snapshot.',
    details:
      "Restores a VM's disk from one of its backups or snapshots (from the VM's backup_ids/snapshot_ids, or image-list Type user). Everything written since is lost.",
    args: {
      ImageID: numericId('Backup or snapshot id'),
    },
    body: { image: 'ImageID' },
  },
  {
    name: 'resize-vm',
    type: 'resize',
    title: 'Resize VM',
    annotations: destructive,
    description: 'Resize a powered-off VM.',
    details:
      "Moves a powered-off VM to another size, which must be offered in the VM's region (size-list). With ResizeDisk the disk grows too, which cannot be undone; without it only CPU and memory change, so the VM can be sized down later.",
    args: {
      Size: SizeSlug,
      ResizeDisk: z.boolean().default(false).describe('Grow disk too; irreversible'),
    },
    body: { size: 'Size', disk: 'ResizeDisk' },
  },
  {
    name: 'snapshot-vm',
    type: 'snapshot',
    title: 'Snapshot VM',
    annotations: create,
    description: 'Snapshot a VM.',
    details:
      "Saves an image of a VM's disk; the snapshot then appears in image-list (Type user) and in the VM's snapshot_ids.",
    args: { Name: SnapshotName },
    body: { name: 'Name' },
  },
  {
    name: 'vm-update-backup-policy',
    type: 'change_backup_policy',
    beyondSpec: true,
    title: 'Change VM backup policy',
    annotations: update,
    description: 'Set backup plan, weekday, hour.',
    details:
      'Changes when a VM with backups enabled is backed up: Plan daily (kept 7 days) or weekly (kept 4 weeks, on Weekday, Sunday unless told), in a 4-hour window starting at Hour UTC (0, 4, 8, 12, 16 or 20). vm-get-backup-policy shows the policy and the next window.',
    args: {
      Plan: z.enum(DROPLET_BACKUP_POLICY_PLAN).describe('daily or weekly'),
      Weekday: z.enum(DROPLET_BACKUP_POLICY_WEEKDAY).optional().describe('Weekly only'),
      Hour: z.literal([0, 4, 8, 12, 16, 20]).optional().describe('Window start, UTC'),
    },
    check: (args: { Plan: string; Weekday?: string }, context: z.RefinementCtx) => {
      if (args.Plan === 'daily' && args.Weekday !== undefined) {
        context.addIssue({ code: 'custom', path: ['Weekday'], message: 'applies to weekly plans only' });
      }
    },
    body: (args: { Plan: string; Weekday?: string; Hour?: number }) => ({
      backup_policy: omitUndefined({ plan: args.Plan, weekday: args.Weekday, hour: args.Hour }),
    }),
  },
] as const satisfies readonly ActionRow[];

/** Actions on every VM carrying a tag, as the spec lists them. */
const TAG_ACTIONS = [
  {
    name: 'power-cycle-vms-tag',
    type: 'power_cycle',
    title: 'Power-cycle tagged VMs',
    annotations: destructive,
    description: 'Hard power-cycle tagged VMs.',
    details: 'Turns the tagged VMs off and on again, like pulling the plug.',
  },
  {
    name: 'power-on-vms-tag',
    type: 'power_on',
    title: 'Power on tagged VMs',
    annotations: update,
    description: 'Power on tagged VMs.',
    details: 'Powers on the tagged VMs.',
  },
  {
    name: 'power-off-vms-tag',
    type: 'power_off',
    title: 'Power off tagged VMs',
    annotations: destructive,
    description: 'Cut power of tagged VMs.',
    details: 'Cuts the power of the tagged VMs: unsaved data may be lost.',
  },
  {
    name: 'shutdown-vms-tag',
    type: 'shutdown',
    title: 'Shut down tagged VMs',
    annotations: destructive,
    description: 'Shut down tagged VMs.',
    details: 'Shuts the tagged VMs down gracefully.',
  },
  {
    name: 'enable-backups-vms-tag',
    type: 'enable_backups',
    title: 'Enable backups of tagged VMs',
    annotations: update,
    description: 'Enable backups on tagged VMs.',
    details: 'Turns on automatic backups of the tagged VMs.',
  },
  {
    name: 'disable-backups-vms-tag',
    type: 'disable_backups',
    title: 'Disable backups of tagged VMs',
    annotations: update,
    description: 'Stop backups of tagged VMs.',
    details: 'Turns off automatic backups of the tagged VMs; backups already taken are kept.',
  },
  {
    name: 'snapshot-vms-tag',
    type: 'snapshot',
    title: 'Snapshot tagged VMs',
    annotations: create,
    description: 'Snapshot each tagged VM.',
    details: 'Saves a snapshot image of each tagged VM, all with the same name.',
    args: { Name: SnapshotName },
    body: { name: 'Name' },
  },
  {
    name: 'enable-ipv6-vms-tag',
    type: 'enable_ipv6',
    title: 'Enable IPv6 on tagged VMs',
    annotations: update,
    description: 'Give tagged VMs IPv6.',
    details: 'Gives each tagged VM a public IPv6 address.',
  },
  {
    name: 'enable-private-net-vms-tag',
    type: 'enable_private_networking',
    title: 'Enable private networking on tagged VMs',
    annotations: update,
    description: 'Private net for tagged VMs.',
    details: 'Enables private networking on each tagged VM.',
  },
] as const satisfies readonly ActionRow[];

export const vmsTools = [
  defineTool({
    name: 'vm-create',
    family: 'vms',
    title: 'Create VM',
    description: 'Create a VM; status new, then active. Size must be offered in Region.',
    details:
      'Creates a VM from an image (its id, or a public image\'s slug such as ubuntu-24-04-x64), in a region, at a size. It starts as status "new" and becomes "active" once booted (poll vm-get). The size must be offered in the region (size-list shows where) and its disk must fit the image. The name is also the hostname: letters, digits, "." and "-". The image may be a distribution, application, snapshot or custom image, from image-list. Optional: SshKeys (ids or MD5 fingerprints of keys already on the account, key-list; an unknown key is refused) go into root\'s authorized_keys; Tags (created when new; vm-list filters by them); UserData, cloud-init text or a script run on first boot, at most 64 KiB, kept but never shown again; VpcID, a VPC of the same region (vpc-list; otherwise the region\'s default VPC); IPv6 adds a public IPv6 address; WithVmAgent false skips the web-console agent, true makes its install failure fatal; Volumes, ids of detached volumes in the same region (volume-list), are attached at creation.',
    input: z.strictObject({
      Name: VmName('VM name and hostname'),
      Size: SizeSlug,
      ImageID: ImageRef,
      Region: RegionSlug,
      Backup: z.boolean().default(false).describe('Enable backups'),
      Monitoring: z.boolean().default(false).describe('Metrics agent'),
      SshKeys: z.array(SshKeyRef).max(100).optional().describe('SSH key ids/fingerprints'),
      Tags: z.array(TagName).max(100).optional().describe('Tag names'),
      UserData: UserData.optional(),
      VpcID: uuid('VPC id').optional(),
      IPv6: z.boolean().optional().describe('Public IPv6 address'),
      WithVmAgent: z.boolean().optional().describe('Web console agent'),
      Volumes: z.array(VolumeId).max(15).optional().describe('Volume ids to attach'),
    }),
    annotations: annotations.create,
    wait: { kind: 'vm' },
    request: {
      method: 'POST',
      path: '/v2/droplets',
      body: {
        name: 'Name',
        size: 'Size',
        image: 'ImageID',
        region: 'Region',
        backups: 'Backup',
        monitoring: 'Monitoring',
        ssh_keys: 'SshKeys',
        tags: 'Tags',
        user_data: 'UserData',
        vpc_uuid: 'VpcID',
        ipv6: 'IPv6',
        with_droplet_agent: 'WithVmAgent',
        volumes: 'Volumes',
      },
    },
    result: returns<VmCreated>(),
  }),
  defineTool({
    name: 'vm-delete',
    family: 'vms',
    title: 'Delete VM',
    description: 'Delete a VM and its backups; snapshots stay.',
    details: 'Destroys a VM and its disk. Its backups are deleted too; its snapshots are kept.',
    input: z.strictObject({ ID: VmId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/droplets/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'vm-get',
    family: 'vms',
    title: 'Get VM',
    description: 'One VM by id.',
    details:
      'Shows one VM: status (new, active, off), size, image, region, IP addresses (networks), features, backup and snapshot ids.',
    input: z.strictObject({ ID: VmId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/droplets/{ID}' },
    result: returns<{ droplet: Vm }>(),
  }),
  defineTool({
    name: 'vm-list',
    family: 'vms',
    title: 'List VMs',
    description: 'List the VMs.',
    details:
      'Lists the VMs of the account, or only those carrying Tag. Paginated: `links.pages.next` is present while more pages exist.',
    input: z.strictObject({ ...page, Tag: tagName('Only VMs with this tag').optional() }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/droplets', query: { ...pageQuery, tag_name: 'Tag' } },
    result: returns<VmList>(),
  }),
  defineTool({
    name: 'vm-action',
    family: 'vms',
    title: 'Get VM action',
    description: 'One action of a VM.',
    details: 'Shows one action performed on a VM: its type and status (in-progress, completed, errored).',
    input: z.strictObject({
      VmID: VmId,
      ActionID: numericId('Action id'),
    }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/droplets/{VmID}/actions/{ActionID}' },
    result: returns<VmActionResult>(),
  }),
  ...vmActionTools(VM_ACTIONS),
  ...tagActionTools(TAG_ACTIONS),
  ...vmRelatedTools,
  ...tagTools,
  ...volumeTools,
] as const;
