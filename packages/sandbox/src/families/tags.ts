/**
 * Tag state of the sandbox world. Tags are shared by every family: a VM, an image or a database
 * cluster carries the names of its tags in its own `tags`, which is what filters and tag actions
 * read. The tag itself records only what no resource holds: that it exists (a tag may tag
 * nothing) and the order resources were tagged in, from which its `last_tagged_uri` comes.
 */

/** The resource types the platform's tag endpoints accept. */
export const TAGGABLE_TYPES = ['droplet', 'image', 'volume', 'volume_snapshot', 'database'] as const;
export type TaggableType = (typeof TAGGABLE_TYPES)[number];

export interface StoredTag {
  /** As first written: the platform keeps that capitalisation (it is the tag's canonical name). */
  name: string;
  /** Resources in the order they were tagged, latest last. */
  tagged: { type: TaggableType; id: string }[];
}

export interface TagsState {
  tags: StoredTag[];
}

export function seedTagsState(): TagsState {
  return { tags: [] };
}
