/**
 * The `wait` field of the tool definitions, which apps read to offer waiting (the CLI's --wait):
 * every tool that starts an action has it, and only tools that change something do.
 */
import { describe, expect, it } from 'vitest';
import { families, toolsOf } from './index.js';

const tools = toolsOf(families);

describe('tools that can be waited for', () => {
  it('include every tool posting to an actions endpoint, waiting for the action', () => {
    const starters = tools.filter(
      (tool) => tool.request?.method === 'POST' && /\/actions$/.test(tool.request.path),
    );
    expect(starters.length).toBeGreaterThan(20);
    for (const tool of starters) expect(tool.wait, tool.name).toEqual({ kind: 'action' });
  });

  it('include the creates of things that become ready later', () => {
    const kinds = Object.fromEntries(
      tools.filter((tool) => tool.wait).map((tool) => [tool.name, tool.wait?.kind]),
    );
    expect(kinds).toMatchObject({
      'vm-create': 'vm',
      'db-cluster-create': 'database',
      'db-cluster-resize': 'database',
      'db-cluster-migrate-region': 'database',
      'load-balancer-create': 'load-balancer',
      'custom-certificate-create': 'certificate',
      'acme-certificate-create': 'certificate',
      'reserved-ip-assign': 'action',
      'reserved-ip-unassign': 'action',
      'db-cluster-create-replica': 'database-replica',
      'byoip-prefix-create': 'byoip-prefix',
    });
  });

  it('are never read-only', () => {
    for (const tool of tools.filter((t) => t.wait))
      expect(tool.annotations.readOnlyHint, tool.name).toBe(false);
  });
});
