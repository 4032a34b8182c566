/**
 * @cloudcall/images: public and private images, image actions (transfer, convert), snapshots of
 * VMs and volumes, VM sizes and regions, as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { imagesApi } from '@cloudcall/images';
 * const images = imagesApi(createClient({ token }));
 * const { images: mine } = await images.imageList({ Type: 'user' });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { imagesTools } from './tools.js';

export type {
  Image,
  ImageAction,
  ImageList,
  Region,
  RegionList,
  Size,
  SizeList,
  Snapshot,
  SnapshotList,
} from './types.js';
export { imagesTools };

export const imagesFamily: ToolFamily = {
  name: 'images',
  title: 'Images and sizes',
  description:
    'Images: list, get, create from URL, rename, delete, transfer, convert; snapshots of VMs and volumes; VM sizes; regions.',
  tools: imagesTools,
};

/** The images tools bound to a client: `imageList`, `imageActionTransfer`, `sizeList`, `regionList`... */
export function imagesApi(client: ApiClient): BoundTools<typeof imagesTools> {
  return bindTools(client, imagesTools);
}
