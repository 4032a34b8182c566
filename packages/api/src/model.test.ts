/**
 * The operation model's look-ups: the operation a request is (by method and concrete path), one
 * named by id or template, the values at a body path, and what a request names.
 */
import { describe, expect, it } from 'vitest';
import {
  findOperation,
  kindOfType,
  kindOfUrn,
  kinds,
  methodsOf,
  modelData,
  namedBy,
  namedOperation,
  type OperationData,
  operationById,
  operations,
  valuesAt,
} from './model.js';

const operation = (id: string): OperationData => {
  const found = operationById(id);
  if (!found) throw new Error(`${id} is no operation of the model`);
  return found;
};
const found = (method: string, path: string) => {
  const match = findOperation(method, path);
  return match && { id: match.operation.id, params: match.params };
};

describe('findOperation', () => {
  it('prefers a literal segment to a parameter', () => {
    expect(found('POST', '/v2/droplets/actions')).toEqual({ id: 'dropletActions_post_byTag', params: {} });
    expect(found('POST', '/v2/droplets/7/actions')).toEqual({
      id: 'dropletActions_post',
      params: { droplet_id: '7' },
    });
    expect(found('GET', '/v2/droplets/autoscale')?.id).toBe('autoscalepools_list');
    expect(found('GET', '/v2/projects/default')?.id).toBe('projects_get_default');
    expect(found('GET', '/v2/projects/4e1bfbc3-dc3e-41f2-a18f-1b4d7ba71679')?.id).toBe('projects_get');
  });

  it('falls back to a parameter when the literal branch has no operation of the method', () => {
    // /v2/volumes/actions is POST only; a GET of it reads a volume named so.
    expect(found('POST', '/v2/volumes/actions')?.id).toBe('volumeActions_post');
    expect(found('GET', '/v2/volumes/actions')).toEqual({
      id: 'volumes_get',
      params: { volume_id: 'actions' },
    });
  });

  it('reads a percent-encoded literal as the literal, as a server routing the decoded path does', () => {
    expect(found('GET', '/v2/apps/%72egions')?.id).toBe('apps_list_regions');
    expect(found('GET', '/v2/registries/%73ubscription')?.id).toBe('registries_get_subscription');
  });

  it('decodes parameters and ignores the query', () => {
    expect(found('GET', '/v2/tags/env%3Aprod')).toEqual({ id: 'tags_get', params: { tag_id: 'env:prod' } });
    expect(found('DELETE', '/v2/domains/example.com/records/3?x=1')).toEqual({
      id: 'domains_delete_record',
      params: { domain_name: 'example.com', domain_record_id: '3' },
    });
    expect(found('GET', '/v2/tags/caf%C3%A9')?.params).toEqual({ tag_id: 'café' });
  });

  it('refuses unknown paths, methods, empty and undecodable segments', () => {
    expect(findOperation('GET', '/v2/nothing/here')).toBeUndefined();
    expect(findOperation('PATCH', '/v2/droplets')).toBeUndefined();
    expect(findOperation('TRACE', '/v2/droplets')).toBeUndefined();
    expect(findOperation('GET', '/v2/droplets/')).toBeUndefined();
    expect(findOperation('GET', '/v2//droplets')).toBeUndefined();
    expect(findOperation('GET', 'v2/droplets')).toBeUndefined();
    expect(findOperation('GET', '/v2/droplets/%E0%A4%A')).toBeUndefined();
    expect(findOperation('GET', '/v2/droplets/7/extra/segments')).toBeUndefined();
  });

  it('matches HEAD as the GET it reads like, and any case of method', () => {
    expect(found('HEAD', '/v2/droplets')?.id).toBe('droplets_list');
    expect(found('head', '/v2/droplets/7')?.id).toBe('droplets_get');
    expect(found('delete', '/v2/droplets/7')?.id).toBe('droplets_destroy');
  });

  it('finds every operation of the model by its own template', () => {
    for (const each of operations()) {
      const path = each.path.replace(/\{\w+\}/g, 'x1');
      const match = findOperation(each.method, path);
      // A template filled with `x1` may land on a literal sibling's operation only when that
      // sibling is a literal `x1`, which no template has.
      expect(match?.operation.id, each.id).toBe(each.id);
    }
  });
});

describe('methodsOf', () => {
  it('names the methods a path takes', () => {
    expect(methodsOf('/v2/droplets/7')).toEqual(['GET', 'DELETE']);
    expect(methodsOf('/v2/tags/web/resources')).toEqual(['POST', 'DELETE']);
    expect(methodsOf('/v2/nothing')).toEqual([]);
  });
});

describe('namedOperation', () => {
  it('finds an operation by id, by METHOD and template, by METHOD and concrete path', () => {
    expect(namedOperation('droplets_get')?.id).toBe('droplets_get');
    expect(namedOperation('  droplets_get ')?.id).toBe('droplets_get');
    expect(namedOperation('GET /v2/droplets/{droplet_id}')?.id).toBe('droplets_get');
    // The parameter's name need not be the description's.
    expect(namedOperation('GET /v2/droplets/{id}')?.id).toBe('droplets_get');
    expect(namedOperation('get /v2/droplets/7')?.id).toBe('droplets_get');
    expect(namedOperation('POST /v2/droplets/actions')?.id).toBe('dropletActions_post_byTag');
    expect(namedOperation('POST /v2/droplets/{x}/actions')?.id).toBe('dropletActions_post');
    expect(namedOperation('POST /v2/droplets/7/actions')?.id).toBe('dropletActions_post');
  });

  it('finds nothing for an unknown id, a method the path lacks, or text that is neither', () => {
    expect(namedOperation('droplets_explode')).toBeUndefined();
    expect(namedOperation('PUT /v2/droplets/{droplet_id}')).toBeUndefined();
    expect(namedOperation('GET v2/droplets')).toBeUndefined();
    expect(namedOperation('list the droplets')).toBeUndefined();
  });
});

describe('valuesAt', () => {
  it('steps into objects, lists ([]) and maps ({}), each value with the object holding it', () => {
    const body = { a: { b: [{ c: 1 }, { c: 2 }, { d: 3 }, 'x'] } };
    expect(valuesAt(body, 'a.b[].c')).toEqual([
      { value: 1, parent: { c: 1 } },
      { value: 2, parent: { c: 2 } },
    ]);
    const map = { tiers: { basic: { tags: ['a'] }, pro: { tags: ['b', 'c'] } } };
    expect(valuesAt(map, 'tiers{}.tags').map((each) => each.value)).toEqual(['a', 'b', 'c']);
  });

  it('gives a list at the end as its items, and nothing where the body has no such place', () => {
    expect(valuesAt({ volumes: ['v-1', 'v-2'] }, 'volumes').map((each) => each.value)).toEqual([
      'v-1',
      'v-2',
    ]);
    expect(valuesAt({ a: 'text' }, 'a.b')).toEqual([]);
    expect(valuesAt({ a: { b: 1 } }, 'a[].b')).toEqual([]);
    expect(valuesAt({ a: [1] }, 'a{}')).toEqual([]);
    expect(valuesAt(null, 'a')).toEqual([]);
    expect(valuesAt([{ a: 1 }], 'a')).toEqual([]);
    // An inherited property is no field of the body.
    expect(valuesAt({}, 'toString')).toEqual([]);
  });
});

describe('namedBy', () => {
  it('reads a URN as the kind its type names (dbaas is a database)', () => {
    const named = namedBy(operation('projects_assign_resources'), {
      params: { project_id: 'p-1' },
      body: {
        resources: ['do:dbaas:x', 'do:floatingip:192.0.2.1', 'do:droplet:7', 'not-a-urn', 'do:droplet', 7],
      },
    });
    expect(named.map(({ ref, value, kind }) => [ref.in, value, kind])).toEqual([
      ['path', 'p-1', undefined],
      ['body', 'x', 'database'],
      ['body', '192.0.2.1', 'reserved_ip'],
      ['body', '7', 'droplet'],
    ]);
  });

  it('reads a typed pair as the kind its resource_type names (volume_snapshot is a snapshot)', () => {
    const named = namedBy(operation('tags_assign_resources'), {
      params: { tag_id: 'web' },
      body: {
        resources: [
          { resource_id: 's-1', resource_type: 'volume_snapshot' },
          { resource_id: 7, resource_type: 'droplet' },
          { resource_id: 'x' },
          { resource_type: 'volume' },
          'v-1',
        ],
      },
    });
    expect(named.filter((each) => each.ref.in === 'body').map(({ value, kind }) => [value, kind])).toEqual([
      ['s-1', 'snapshot'],
      [7, 'droplet'],
    ]);
  });

  it('takes an object where an id goes by its id (or uuid, or name)', () => {
    const named = namedBy(operation('droplets_create'), {
      body: {
        name: 'a',
        volumes: ['v-1', { id: 'v-2' }, { uuid: 'v-3' }, { name: 'data' }, { size: 1 }, '', null],
      },
    });
    expect(named.map((each) => each.value)).toEqual(['v-1', 'v-2', 'v-3', 'data']);
  });

  it('carries the sibling that narrows a name (within)', () => {
    const named = namedBy(operation('volumeActions_post'), {
      body: { type: 'attach', volume_name: 'data', region: 'nyc1', droplet_id: 7 },
    });
    expect(named.map(({ ref, value, within }) => [ref.at, value, within])).toEqual([
      ['droplet_id', 7, undefined],
      ['volume_name', 'data', 'nyc1'],
    ]);
    // Without a region, the name is not narrowed.
    const bare = namedBy(operation('volumeActions_post'), {
      body: { type: 'attach', volume_name: 'data', droplet_id: 7 },
    });
    expect(bare.find((each) => each.ref.at === 'volume_name')?.within).toBeUndefined();
    // And in the query of a delete by name.
    const query = namedBy(operation('volumes_delete_byName'), { query: { name: 'data', region: 'nyc1' } });
    expect(query.map(({ value, within }) => [value, within])).toEqual([['data', 'nyc1']]);
  });

  it('reads each value of a query list, and nothing of a request that gives none', () => {
    const named = namedBy(operation('droplets_destroy_byTag'), { query: { tag_name: ['web', 'db'] } });
    expect(named.map(({ ref, value }) => [ref.kind, ref.by, value])).toEqual([
      ['tag', 'members', 'web'],
      ['tag', 'members', 'db'],
    ]);
    expect(namedBy(operation('droplets_destroy'), {})).toEqual([]);
    expect(namedBy(operation('droplets_list'), { query: { tag_name: 'web' } })).toEqual([]);
  });
});

describe('kinds', () => {
  it('names kinds by URN type and by tag resource type, or gives the type back', () => {
    expect(kindOfUrn('dbaas')).toBe('database');
    expect(kindOfUrn('floatingip')).toBe('reserved_ip');
    expect(kindOfUrn('reservedip')).toBe('reserved_ip');
    expect(kindOfUrn('gizmo')).toBe('gizmo');
    expect(kindOfType('volume_snapshot')).toBe('snapshot');
    expect(kindOfType('droplet')).toBe('droplet');
    expect(kindOfType('gizmo')).toBe('gizmo');
    expect(kinds().volume?.byName).toBe('/v2/volumes');
    expect(modelData().version).toBe('2.0');
    expect(modelData().operations).toHaveLength(659);
  });
});
