/**
 * tags endpoints of the sandbox: create, list, get and delete tags, and tag or untag resources
 * (VMs, the account's images, database clusters). Tags are shared state: tagging a VM changes the
 * VM's `tags`, which `GET /v2/droplets?tag_name=` and the by-tag actions read, and naming a new tag
 * on a resource (a VM, an image or a cluster created with tags) creates the tag, as the platform
 * does. Volumes and volume snapshots carry tags the same way.
 */
import { LIMITS } from '@cloudcall/core/internal';
import { type StoredTag, TAGGABLE_TYPES, type TaggableType } from '../families/tags.js';
import type { StoredImage } from '../families/vms.js';
import { HttpError, listBody, notFound, type Route, type SandboxRequest, unprocessable } from '../http.js';
import { derived, findItem, settled } from '../journal.js';
import type { World } from '../world.js';

/** The platform's tag names: letters, digits, "_", "-" and ":", at most 255 of them. */
const TAG_NAME = /^[a-zA-Z0-9_:-]+$/;

/** Why `name` is not a tag name, or undefined when it is one. */
export function tagNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'a tag name is required';
  if (name.length > LIMITS.tag)
    return `tag name ${name.slice(0, 20)}... is longer than ${LIMITS.tag} characters`;
  if (!TAG_NAME.test(name)) {
    return `tag name ${JSON.stringify(name)} may contain only letters, numbers, colons, dashes and underscores`;
  }
  return undefined;
}

/** A resource a tag can name, as the tag endpoints find it. */
interface Taggable {
  tags: string[] | null | undefined;
}

/** Finds a resource of the account by type and id; undefined when the account has none such. */
function findTaggable(world: World, type: TaggableType, id: string): Taggable | undefined {
  switch (type) {
    case 'droplet':
      return findItem(world.droplets, (d) => String(d.id) === id);
    case 'image':
      // Public images belong to no account: they cannot be tagged.
      return findItem(world.images as StoredImage[], (i) => !i.public && String(i.id) === id);
    case 'database':
      return findItem(world.clusters, (c) => c.id === id);
    case 'volume':
      return findItem(world.volumes, (v) => v.id === id);
    case 'volume_snapshot':
      return findItem(world.volumeSnapshots, (v) => v.id === id);
    default:
      return undefined;
  }
}

/** The collection path of each type, for `last_tagged_uri`. */
const URI_PATH: Record<TaggableType, string> = {
  droplet: 'droplets',
  image: 'images',
  volume: 'volumes',
  volume_snapshot: 'snapshots',
  database: 'databases',
};

type Carriers = Record<TaggableType, string[]>;

/**
 * Every tag name the account's resources carry, with the resources carrying it by type, in the
 * resources' order: built once for the resources as they are (`derived`), so that a page of tags
 * or a look-up costs what it reads, not a pass over every resource per tag.
 */
function carriedIndex(changing: World): Map<string, Carriers> {
  const world = settled(changing);
  const images = world.images as StoredImage[];
  const collections = ['droplets', 'images', 'volumes', 'volumeSnapshots', 'clusters'];
  return derived('carriers', world, collections, () => {
    const index = new Map<string, Carriers>();
    const add = (tags: readonly string[] | null | undefined, type: TaggableType, id: string) => {
      if (!tags?.length) return;
      for (const [i, name] of tags.entries()) {
        if (tags.indexOf(name) !== i) continue;
        let entry = index.get(name);
        if (!entry) {
          entry = { droplet: [], image: [], volume: [], volume_snapshot: [], database: [] };
          index.set(name, entry);
        }
        entry[type].push(id);
      }
    };
    for (const d of world.droplets) add(d.tags, 'droplet', String(d.id));
    for (const i of images) if (!i.public) add(i.tags, 'image', String(i.id));
    for (const v of world.volumes) add(v.tags, 'volume', v.id);
    for (const v of world.volumeSnapshots) add(v.tags, 'volume_snapshot', v.id);
    for (const c of world.clusters) add(c.tags, 'database', c.id);
    return index;
  });
}

/** Every resource carrying `name`, by type. */
function carriers(world: World, name: string): Carriers {
  return (
    carriedIndex(world).get(name) ?? { droplet: [], image: [], volume: [], volume_snapshot: [], database: [] }
  );
}

/**
 * Every tag of the account: those created (through the tag endpoints or by naming them on a
 * resource), then any name a resource carries that no tag records (a world saved before tags
 * were kept), so that what the resources show and what the tag endpoints show agree.
 */
function allTags(world: World): StoredTag[] {
  const known = new Set(world.tags.map((t) => t.name));
  return [...world.tags, ...carriedNames(world, known).map((name) => ({ name, tagged: [] }))];
}

/** The names resources carry that are no tag of `known`. */
function carriedNames(world: World, known: ReadonlySet<string>): string[] {
  return [...carriedIndex(world).keys()].filter((name) => !known.has(name));
}

/** The tag of that name, and whether it is one of `world.tags` (else resources only carry it). */
function lookUpTag(
  world: World,
  match: (name: string) => boolean,
): { tag: StoredTag; stored: boolean } | undefined {
  const stored = findItem(world.tags, (t) => match(t.name));
  if (stored) return { tag: stored, stored: true };
  const name = carriedNames(world, new Set()).find(match);
  return name === undefined ? undefined : { tag: { name, tagged: [] }, stored: false };
}

/** The tag named exactly `name` (the platform's paths take the canonical capitalisation), or 404. */
function findTag(world: World, name: string): { tag: StoredTag; stored: boolean } {
  const found = lookUpTag(world, (t) => t === name);
  if (!found) throw notFound(`tag ${name} not found`);
  return found;
}

/** The tag as the platform shows it: how many resources of each type carry it, and the latest one tagged. */
function tagView(world: World, tag: StoredTag, baseUrl: string) {
  const members = carriers(world, tag.name);
  const uri = (type: TaggableType, id: string) => `${baseUrl}/v2/${URI_PATH[type]}/${id}`;
  /** The member tagged last: by the recorded order, else the last one found. */
  const latest = (types: readonly TaggableType[]) => {
    const recorded = [...tag.tagged]
      .reverse()
      .find((t) => types.includes(t.type) && members[t.type].includes(t.id));
    if (recorded) return uri(recorded.type, recorded.id);
    const type = [...types].reverse().find((t) => members[t].length > 0);
    return type ? uri(type, members[type].at(-1) as string) : undefined;
  };
  const stats = (types: readonly TaggableType[]) => {
    const count = types.reduce((sum, type) => sum + members[type].length, 0);
    const last = latest(types);
    return last === undefined ? { count } : { count, last_tagged_uri: last };
  };
  return {
    name: tag.name,
    resources: {
      ...stats(TAGGABLE_TYPES),
      droplets: stats(['droplet']),
      images: stats(['image']),
      volumes: stats(['volume']),
      volume_snapshots: stats(['volume_snapshot']),
      databases: stats(['database']),
    },
  };
}

/**
 * The canonical names of `names`, each tag created when new and the resource recorded as its
 * latest. For resources created with tags (VMs, images, clusters): throws the platform's 422 for a
 * name that is not a tag name, before anything changes.
 */
export function tagNewResource(
  world: World,
  names: unknown,
  type: TaggableType,
  id: string | number,
): string[] {
  if (names === undefined || names === null) return [];
  if (!Array.isArray(names)) throw unprocessable('tags must be an array of tag names');
  for (const name of names) {
    const problem = tagNameProblem(name);
    if (problem) throw unprocessable(problem);
  }
  const canonical = (names as string[]).map(
    (name) => noteTagged(ensureTag(world, name), type, String(id)).name,
  );
  return [...new Set(canonical)];
}

/** The tag `name` names, whatever its capitalisation, created when there is none. */
function ensureTag(world: World, name: string): StoredTag {
  const lower = name.toLowerCase();
  const found = lookUpTag(world, (t) => t.toLowerCase() === lower);
  if (found?.stored) return found.tag;
  const tag: StoredTag = { name: found?.tag.name ?? name, tagged: [] };
  world.tags.push(tag);
  return tag;
}

function noteTagged(tag: StoredTag, type: TaggableType, id: string): StoredTag {
  tag.tagged = [...tag.tagged.filter((t) => !(t.type === type && t.id === id)), { type, id }];
  return tag;
}

/** The `resources` of a tag or untag request, each found, or the platform's 404 naming the first missing. */
function requestedResources(world: World, request: SandboxRequest) {
  const resources = request.body.resources;
  if (!Array.isArray(resources) || resources.length === 0) {
    throw unprocessable('resources must be a non-empty array of {resource_id, resource_type}');
  }
  return resources.map((item: unknown) => {
    const { resource_id: rawId, resource_type: type } = (item ?? {}) as Record<string, unknown>;
    if (typeof type !== 'string' || !(TAGGABLE_TYPES as readonly string[]).includes(type)) {
      throw unprocessable(
        `resource_type must be one of ${TAGGABLE_TYPES.join(', ')}; got ${JSON.stringify(type)}`,
      );
    }
    if ((typeof rawId !== 'string' && typeof rawId !== 'number') || String(rawId) === '') {
      throw unprocessable('resource_id is required: the id of the resource, as a string');
    }
    const id = String(rawId);
    const resource = findTaggable(world, type as TaggableType, id);
    if (!resource) throw notFound(`${type} ${id} not found`);
    return { type: type as TaggableType, id, resource };
  });
}

/** The tag of a request's path, checked for the platform's charset first. */
function pathTag(world: World, request: SandboxRequest): { tag: StoredTag; stored: boolean } {
  const name = request.params.tag ?? '';
  if (tagNameProblem(name)) throw notFound(`tag ${name} not found`);
  return findTag(world, name);
}

export const tagsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/tags',
    handler: (req, world) => ({
      body: listBody('tags', allTags(world), req, (tag) => tagView(world, tag, req.baseUrl)),
    }),
  },
  {
    method: 'POST',
    path: '/v2/tags',
    handler: (req, world) => {
      const problem = tagNameProblem(req.body.name);
      // This operation's 400 also carries `error` and `root_causes` (error_with_root_causes).
      if (problem) {
        throw new HttpError(400, 'bad_request', problem, {
          error: problem,
          messages: [problem],
          root_causes: [problem],
        });
      }
      // Creating a tag that exists answers it, in its canonical capitalisation.
      const tag = ensureTag(world, req.body.name as string);
      return { status: 201, body: { tag: tagView(world, tag, req.baseUrl) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/tags/{tag}',
    handler: (req, world) => ({ body: { tag: tagView(world, pathTag(world, req).tag, req.baseUrl) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/tags/{tag}',
    handler: (req, world) => {
      const { name } = pathTag(world, req).tag;
      // Deleting a tag untags every resource carrying it.
      for (const type of ['droplet', 'image', 'database'] as const) {
        for (const id of carriers(world, name)[type]) {
          const resource = findTaggable(world, type, id) as Taggable;
          resource.tags = (resource.tags ?? []).filter((t) => t !== name);
        }
      }
      world.tags = world.tags.filter((t) => t.name !== name);
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v2/tags/{tag}/resources',
    handler: (req, world) => {
      const found = pathTag(world, req);
      const tag = found.stored ? found.tag : ensureTag(world, found.tag.name);
      for (const { type, id, resource } of requestedResources(world, req)) {
        if (!(resource.tags ?? []).includes(tag.name)) resource.tags = [...(resource.tags ?? []), tag.name];
        noteTagged(tag, type, id);
      }
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/tags/{tag}/resources',
    handler: (req, world) => {
      const { name } = pathTag(world, req).tag;
      for (const { resource } of requestedResources(world, req)) {
        resource.tags = (resource.tags ?? []).filter((t) => t !== name);
      }
      return { status: 204 };
    },
  },
];
