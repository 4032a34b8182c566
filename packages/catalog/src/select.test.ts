/**
 * Selection's read-only step on the real definitions: a tool that changes resources is offered in
 * its read-only form when it has one (api-call, GET and HEAD only), and hidden, naming the flag,
 * when it has none.
 */
import { annotations } from '@cloudcall/core';
import { describe, expect, it } from 'vitest';
import { families, toolsOf } from './index.js';
import { selectTools } from './select.js';

describe('selectTools with readOnly', () => {
  const tools = toolsOf(families);

  it("offers a tool's read-only form in its place, and hides a tool without one", () => {
    const { tools: offered, hidden } = selectTools(tools, { readOnly: true });
    const apiCall = offered.find((tool) => tool.name === 'api-call');
    expect(apiCall?.annotations).toEqual(annotations.read);
    expect(Object.keys(apiCall?.input.shape ?? {})).toEqual(['Method', 'Path', 'Query']);
    expect(apiCall?.input.safeParse({ Method: 'POST', Path: '/v2/tags' }).success).toBe(false);
    expect(offered.every((tool) => tool.annotations.readOnlyHint)).toBe(true);
    expect(hidden.has('api-call')).toBe(false);
    expect(hidden.get('key-delete')).toBe(
      'hidden by --read-only (CLOUDCALL_READ_ONLY): it changes resources',
    );
  });

  it('keeps the tool itself without readOnly, and the other steps before the read-only one', () => {
    const apiCall = tools.find((tool) => tool.name === 'api-call');
    expect(selectTools(tools).tools.find((tool) => tool.name === 'api-call')).toBe(apiCall);
    const excluded = selectTools(tools, { readOnly: true, exclude: ['api-call'] });
    expect(excluded.tools.map((tool) => tool.name)).not.toContain('api-call');
    expect(excluded.hidden.get('api-call')).toMatch(/--exclude-tools/);
  });
});
