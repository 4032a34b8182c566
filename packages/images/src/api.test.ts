/**
 * The images family as a library: the requests its tools send (checked against the API
 * description), arguments refused before any request, and the typed API against the sandbox.
 */
import { type AnyTool, InputError, parseArgs, runTool } from '@cloudcall/core';
import { buildRequest } from '@cloudcall/core/internal';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { unrefusedPathValues } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import {
  assertValidResponse,
  noResponseBody,
  operation,
  validateRequest,
} from '../../../tooling/openapi/index.js';
import { imagesApi, imagesTools } from './index.js';

const tool = (name: string) => imagesTools.find((t) => t.name === name) as AnyTool;
const request = (name: string, args: Record<string, unknown>) =>
  buildRequest(tool(name).request as never, parseArgs(tool(name), args) as Record<string, unknown>);

let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(async () => {
  await connection.close();
});

/** Each tool, valid arguments, and the API operation it calls (API-MAP). */
const cases: [tool: string, args: Record<string, unknown>, operationId: string][] = [
  ['image-list', { Type: 'user' }, 'images_list'],
  ['image-get', { ID: 7 }, 'images_get'],
  [
    'image-create',
    { Name: 'base', Url: 'https://example.com/a.img', Region: 'nyc3' },
    'images_create_custom',
  ],
  ['image-update', { ID: 7, Name: 'n' }, 'images_update'],
  ['image-delete', { ID: 7 }, 'images_delete'],
  ['image-action-transfer', { ID: 7, Region: 'lon1' }, 'imageActions_post'],
  ['image-action-convert', { ID: 7 }, 'imageActions_post'],
  ['image-action-get', { ImageID: 7, ActionID: 3 }, 'imageActions_get'],
  ['size-list', {}, 'sizes_list'],
  ['region-list', { Page: 2, PerPage: 3 }, 'regions_list'],
  ['snapshot-list', { ResourceType: 'droplet' }, 'snapshots_list'],
  ['snapshot-get', { ID: 7 }, 'snapshots_get'],
  ['snapshot-delete', { ID: 'fbe805e8-866b-11e6-96bf-000f53315a41' }, 'snapshots_delete'],
];
const template = (path: string) => path.replace(/\{\w+\}/g, '{}');

/** Runs a tool against a client that records each request instead of sending it. */
async function sent(name: string, args: Record<string, unknown>) {
  const requests: { method: string; path: string; noResponseBody?: boolean }[] = [];
  const client = {
    request: async (options: (typeof requests)[number]) => void requests.push(options),
    // A call's own client (core gives a read-only tool one) records into the same list.
    forCall: () => client,
  };
  await runTool(tool(name), args, { client: client as never });
  return requests;
}

describe('requests on the wire', () => {
  it('covers every tool', () => {
    expect(cases.map(([name]) => name).sort()).toEqual(imagesTools.map((t) => t.name).sort());
  });

  it.each(cases)(
    '%s calls its operation, with noResponseBody exactly where it answers without a body',
    async (name, args, operationId) => {
      const [request, ...more] = await sent(name, args);
      expect(more).toEqual([]);
      const expected = operation(operationId);
      expect(request?.method).toBe(expected.method);
      expect(template(tool(name).request?.path ?? expected.path)).toBe(template(expected.path));
      expect(request?.path).toMatch(new RegExp(`^${expected.path.replace(/\{\w+\}/g, '[^/]+')}$`));
      expect(Boolean(request?.noResponseBody)).toBe(noResponseBody(operationId));
    },
  );

  it('image-list: Type user is ?private=true, distribution/application are ?type=, none lists all', async () => {
    const seen: unknown[] = [];
    const client = {
      request: async (options: { query?: unknown }) => {
        seen.push(options.query);
        return { images: [] };
      },
      forCall: () => client,
    };
    const list = tool('image-list');
    for (const Type of ['user', 'distribution', 'application', undefined]) {
      await runTool(list, Type ? { Type } : {}, { client: client as never });
    }
    expect(seen).toEqual([
      { page: 1, per_page: 50, private: true },
      { page: 1, per_page: 50, type: 'distribution' },
      { page: 1, per_page: 50, type: 'application' },
      { page: 1, per_page: 50 },
    ]);
  });

  it('image-create sends only the fields given, valid for the description', () => {
    const sent = request('image-create', { Name: 'base', Url: 'https://example.com/a.img', Region: 'nyc3' });
    expect(sent.body).toEqual({ name: 'base', url: 'https://example.com/a.img', region: 'nyc3' });
    expect(validateRequest('images_create_custom', sent.body).valid).toBe(true);
    const full = request('image-create', {
      Name: 'base',
      Url: 'https://example.com/a.img',
      Region: 'nyc3',
      Distribution: 'Ubuntu',
      Description: 'd',
      Tags: ['t'],
    });
    expect(full.body).toEqual({
      name: 'base',
      url: 'https://example.com/a.img',
      region: 'nyc3',
      distribution: 'Ubuntu',
      description: 'd',
      tags: ['t'],
    });
    expect(validateRequest('images_create_custom', full.body).valid).toBe(true);
  });

  it('size-list and region-list page by 50 unless told', () => {
    for (const name of ['size-list', 'region-list']) {
      expect(request(name, {}).query, name).toEqual({ page: 1, per_page: 50 });
    }
    expect(request('region-list', { Page: 2, PerPage: 3 })).toMatchObject({
      method: 'GET',
      path: '/v2/regions',
      query: { page: 2, per_page: 3 },
    });
  });

  it('image actions send their type', () => {
    const transfer = request('image-action-transfer', { ID: 7, Region: 'lon1' });
    expect(transfer).toMatchObject({
      path: '/v2/images/7/actions',
      body: { type: 'transfer', region: 'lon1' },
    });
    expect(validateRequest('imageActions_post', transfer.body).valid).toBe(true);
    const convert = request('image-action-convert', { ID: 7 });
    expect(convert.body).toEqual({ type: 'convert' });
    expect(validateRequest('imageActions_post', convert.body).valid).toBe(true);
    expect(request('image-update', { ID: 7, Name: 'n' })).toMatchObject({
      method: 'PUT',
      body: { name: 'n' },
    });
  });
});

describe('snapshots on the wire', () => {
  it('snapshot-list filters by resource_type only when asked; ids are numbers or volume UUIDs', () => {
    expect(request('snapshot-list', {}).query).toEqual({ page: 1, per_page: 50 });
    expect(request('snapshot-list', { ResourceType: 'volume' }).query).toEqual({
      page: 1,
      per_page: 50,
      resource_type: 'volume',
    });
    expect(() => request('snapshot-list', { ResourceType: 'image' })).toThrow(InputError);
    expect(request('snapshot-get', { ID: 171000001 }).path).toBe('/v2/snapshots/171000001');
    const uuid = 'fbe805e8-866b-11e6-96bf-000f53315a41';
    expect(request('snapshot-delete', { ID: uuid })).toMatchObject({
      method: 'DELETE',
      path: `/v2/snapshots/${uuid}`,
    });
    for (const ID of ['latest', '171000001', 0, -1]) {
      expect(() => request('snapshot-get', { ID }), String(ID)).toThrow(/argument ID/);
    }
  });
});

describe('arguments are checked before any request', () => {
  it('path ids refuse dot segments, slashes and control characters, naming the argument', async () => {
    const seen: string[] = [];
    const sandbox = await connectSandbox({ log: (line) => seen.push(line) });
    try {
      const problems = await unrefusedPathValues(
        cases,
        (name) => tool(name).request?.path,
        (name, args) => runTool(tool(name), args, { client: sandbox.client }).catch((e: unknown) => e),
        (error, arg) => error instanceof InputError && error.issues.some((i) => i.argument === arg),
      );
      expect(problems).toEqual([]);
      expect(seen).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('image-create takes http and https URLs only, refusing other schemes and control characters', async () => {
    const seen: string[] = [];
    const sandbox = await connectSandbox({ log: (line) => seen.push(line) });
    try {
      const images = imagesApi(sandbox.client);
      const create = (Url: string) =>
        images.imageCreate({ Name: 'x', Url, Region: 'nyc3' }).then(
          () => new Error(`accepted ${JSON.stringify(Url)}`),
          (e: unknown) => e as InputError,
        );
      for (const url of [
        'file:///etc/passwd',
        'javascript:alert(1)',
        'ftp://example.com/disk.img',
        'data:text/plain,x',
        'example.com/disk.img',
        'https://',
      ]) {
        const error = await create(url);
        expect(error, url).toBeInstanceOf(InputError);
        expect(error.message, url).toMatch(/^argument Url: must be an http:\/\/ or https:\/\/ URL/);
      }
      for (const url of [
        'https://example.com/a.img\r\nX-Injected: 1',
        'https://example.com/a.img\n',
        'https://example.com/\u0000a.img',
        'https://example.com/a\tb.img',
        'https://example.com/a b.img',
      ]) {
        const error = await create(url);
        expect(error, JSON.stringify(url)).toBeInstanceOf(InputError);
        expect(error.message, JSON.stringify(url)).toMatch(
          /argument Url: must not contain spaces or control characters/,
        );
      }
      const long = await create(`https://example.com/${'a'.repeat(2048)}`);
      expect(long).toBeInstanceOf(InputError);
      expect(long.message).toMatch(/argument Url: Too big/);
      expect(seen).toEqual([]);

      // http and https, in any case, go through.
      for (const url of ['http://example.com/a.img', 'HTTPS://Example.com/b.qcow2.gz?sig=abc%20d']) {
        await expect(images.imageCreate({ Name: 'ok', Url: url, Region: 'nyc3' })).resolves.toMatchObject({
          image: { status: 'NEW' },
        });
      }
      expect(seen.map((line) => line.replace(/ -> \d+$/, ''))).toEqual([
        'sandbox: POST /v2/images',
        'sandbox: POST /v2/images',
      ]);
    } finally {
      await sandbox.close();
    }
  });
});

describe('imagesApi', () => {
  it('lists regions, paged, as the API description answers them', async () => {
    const images = imagesApi(connection.client);
    const all = await images.regionList({ PerPage: 200 });
    assertValidResponse('regions_list', 200, all);
    expect(all.regions.find((r) => r.slug === 'nyc3')).toMatchObject({
      available: true,
      sizes: expect.arrayContaining(['s-1vcpu-1gb']),
    });
    expect(all.meta.total).toBe(all.regions.length);
    const second = await images.regionList({ Page: 2, PerPage: 3 });
    assertValidResponse('regions_list', 200, second);
    expect(second.regions.map((r) => r.slug)).toEqual(all.regions.slice(3, 6).map((r) => r.slug));
    expect(second.links.pages?.prev).toMatch(/page=1/);
  });

  it("a VM's snapshot is listed, got and deleted as a snapshot, and leaves image-list with it", async () => {
    const images = imagesApi(connection.client);
    const { droplet } = await connection.client.request<{ droplet: { id: number } }>({
      method: 'POST',
      path: '/v2/droplets',
      body: { name: 'snap-src', region: 'nyc3', size: 's-1vcpu-1gb', image: 161928327 },
    });
    await connection.sandbox.advanceClock(3_000);
    await connection.client.request({
      method: 'POST',
      path: `/v2/droplets/${droplet.id}/actions`,
      body: { type: 'snapshot', name: 'from-vm' },
    });
    await connection.sandbox.advanceClock(4_000);
    const listed = await images.snapshotList({ ResourceType: 'droplet' });
    assertValidResponse('snapshots_list', 200, listed);
    const snapshot = listed.snapshots.find((s) => s.resource_id === String(droplet.id));
    expect(snapshot).toMatchObject({ name: 'from-vm', resource_type: 'droplet', regions: ['nyc3'] });
    const id = Number(snapshot?.id);
    const got = await images.snapshotGet({ ID: id });
    assertValidResponse('snapshots_get', 200, got);
    expect(got.snapshot).toEqual(snapshot);
    expect((await images.snapshotList({ ResourceType: 'volume' })).snapshots).toEqual([]);
    expect((await images.imageList({ Type: 'user' })).images.map((i) => i.id)).toContain(id);
    await expect(images.snapshotDelete({ ID: id })).resolves.toEqual({ ok: true });
    expect((await images.imageList({ Type: 'user' })).images.map((i) => i.id)).not.toContain(id);
    await expect(images.snapshotGet({ ID: id })).rejects.toMatchObject({ status: 404 });
    await connection.client.request({ method: 'DELETE', path: `/v2/droplets/${droplet.id}` });
  });

  it('lists sizes and images, imports, renames and deletes an image', async () => {
    const images = imagesApi(connection.client);
    const { sizes, meta } = await images.sizeList({ PerPage: 5 });
    expect(sizes).toHaveLength(5);
    expect(meta.total).toBeGreaterThan(5);
    expect((await images.imageList({ Type: 'user' })).images).toEqual([]);
    const { image } = await images.imageCreate({
      Name: 'lib',
      Url: 'https://example.com/a.img',
      Region: 'nyc3',
    });
    expect(image.status).toBe('NEW');
    await connection.sandbox.advanceClock(4_000);
    expect((await images.imageGet({ ID: image.id })).image.status).toBe('available');
    expect((await images.imageList({ Type: 'user' })).images.map((i) => i.id)).toEqual([image.id]);
    expect((await images.imageUpdate({ ID: image.id, Name: 'lib-2' })).image.name).toBe('lib-2');
    await expect(images.imageDelete({ ID: image.id })).resolves.toEqual({ ok: true });
    await expect(images.imageList({ Type: 'user' })).resolves.toMatchObject({ images: [] });
  });
});
