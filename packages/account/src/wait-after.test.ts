import { describe, expect, it } from 'vitest';
import { waitIds } from './wait.js';

describe('waitIds', () => {
  it('reads the id of the answer the tool gives', () => {
    expect(waitIds({ kind: 'vm' }, {}, { droplet: { id: 42, status: 'new' } })).toEqual(['42']);
    expect(waitIds({ kind: 'action' }, {}, { action: { id: 7 } })).toEqual(['7']);
    expect(waitIds({ kind: 'load-balancer' }, {}, { load_balancer: { id: 'u-1' } })).toEqual(['u-1']);
  });
  it('reads each action of a tool that starts several', () => {
    expect(waitIds({ kind: 'action' }, {}, { actions: [{ id: 1 }, { id: 2 }] })).toEqual(['1', '2']);
  });
  it('takes the id from an argument when the answer holds none', () => {
    expect(waitIds({ kind: 'database', idArgument: 'id' }, { id: 'db-1' }, { ok: true })).toEqual(['db-1']);
  });
  it('finds nothing in an answer without the resource', () => {
    expect(waitIds({ kind: 'vm' }, {}, { ok: true })).toEqual([]);
  });
});
