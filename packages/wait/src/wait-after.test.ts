import { describe, expect, it } from 'vitest';
import { pendingWaits, waitTargets } from './index.js';

describe('waitTargets', () => {
  it('reads the id of the answer the tool gives', () => {
    expect(waitTargets({ kind: 'vm' }, {}, { droplet: { id: 42, status: 'new' } })).toEqual([{ ID: '42' }]);
    expect(waitTargets({ kind: 'action' }, {}, { action: { id: 7 } })).toEqual([{ ID: '7' }]);
    expect(waitTargets({ kind: 'load-balancer' }, {}, { load_balancer: { id: 'u-1' } })).toEqual([
      { ID: 'u-1' },
    ]);
  });
  it('reads each action of a tool that starts several', () => {
    expect(waitTargets({ kind: 'action' }, {}, { actions: [{ id: 1 }, { id: 2 }] })).toEqual([
      { ID: '1' },
      { ID: '2' },
    ]);
  });
  it('takes the id from an argument when the answer holds none', () => {
    expect(waitTargets({ kind: 'database', idArgument: 'id' }, { id: 'db-1' }, { ok: true })).toEqual([
      { ID: 'db-1' },
    ]);
  });
  it("takes a replica's cluster id and name from the arguments", () => {
    const wait = { kind: 'database-replica', idArgument: 'id', nameArgument: 'name' } as const;
    expect(waitTargets(wait, { id: 'db-1', name: 'read-1' }, { replica: { name: 'read-1' } })).toEqual([
      { ID: 'db-1', Name: 'read-1' },
    ]);
    expect(waitTargets(wait, { id: 'db-1' }, {})).toEqual([]);
  });
  it("reads the answer's own id field when the answer is not wrapped in a key", () => {
    const wait = { kind: 'byoip-prefix', idField: 'uuid' } as const;
    expect(waitTargets(wait, {}, { uuid: 'p-1', region: 'nyc3', status: 'pending' })).toEqual([
      { ID: 'p-1' },
    ]);
    expect(waitTargets(wait, {}, { byoip_prefix: { id: 'p-1' } })).toEqual([]);
  });
  it('finds nothing in an answer without the resource', () => {
    expect(waitTargets({ kind: 'vm' }, {}, { ok: true })).toEqual([]);
  });
});

describe('pendingWaits', () => {
  it('names the wait call for what the answer does not show as ready yet', () => {
    expect(pendingWaits({ kind: 'vm' }, {}, { droplet: { id: 42, status: 'new' } })).toEqual([
      { Kind: 'vm', ID: '42' },
    ]);
    expect(pendingWaits({ kind: 'vm' }, {}, { droplet: { id: 42, status: 'active' } })).toEqual([]);
    expect(
      pendingWaits(
        { kind: 'action' },
        {},
        {
          actions: [
            { id: 1, status: 'completed' },
            { id: 2, status: 'in-progress' },
          ],
        },
      ),
    ).toEqual([{ Kind: 'action', ID: '2' }]);
  });
  it('reads the status beside an id field, and waits for a replica named in the arguments', () => {
    const prefix = { kind: 'byoip-prefix', idField: 'uuid' } as const;
    expect(pendingWaits(prefix, {}, { uuid: 'p-1', status: 'pending' })).toEqual([
      { Kind: 'byoip-prefix', ID: 'p-1' },
    ]);
    expect(pendingWaits(prefix, {}, { uuid: 'p-1', status: 'active' })).toEqual([]);
    const replica = { kind: 'database-replica', idArgument: 'id', nameArgument: 'name' } as const;
    expect(
      pendingWaits(
        replica,
        { id: 'db-1', name: 'read-1' },
        { replica: { name: 'read-1', status: 'forking' } },
      ),
    ).toEqual([{ Kind: 'database-replica', ID: 'db-1', Name: 'read-1' }]);
  });
  it('waits for a garbage collection by its uuid, named by the registry in the arguments', () => {
    const gc = { kind: 'registry-garbage-collection', nameArgument: 'Registry' } as const;
    const answer = { garbage_collection: { uuid: 'gc-1', status: 'requested' } };
    expect(pendingWaits(gc, { Registry: 'reg' }, answer)).toEqual([
      { Kind: 'registry-garbage-collection', ID: 'gc-1', Name: 'reg' },
    ]);
    expect(pendingWaits(gc, {}, answer)).toEqual([]);
  });
  it('is empty when the answer holds nothing to wait for', () => {
    expect(pendingWaits({ kind: 'vm' }, {}, { ok: true })).toEqual([]);
  });
});
