/**
 * images endpoints of the sandbox: public images (distributions and applications) and the
 * account's own (snapshots, backups, custom imports), image actions, and the size and region
 * catalogues VMs are created from.
 */
import { DISTRIBUTION } from '@cloudcall/platform';
import {
  DURATIONS,
  IMAGE_REGION_SLUGS,
  imageVisible,
  type StoredImage,
  type StoredImageTransfer,
  schedule,
  settle,
  stateAt,
} from '../families/vms.js';
import {
  badRequest,
  intParam,
  listBody,
  notFound,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { type Distribution, type Image, imageKind } from '../seed/catalog.js';
import { iso } from '../time.js';
import { actionView, nextId, startAction, type World } from '../world.js';
import { actionListReply, actionReply } from './actions.js';
import { tagNewResource } from './tags.js';

/** Values the API's `distribution` enum allows. */
const DISTRIBUTIONS: readonly Distribution[] = DISTRIBUTION;

const images = (world: World) => world.images as StoredImage[];

/** An image as the platform shows it at `now`: a custom import stays NEW, in no region, until done. */
export function imageView(image: StoredImage, now: number): Image {
  const view = stateAt<Image>(image as Image, now);
  if (image._available_ms !== undefined && now < image._available_ms) {
    return { ...view, status: 'NEW', regions: [], size_gigabytes: null };
  }
  return view;
}

function findImage(world: World, request: SandboxRequest, param = 'id'): StoredImage {
  const ref = request.params[param] ?? '';
  const visible = images(world).filter((image) => imageVisible(image, request.now));
  const image = /^\d+$/.test(ref)
    ? visible.find((i) => i.id === Number(ref))
    : visible.find((i) => i.public && i.slug === ref);
  if (!image) throw notFound();
  return image;
}

/** The account's own image, or the platform's 422 for a public one. */
function ownImage(world: World, request: SandboxRequest): StoredImage {
  const image = findImage(world, request);
  if (image.public)
    throw unprocessable(`Image ${image.id} is a public image; only your own images can be changed.`);
  return image;
}

function regionSlug(world: World, body: Record<string, unknown>, purpose: string): string {
  const slug = requireString(body, 'region');
  const region = world.regions.find((r) => r.slug === slug);
  if (!region || !IMAGE_REGION_SLUGS.has(slug)) {
    throw unprocessable(`region ${slug} is not a region ${purpose} can use.`);
  }
  if (!region.available) throw unprocessable(`Region ${slug} is not available for new resources.`);
  return slug;
}

/** A transfer of this image (`transfer_id` of the body), or the platform's 404. */
function findTransfer(world: World, request: SandboxRequest, image: StoredImage): StoredImageTransfer {
  const id = request.body.transfer_id;
  if (typeof id !== 'number' || !Number.isInteger(id))
    throw badRequest('transfer_id is required: the id the transfer was given');
  const transfer = world.imageTransfers.find((t) => t.id === id && t.image_id === image.id);
  if (!transfer) throw notFound(`image ${image.id} has no transfer ${id}`);
  return transfer;
}

/** Moves a pending transfer on (accepted, declined, canceled), or the platform's 400 when it is not pending. */
function settleTransfer(transfer: StoredImageTransfer, status: StoredImageTransfer['status']): void {
  if (transfer.status !== 'pending')
    throw badRequest(`transfer ${transfer.id} is ${transfer.status}, no longer pending`);
  transfer.status = status;
}

/**
 * Image account transfers: a snapshot of the account offered to another account (by its email)
 * or team (by its UUID). The transfer stays pending until the recipient accepts it (the image then
 * leaves this account) or declines it, or the sender cancels it (the image stays). The sandbox
 * holds one account, so a transfer is never accepted by itself: accepting is what the recipient
 * would do, and takes the image away.
 */
const imageTransferRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v2/images/{id}/account_transfer',
    handler: (req, world) => {
      const image = findImage(world, req);
      if (image.public)
        throw badRequest(`Image ${image.id} is a public image; only your own snapshots can be transferred.`);
      const view = imageView(image, req.now);
      if (view.type !== 'snapshot')
        throw badRequest(`Image ${image.id} is a ${view.type}; only snapshot images can be transferred.`);
      if (view.status !== 'available') throw badRequest(`Image ${image.id} is not available yet.`);
      const { recipient_email: email, recipient_uuid: uuid } = req.body;
      if ((email === undefined) === (uuid === undefined)) {
        throw badRequest(
          'give exactly one recipient: recipient_email (an account) or recipient_uuid (a team)',
        );
      }
      if (email !== undefined && (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))) {
        throw badRequest('recipient_email must be an email address');
      }
      if (uuid !== undefined && (typeof uuid !== 'string' || uuid === ''))
        throw badRequest('recipient_uuid must be a team UUID');
      if (email === world.account.email || uuid === world.account.team.uuid) {
        throw badRequest('the recipient is this account: an image is transferred to another account or team');
      }
      if (world.imageTransfers.some((t) => t.image_id === image.id && t.status === 'pending')) {
        throw badRequest(`Image ${image.id} already has a pending transfer; cancel it first`);
      }
      const transfer: StoredImageTransfer = {
        // Counted from where the platform's transfer ids are.
        id: 3_164_000 + nextId(world, 'imageTransfer'),
        image_id: image.id,
        ...(typeof email === 'string' ? { recipient_email: email } : {}),
        ...(typeof uuid === 'string' ? { recipient_uuid: uuid } : {}),
        status: 'pending',
        created_ms: req.now,
      };
      world.imageTransfers.push(transfer);
      return { status: 201, body: { transfer_id: transfer.id } };
    },
  },
  {
    method: 'POST',
    path: '/v2/images/{id}/account_transfer/accept',
    handler: (req, world) => {
      const image = findImage(world, req);
      const transfer = findTransfer(world, req, image);
      const team = req.body.recipient_uuid;
      if (typeof team !== 'string' || team === '')
        throw badRequest('recipient_uuid is required: the team accepting the image');
      if (transfer.recipient_uuid !== undefined && transfer.recipient_uuid !== team) {
        throw badRequest(
          `transfer ${transfer.id} is offered to team ${transfer.recipient_uuid}, not ${team}`,
        );
      }
      settleTransfer(transfer, 'accepted');
      world.images = images(world).filter((i) => i.id !== image.id);
      return { status: 201 };
    },
  },
  {
    method: 'POST',
    path: '/v2/images/{id}/account_transfer/decline',
    handler: (req, world) => {
      settleTransfer(findTransfer(world, req, findImage(world, req)), 'declined');
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v2/images/{id}/account_transfer/cancel',
    handler: (req, world) => {
      settleTransfer(findTransfer(world, req, findImage(world, req)), 'canceled');
      return { status: 204 };
    },
  },
];

function hasPendingAction(world: World, image: StoredImage, now: number): boolean {
  return world.actions.some(
    (a) => a.resource_type === 'image' && a.resource_id === image.id && now < a.started_ms + a.duration_ms,
  );
}

export const imagesRoutes: Route[] = [
  ...imageTransferRoutes,
  {
    method: 'GET',
    path: '/v2/images',
    handler: (req, world) => {
      const type = req.query.get('type');
      const onlyPrivate = req.query.get('private') === 'true';
      const tag = req.query.get('tag_name');
      const listed = images(world)
        .filter((image) => imageVisible(image, req.now))
        .filter((image) => !onlyPrivate || !image.public)
        .filter((image) => !tag || (image.tags ?? []).includes(tag))
        .filter((image) => {
          if (!type) return true;
          if (type === 'distribution' || type === 'application') return imageKind[image.id] === type;
          return image.type === type;
        });
      return { body: listBody('images', listed, req, (image) => imageView(image, req.now)) };
    },
  },
  {
    method: 'POST',
    path: '/v2/images',
    handler: (req, world) => {
      const name = requireString(req.body, 'name');
      const url = requireString(req.body, 'url');
      // Checked before parsing: a URL parser silently drops CR, LF and tabs, and trims spaces.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
      if (/[\s\u0000-\u001f\u007f-\u009f]/.test(url)) {
        throw unprocessable('url must not contain spaces or control characters (such as CR or LF)');
      }
      if (!/^https?:\/\/[^/?#]/i.test(url) || !URL.canParse(url)) {
        throw unprocessable('url must be an http or https URL of the image to import');
      }
      const region = regionSlug(world, req.body, 'a custom image');
      const distribution = req.body.distribution ?? 'Unknown';
      if (typeof distribution !== 'string' || !DISTRIBUTIONS.includes(distribution as Distribution)) {
        throw unprocessable(`distribution must be one of ${DISTRIBUTIONS.join(', ')}`);
      }
      const description = req.body.description ?? '';
      if (typeof description !== 'string') throw unprocessable('description must be a string');
      const id = nextId(world, 'image');
      // Tags named for the first time are created, as the platform creates them.
      const tags = tagNewResource(world, req.body.tags, 'image', id);
      const image: StoredImage = {
        id,
        name,
        type: 'custom',
        distribution: distribution as Distribution,
        slug: null,
        public: false,
        regions: [region],
        created_at: iso(req.now),
        min_disk_size: 10,
        size_gigabytes: 2.34,
        description,
        tags,
        status: 'available',
        error_message: '',
        _available_ms: req.now + DURATIONS.imageImport,
      };
      images(world).push(image);
      return { status: 202, body: { image: imageView(image, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/images/{id}',
    handler: (req, world) => ({ body: { image: imageView(findImage(world, req), req.now) } }),
  },
  {
    method: 'PUT',
    path: '/v2/images/{id}',
    handler: (req, world) => {
      const image = ownImage(world, req);
      settle(image, req.now);
      image.name = requireString(req.body, 'name');
      if (req.body.description !== undefined) {
        if (typeof req.body.description !== 'string') throw unprocessable('description must be a string');
        image.description = req.body.description;
      }
      if (req.body.distribution !== undefined) {
        const distribution = req.body.distribution;
        if (typeof distribution !== 'string' || !DISTRIBUTIONS.includes(distribution as Distribution)) {
          throw unprocessable(`distribution must be one of ${DISTRIBUTIONS.join(', ')}`);
        }
        image.distribution = distribution as Distribution;
      }
      return { body: { image: imageView(image, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/images/{id}',
    handler: (req, world) => {
      const image = ownImage(world, req);
      world.images = images(world).filter((i) => i !== image);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/images/{id}/actions',
    handler: (req, world) => actionListReply(world, req, { type: 'image', id: findImage(world, req).id }),
  },
  {
    method: 'POST',
    path: '/v2/images/{id}/actions',
    handler: (req, world) => {
      const image = ownImage(world, req);
      settle(image, req.now);
      const type = req.body.type;
      if (type !== 'transfer' && type !== 'convert') {
        throw unprocessable(`type must be transfer or convert; got ${JSON.stringify(type)}`);
      }
      if (imageView(image, req.now).status !== 'available') {
        throw unprocessable(`Image ${image.id} is not available yet.`);
      }
      if (hasPendingAction(world, image, req.now)) throw unprocessable('Image already has a pending event.');
      const completes = req.now + DURATIONS.imageAction;
      let regionOfAction: string | null = image.regions[0] ?? null;
      if (type === 'transfer') {
        const region = regionSlug(world, req.body, 'an image transfer');
        if (image.regions.includes(region)) throw unprocessable(`Image ${image.id} is already in ${region}.`);
        schedule<Image>(image, completes, { regions: [...image.regions, region] });
        regionOfAction = region;
      } else {
        if (image.type !== 'backup') {
          throw unprocessable(
            `Image ${image.id} is a ${image.type}; only backups can be converted to snapshots.`,
          );
        }
        schedule<Image>(image, completes, { type: 'snapshot' });
      }
      const action = startAction(world, req.now, {
        type,
        resource_id: image.id,
        resource_type: 'image',
        region_slug: regionOfAction,
        duration_ms: DURATIONS.imageAction,
      });
      return { status: 201, body: { action: actionView(world, action, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/images/{id}/actions/{action}',
    handler: (req, world) =>
      actionReply(world, intParam(req, 'action'), req.now, { type: 'image', id: findImage(world, req).id }),
  },
  {
    method: 'GET',
    path: '/v2/sizes',
    handler: (req, world) => ({ body: listBody('sizes', world.sizes, req) }),
  },
  {
    method: 'GET',
    path: '/v2/regions',
    handler: (req, world) => ({ body: listBody('regions', world.regions, req) }),
  },
];
