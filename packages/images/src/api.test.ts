/**
 * The images family as a library: the requests its tools send, and the typed API against the sandbox.
 */
import { type AnyTool, buildRequest, parseArgs, runTool } from '@cloudcall/core';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import { validateRequest } from '../../../tooling/openapi/index.js';
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

describe('requests on the wire', () => {
  it('image-list: Type user is ?private=true, distribution/application are ?type=, none lists all', async () => {
    const seen: unknown[] = [];
    const client = {
      request: async (options: { query?: unknown }) => {
        seen.push(options.query);
        return { images: [] };
      },
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

describe('imagesApi', () => {
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
