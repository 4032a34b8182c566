/**
 * Any operation by its operationId, typed by the platform's generated shapes: a call that fits is
 * sent (to the sandbox on loopback), one that does not is refused before anything is sent, and
 * the types hold a caller to the operation's parameters (checked by the repository's typecheck).
 */
import { InputError } from '@cloudcall/core';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  callableOperation,
  callOperation,
  type OperationId,
  type OperationInput,
  type OperationResult,
} from './call.js';

let sandbox: SandboxConnection;
const seen: string[] = [];

beforeAll(async () => {
  sandbox = await connectSandbox({ onRequest: (info) => seen.push(`${info.method} ${info.target}`) });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  seen.length = 0;
});

describe('callOperation', () => {
  it('sends a call that fits its operation, and answers what the platform does', async () => {
    const created = await callOperation(sandbox.client, 'tags_create', { body: { name: 'call-test' } });
    expect(created).toMatchObject({ tag: { name: 'call-test' } });
    const read = await callOperation(sandbox.client, 'tags_get', { path: { tag_id: 'call-test' } });
    expect(read).toMatchObject({ tag: { name: 'call-test' } });
    const listed = await callOperation(sandbox.client, 'tags_list', { query: { per_page: 200 } });
    expect(listed).toMatchObject({
      tags: expect.arrayContaining([expect.objectContaining({ name: 'call-test' })]),
    });
    // No content: a 204 answers { ok: true }.
    expect(await callOperation(sandbox.client, 'tags_delete', { path: { tag_id: 'call-test' } })).toEqual({
      ok: true,
    });
    expect(seen).toEqual([
      'POST /v2/tags',
      'GET /v2/tags/call-test',
      'GET /v2/tags?per_page=200',
      'DELETE /v2/tags/call-test',
    ]);
  });

  it('refuses a call that does not fit before anything is sent', async () => {
    const bad = callOperation(sandbox.client, 'droplets_get', { path: { droplet_id: 'abc' as never } });
    await expect(bad).rejects.toBeInstanceOf(InputError);
    await expect(bad).rejects.toThrow('argument Path: {droplet_id} must be integer; got "abc"');
    await expect(
      callOperation(sandbox.client, 'tags_create', { body: { name: 5 as never } }),
    ).rejects.toThrow('argument Body.name: must be string');
    await expect(
      callOperation(sandbox.client, 'droplets_list', { query: { per_page: 500, nope: 1 } as never }),
    ).rejects.toThrow(
      /argument Query.per_page: must be <= 200; got 500; argument Query.nope: is not a parameter/,
    );
    expect(seen).toEqual([]);
  });

  it('refuses an operation that is none, or one served elsewhere', async () => {
    await expect(
      callOperation(sandbox.client, 'droplets_explode' as OperationId, {} as never),
    ).rejects.toThrow("argument Operation: is no operation of the platform's API (api-search finds them)");
    expect(() => callableOperation('inference_list_models')).toThrow(
      /is served at https:\/\/inference\.do-ai\.run/,
    );
    expect(callableOperation('droplets_get').path).toBe('/v2/droplets/{droplet_id}');
    expect(seen).toEqual([]);
  });

  it("types a call by its operation's parameters, body and answer", () => {
    expectTypeOf<OperationInput<'droplets_get'>>()
      .toHaveProperty('path')
      .toEqualTypeOf<{ droplet_id: number }>();
    expectTypeOf<OperationInput<'tags_create'>['body']>().toHaveProperty('name');
    // No body where the operation takes none; an optional one where it is optional.
    expectTypeOf<OperationInput<'droplets_get'>['body']>().toEqualTypeOf<undefined>();
    expectTypeOf<
      NonNullable<OperationInput<'droplets_destroy_withAssociatedResourcesSelective'>['body']>
    >().toHaveProperty('volumes');
    const selective: OperationInput<'droplets_destroy_withAssociatedResourcesSelective'> = {
      path: { droplet_id: 7 },
    };
    expectTypeOf<OperationResult<'tags_delete'>>().toEqualTypeOf<{ readonly ok: true }>();
    // @ts-expect-error path.droplet_id is required
    const missing: OperationInput<'droplets_get'> = { path: {} };
    // @ts-expect-error droplets_get takes a path, not a body
    const withBody: OperationInput<'droplets_get'> = { path: { droplet_id: 7 }, body: { name: 'x' } };
    // @ts-expect-error tags_create needs its body
    const noBody: OperationInput<'tags_create'> = {};
    const fits: OperationInput<'droplets_get'> = { path: { droplet_id: 7 } };
    expect([missing, withBody, noBody, fits, selective]).toHaveLength(5);
  });
});
