/**
 * The platform's answers to the image and size tools, as library users receive them: the shapes
 * of the platform's OpenAPI description (@cloudcall/platform, generated), under the names this
 * package has always exported. `Always` marks what the description leaves optional and the
 * platform always sends.
 */
import type { Action, Region, Size } from '@cloudcall/core';
import type { Always, ListAnswer, Schemas } from '@cloudcall/platform';

export type Image = Always<Schemas['image'], 'id' | 'name' | 'type' | 'regions' | 'created_at'>;

export type ImageList = ListAnswer<'images_list', 'images', Image>;
export type SizeList = ListAnswer<'sizes_list', 'sizes'>;
export type RegionList = ListAnswer<'regions_list', 'regions'>;

export type { Region, Size };
/** An image action (transfer, convert). */
export type ImageAction = Action;

/** A snapshot of a VM (numeric id, as a string: it is an image too) or of a volume (UUID). */
export type Snapshot = Schemas['snapshots'];
export type SnapshotList = ListAnswer<'snapshots_list', 'snapshots'>;
