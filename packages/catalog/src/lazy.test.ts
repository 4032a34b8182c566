import { describe, expect, it } from 'vitest';
import { families } from './index.js';
import { FAMILY_NAMES, loadFamilies, loadFamily } from './lazy.js';

describe('the families loaded on demand', () => {
  it('are the families of the catalog, in its order', async () => {
    expect(FAMILY_NAMES).toEqual(families.map((family) => family.name));
    expect(await loadFamilies()).toEqual(families);
    for (const family of families) expect(await loadFamily(family.name)).toBe(family);
  });

  it('load only those asked for, in the catalog order', async () => {
    const loaded = await loadFamilies(['images', 'account']);
    expect(loaded.map((family) => family.name)).toEqual(['account', 'images']);
  });
});
