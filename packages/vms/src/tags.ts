/**
 * Tags: labels shared by VMs, images, volumes, volume snapshots and database clusters. They live
 * in the vms family because VMs are what tags mostly serve: vm-list filters by them, the
 * `*-vms-tag` tools act on every VM carrying one, and vm-create creates those it names. All
 * beyond the spec.
 */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { pageQuery, tagName, UUID_PATTERN } from '@cloudcall/core/internal';
import { TAGS_RESOURCE_RESOURCES_RESOURCE_TYPE } from '@cloudcall/platform';
import { z } from 'zod';
import { page } from './schemas.js';
import type { Tag, TagList } from './types.js';

const TagName = tagName('Tag name');

/** What the platform's tag endpoints can tag, by its resource type names. */
// The description's resource types, and databases, which the spec's tag tools take too.
const RESOURCE_TYPES = [...TAGS_RESOURCE_RESOURCES_RESOURCE_TYPE, 'database'] as const;

/** One resource to tag: numeric ids for VMs (droplet) and images, UUIDs for the others. */
const Resource = z
  .strictObject({
    resource_id: z
      .union([z.number().int().positive(), z.string().max(64)])
      .transform(String)
      .describe('VM/image id, or UUID'),
    resource_type: z.enum(RESOURCE_TYPES).describe('droplet is a VM'),
  })
  .superRefine((resource, context) => {
    const numeric = resource.resource_type === 'droplet' || resource.resource_type === 'image';
    if (numeric ? !/^\d+$/.test(resource.resource_id) : !UUID_PATTERN.test(resource.resource_id)) {
      context.addIssue({
        code: 'custom',
        path: ['resource_id'],
        message: numeric
          ? `expected the numeric id of the ${resource.resource_type === 'droplet' ? 'VM' : 'image'}`
          : `expected the UUID of the ${resource.resource_type}`,
      });
    }
  });

const Resources = z.array(Resource).min(1).describe('droplet means VM');

/**
 * Tag or untag: the same request, POST or DELETE. Untagging is destructive: it removes what
 * protection rules (`tag:prod`) and tag-wide actions rely on.
 */
function taggingTool(
  name: 'tag-resources' | 'untag-resources',
  method: 'POST' | 'DELETE',
  title: string,
  description: string,
  details: string,
) {
  return defineTool({
    name,
    family: 'vms',
    beyondSpec: true,
    title,
    description,
    details,
    input: z.strictObject({ Tag: TagName, Resources }),
    annotations: method === 'DELETE' ? annotations.destroy : annotations.update,
    request: { method, path: '/v2/tags/{Tag}/resources', body: { resources: 'Resources' } },
    result: returns<{ ok: true }>(),
  });
}

export const tagTools = [
  defineTool({
    name: 'tag-create',
    family: 'vms',
    beyondSpec: true,
    title: 'Create tag',
    description: 'Create a tag.',
    details:
      'Creates a tag: letters, digits, "_", "-" and ":", up to 255 characters. Its first capitalisation stays (creating "prod" when "PROD" exists answers "PROD"). vm-create and image-create create the tags they name.',
    input: z.strictObject({ Name: TagName }),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/tags', body: { name: 'Name' } },
    result: returns<{ tag: Tag }>(),
  }),
  defineTool({
    name: 'tag-list',
    family: 'vms',
    beyondSpec: true,
    title: 'List tags',
    description: 'Tags, with resource counts.',
    details: 'Lists the tags of the account, each with how many resources of each type carry it. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/tags', query: pageQuery },
    result: returns<TagList>(),
  }),
  defineTool({
    name: 'tag-get',
    family: 'vms',
    beyondSpec: true,
    title: 'Get tag',
    description: 'One tag and its counts.',
    details:
      'Shows one tag (named exactly as created): how many VMs (droplets), images, volumes, volume snapshots and databases carry it, and the last one tagged (last_tagged_uri). vm-list with Tag lists its VMs.',
    input: z.strictObject({ Name: TagName }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/tags/{Name}' },
    result: returns<{ tag: Tag }>(),
  }),
  defineTool({
    name: 'tag-delete',
    family: 'vms',
    beyondSpec: true,
    title: 'Delete tag',
    description: 'Delete a tag; untags all.',
    details:
      'Deletes a tag and removes it from every resource carrying it (firewalls and load balancers that name it then match nothing). The resources stay.',
    input: z.strictObject({ Name: TagName }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/tags/{Name}' },
    result: returns<{ ok: true }>(),
  }),
  taggingTool(
    'tag-resources',
    'POST',
    'Tag resources',
    'Tag VMs, images, volumes, DBs.',
    'Adds a tag (tag-create first) to resources, each {resource_id, resource_type}: resource_type droplet (a VM, numeric id from vm-list), image (numeric id of an own image or snapshot), volume, volume_snapshot or database (UUIDs, from db-cluster-list for databases). An unknown resource is refused and nothing is tagged.',
  ),
  taggingTool(
    'untag-resources',
    'DELETE',
    'Untag resources',
    'Remove a tag from resources.',
    'Removes a tag from resources, given as for tag-resources; resources not carrying it are left as they are. The tag itself stays (tag-delete removes it).',
  ),
] as const;
