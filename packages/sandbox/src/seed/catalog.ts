/**
 * The platform-owned catalogue a fresh sandbox account sees: regions, droplet sizes, public images and
 * kernels. Every object is in the API's wire shape, so handlers can serve (a clone of) it as is.
 *
 * The catalogue is static: it does not change with the account's state, only with this file.
 */

import type { Schemas } from '@cloudcall/platform';

/** Values of the `distribution` enum; the API's schema rejects anything else (e.g. "AlmaLinux"). */
export type Distribution = Schemas['distribution'];

export type ImageType = NonNullable<Schemas['image']['type']>;
export type ImageStatus = NonNullable<Schemas['image']['status']>;

export type Region = Schemas['region'];

export type Size = Schemas['size'];

/**
 * An image as the sandbox sends it: every field of the description's `image`, none left out; its
 * region slugs are strings here, checked against the description's list (REGION_SLUG) where an
 * image gets one.
 */
export type Image = Omit<Required<Schemas['image']>, 'regions'> & { regions: string[] };

export type Kernel = Required<NonNullable<Schemas['kernel']>>;

/** The two public image listings of `GET /v2/images?type=...`; user images are `?private=true`. */
export type PublicImageKind = 'distribution' | 'application';

// ---------------------------------------------------------------------------------------------------
// Sizes

/** Hours the platform bills a month at most: hourly prices are the monthly price over 672 (28 days). */
export const HOURS_PER_BILLING_MONTH = 672;

const hourly = (monthly: number): number => Math.round((monthly / HOURS_PER_BILLING_MONTH) * 1e5) / 1e5;

// Every region open for new resources. atl1 is the newest, which is why several families skip it.
const OPEN_REGIONS = [
  'nyc1',
  'nyc3',
  'sfo2',
  'sfo3',
  'ams3',
  'sgp1',
  'lon1',
  'fra1',
  'tor1',
  'blr1',
  'syd1',
  'atl1',
] as const;

const except = (...missing: string[]): string[] => OPEN_REGIONS.filter((slug) => !missing.includes(slug));

type SizeSpec = [
  slug: string,
  memoryMib: number,
  vcpus: number,
  diskGb: number,
  transferTb: number,
  priceMonthly: number,
  description: string,
  regions: string[],
];

// Ordered by monthly price, as the platform lists them. Memory- and storage-optimized sizes are absent
// from blr1 and syd1 (and the 512 MiB size from most regions) so "size not offered in region" is testable.
const SIZE_SPECS: SizeSpec[] = [
  ['s-1vcpu-512mb-10gb', 512, 1, 10, 0.5, 4, 'Basic', ['nyc1', 'nyc3', 'sfo3', 'ams3', 'fra1', 'sgp1']],
  ['s-1vcpu-1gb', 1024, 1, 25, 1, 6, 'Basic', except()],
  ['s-1vcpu-1gb-amd', 1024, 1, 25, 1, 7, 'Basic AMD', except('atl1')],
  ['s-1vcpu-1gb-intel', 1024, 1, 35, 1, 8, 'Basic Intel', except('atl1')],
  ['s-1vcpu-2gb', 2048, 1, 50, 2, 12, 'Basic', except()],
  ['s-1vcpu-2gb-amd', 2048, 1, 50, 2, 14, 'Basic AMD', except('atl1')],
  ['s-3vcpu-1gb', 1024, 3, 60, 3, 15, 'Basic', []],
  ['s-1vcpu-2gb-intel', 2048, 1, 70, 2, 16, 'Basic Intel', except('atl1')],
  ['s-2vcpu-2gb', 2048, 2, 60, 3, 18, 'Basic', except()],
  ['s-2vcpu-2gb-amd', 2048, 2, 60, 3, 21, 'Basic AMD', except('atl1')],
  ['s-2vcpu-4gb', 4096, 2, 80, 4, 24, 'Basic', except()],
  ['s-2vcpu-4gb-amd', 4096, 2, 80, 4, 28, 'Basic AMD', except('atl1')],
  ['s-2vcpu-4gb-intel', 4096, 2, 120, 4, 32, 'Basic Intel', except('atl1')],
  ['c-2', 4096, 2, 25, 4, 42, 'CPU-Optimized', except()],
  ['s-4vcpu-8gb', 8192, 4, 160, 5, 48, 'Basic', except()],
  ['s-4vcpu-8gb-amd', 8192, 4, 160, 5, 56, 'Basic AMD', except('atl1')],
  ['g-2vcpu-8gb', 8192, 2, 25, 4, 63, 'General Purpose', except()],
  ['s-4vcpu-8gb-intel', 8192, 4, 240, 5, 64, 'Basic Intel', except('atl1')],
  ['c-4', 8192, 4, 50, 5, 84, 'CPU-Optimized', except()],
  ['m-2vcpu-16gb', 16384, 2, 50, 4, 84, 'Memory-Optimized', except('blr1', 'syd1')],
  ['s-8vcpu-16gb', 16384, 8, 320, 6, 96, 'Basic', except()],
  ['g-4vcpu-16gb', 16384, 4, 50, 5, 126, 'General Purpose', except()],
  ['so-2vcpu-16gb', 16384, 2, 300, 4, 131, 'Storage-Optimized', except('blr1', 'syd1', 'atl1')],
  ['m-4vcpu-32gb', 32768, 4, 100, 6, 168, 'Memory-Optimized', except('blr1', 'syd1')],
  ['so-4vcpu-32gb', 32768, 4, 600, 6, 262, 'Storage-Optimized', except('blr1', 'syd1', 'atl1')],
];

/**
 * Sizes of the catalogue. `s-3vcpu-1gb` is a retired size: listed, `available: false`, in no region,
 * as the platform keeps showing sizes old droplets may still run on.
 */
export const sizes: Size[] = SIZE_SPECS.map(
  ([slug, memory, vcpus, disk, transfer, priceMonthly, description, sizeRegions]) => ({
    slug,
    memory,
    vcpus,
    disk,
    transfer,
    price_monthly: priceMonthly,
    price_hourly: hourly(priceMonthly),
    regions: [...sizeRegions],
    available: sizeRegions.length > 0,
    description,
    disk_info: [{ type: 'local', size: { amount: disk, unit: 'gib' } }],
  }),
);

// ---------------------------------------------------------------------------------------------------
// Regions

const STANDARD_FEATURES = ['backups', 'ipv6', 'metadata', 'install_agent', 'storage', 'image_transfer'];

const REGION_NAMES: [slug: string, name: string, available: boolean][] = [
  ['nyc1', 'New York 1', true],
  ['nyc2', 'New York 2', false],
  ['nyc3', 'New York 3', true],
  ['sfo2', 'San Francisco 2', true],
  ['sfo3', 'San Francisco 3', true],
  ['ams2', 'Amsterdam 2', false],
  ['ams3', 'Amsterdam 3', true],
  ['sgp1', 'Singapore 1', true],
  ['lon1', 'London 1', true],
  ['fra1', 'Frankfurt 1', true],
  ['tor1', 'Toronto 1', true],
  ['blr1', 'Bangalore 1', true],
  ['syd1', 'Sydney 1', true],
  ['atl1', 'Atlanta 1', true],
];

/**
 * Regions of the catalogue. nyc2 and ams2 are closed to new resources (`available: false`, no sizes).
 * A region's `sizes` is derived from the sizes' `regions`, so the two views can never disagree.
 */
export const regions: Region[] = REGION_NAMES.map(([slug, name, available]) => ({
  name,
  slug,
  features: [...STANDARD_FEATURES],
  available,
  sizes: sizes.filter((size) => size.available && size.regions.includes(slug)).map((size) => size.slug),
}));

// ---------------------------------------------------------------------------------------------------
// Images

// The image schema's `regions` items are the `region_slug` enum, which predates atl1: listing atl1 there
// would make image responses invalid. A handler checking "image available in region" should therefore
// treat the public images listed in every other open region as available in atl1 too.
const IMAGE_REGIONS = OPEN_REGIONS.filter((slug) => slug !== 'atl1');

type ImageSpec = [
  id: number,
  name: string,
  distribution: Distribution,
  slug: string,
  createdAt: string,
  minDiskSize: number,
  sizeGigabytes: number,
  description: string,
];

const publicImage = (
  [id, name, distribution, slug, createdAt, minDiskSize, sizeGigabytes, description]: ImageSpec,
  imageRegions: readonly string[] = IMAGE_REGIONS,
): Image => ({
  id,
  name,
  type: 'base',
  distribution,
  slug,
  public: true,
  regions: [...imageRegions],
  created_at: createdAt,
  min_disk_size: minDiskSize,
  size_gigabytes: sizeGigabytes,
  description,
  tags: [],
  status: 'available',
  error_message: '',
});

const DISTRIBUTION_SPECS: ImageSpec[] = [
  [
    161928327,
    '24.04 (LTS) x64',
    'Ubuntu',
    'ubuntu-24-04-x64',
    '2024-07-18T14:31:02Z',
    7,
    2.42,
    'Ubuntu 24.04 x64',
  ],
  [
    155198733,
    '22.04 (LTS) x64',
    'Ubuntu',
    'ubuntu-22-04-x64',
    '2024-04-09T17:02:44Z',
    7,
    2.31,
    'Ubuntu 22.04 x64',
  ],
  [158441207, '12 x64', 'Debian', 'debian-12-x64', '2024-06-03T09:12:51Z', 7, 1.12, 'Debian 12 x64'],
  [148735519, '11 x64', 'Debian', 'debian-11-x64', '2024-01-22T11:48:09Z', 7, 0.98, 'Debian 11 x64'],
  [157846105, '40 x64', 'Fedora', 'fedora-40-x64', '2024-05-21T08:20:37Z', 15, 1.58, 'Fedora 40 x64'],
  [
    156318742,
    '9 Stream x64',
    'CentOS',
    'centos-stream-9-x64',
    '2024-05-02T12:44:18Z',
    10,
    1.34,
    'CentOS Stream 9 x64',
  ],
  [
    157012366,
    '9 x64',
    'Rocky Linux',
    'rockylinux-9-x64',
    '2024-05-13T16:05:29Z',
    10,
    1.41,
    'Rocky Linux 9 x64',
  ],
  // AlmaLinux is left out on purpose: the platform reports its distribution as "AlmaLinux", a value the
  // schema's `distribution` enum does not allow, so it could not be served in wire shape.
];

/** Operating-system images (`GET /v2/images?type=distribution`). */
export const distributionImages: Image[] = DISTRIBUTION_SPECS.map((spec) => publicImage(spec));

/** 1-Click application images (`GET /v2/images?type=application`), all built on Ubuntu 22.04. */
export const applicationImages: Image[] = [
  publicImage([
    160877451,
    'Docker 26.1 on Ubuntu 22.04',
    'Ubuntu',
    'docker-20-04',
    '2024-07-09T10:17:55Z',
    25,
    4.62,
    'Docker with Docker Compose, on Ubuntu 22.04',
  ]),
  publicImage([
    160104812,
    'WordPress 6.5 on Ubuntu 22.04',
    'Ubuntu',
    'wordpress-20-04',
    '2024-06-26T15:40:12Z',
    25,
    5.87,
    'WordPress with LAMP, on Ubuntu 22.04',
  ]),
  publicImage([
    159322190,
    'LAMP on Ubuntu 22.04',
    'Ubuntu',
    'lamp-20-04',
    '2024-06-14T07:58:33Z',
    25,
    4.11,
    'Apache, MySQL and PHP on Ubuntu 22.04',
  ]),
  publicImage([
    160551034,
    'Node.js 20 on Ubuntu 22.04',
    'Ubuntu',
    'nodejs-20-04',
    '2024-07-02T13:26:40Z',
    25,
    3.96,
    'Node.js 20 LTS with PM2 and NGINX, on Ubuntu 22.04',
  ]),
  // Offered in a handful of regions only, so "image not available in region" is testable.
  publicImage(
    [
      154870336,
      'MongoDB 7.0 on Ubuntu 22.04',
      'Ubuntu',
      'mongodb-7-0',
      '2024-03-28T18:09:21Z',
      25,
      3.44,
      'MongoDB 7.0 Community Edition on Ubuntu 22.04',
    ],
    ['nyc1', 'nyc3', 'sfo3', 'ams3', 'fra1', 'lon1', 'sgp1'],
  ),
];

/** Every public image, distributions first. */
export const images: Image[] = [...distributionImages, ...applicationImages];

/**
 * Which public listing each catalogue image belongs to.
 *
 * Nothing on the wire tells a distribution image from an application one: both are `type: 'base'`,
 * `public: true`, with a `distribution` (apps report the OS they are built on) and a slug. The platform
 * decides membership server-side, so the sandbox must too: `?type=distribution|application` filters by
 * this map, `?private=true` lists the account's own images (`public: false`: snapshots, backups, custom),
 * and no filter lists everything.
 */
export const imageKind: Record<number, PublicImageKind> = Object.fromEntries([
  ...distributionImages.map((image) => [image.id, 'distribution'] as const),
  ...applicationImages.map((image) => [image.id, 'application'] as const),
]);

// ---------------------------------------------------------------------------------------------------
// Kernels

// Droplets boot their image's own kernel through the GrubLoader, so every distribution offers it first.
const GRUB_LOADER: Kernel = {
  id: 9263,
  name: 'DigitalOcean GrubLoader v0.2 (20160714)',
  version: '2016.07.13-DigitalOcean_loader_Ubuntu',
};

/** Kernels `GET /v2/droplets/{id}/kernels` lists, by the droplet image's distribution. */
export const kernelsByDistribution: Partial<Record<Distribution, Kernel[]>> = {
  Ubuntu: [
    GRUB_LOADER,
    { id: 10487, name: 'Ubuntu 24.04 x64 vmlinuz-6.8.0-41-generic', version: '6.8.0-41-generic' },
    { id: 10486, name: 'Ubuntu 24.04 x64 vmlinuz-6.8.0-31-generic', version: '6.8.0-31-generic' },
    { id: 10233, name: 'Ubuntu 22.04 x64 vmlinuz-5.15.0-113-generic', version: '5.15.0-113-generic' },
  ],
  Debian: [
    GRUB_LOADER,
    { id: 10391, name: 'Debian 12 x64 vmlinuz-6.1.0-21-amd64', version: '6.1.0-21-amd64' },
    { id: 10102, name: 'Debian 11 x64 vmlinuz-5.10.0-30-amd64', version: '5.10.0-30-amd64' },
  ],
};

/** Kernels offered to a droplet running `distribution`: the GrubLoader alone when none are listed. */
export function kernelsFor(distribution: Distribution): Kernel[] {
  return kernelsByDistribution[distribution] ?? [GRUB_LOADER];
}
