/**
 * Every list tool's pages can be followed (runAllPages, the CLI's --all, names looked up past the
 * first page), whether it maps a request or runs a handler.
 */
import { pageArgument, perPageArgument } from '@cloudcall/core/internal';
import { describe, expect, it } from 'vitest';
import { families, toolsOf } from './index.js';

describe('paged tools', () => {
  it('name their page arguments, for request and handler tools alike', () => {
    const paged = toolsOf(families).filter((tool) => 'Page' in (tool.input.shape ?? {}));
    expect(paged.length).toBeGreaterThan(20);
    for (const tool of paged) {
      expect(pageArgument(tool), tool.name).toBe('Page');
      expect(perPageArgument(tool), tool.name).toBe('PerPage');
    }
    // The two that run a handler.
    expect(
      paged
        .filter((tool) => !tool.request)
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(['image-list', 'reserved-ip-list']);
  });
});
