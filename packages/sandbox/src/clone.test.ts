import { describe, expect, it } from 'vitest';
import { cloneData } from './clone.js';
import { seedWorld } from './world.js';

describe('cloneData', () => {
  it('copies the world deeply: equal, and sharing no object with it', () => {
    const world = seedWorld();
    const before = JSON.stringify(world);
    const copy = cloneData(world);
    expect(copy).toEqual(world);
    copy.regions[0]?.sizes.push('changed');
    copy.nextId.sshKey = -1;
    copy.images.pop();
    expect(JSON.stringify(world)).toBe(before);
  });

  it('keeps an own __proto__ key a key, a null prototype null, and copies other objects as structuredClone does', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": [1, {"b": null}]}');
    const copy = cloneData(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(copy.polluted).toBeUndefined();
    expect(copy).toEqual(parsed);

    const bare = Object.assign(Object.create(null), { x: { y: 1 } });
    const bareCopy = cloneData(bare);
    expect(Object.getPrototypeOf(bareCopy)).toBeNull();
    expect(bareCopy.x).toEqual({ y: 1 });
    expect(bareCopy.x).not.toBe(bare.x);

    const when = new Date(0);
    const withDate = cloneData({ when });
    expect(withDate.when).toBeInstanceOf(Date);
    expect(withDate.when).not.toBe(when);
    expect(withDate.when.getTime()).toBe(0);
  });
});
