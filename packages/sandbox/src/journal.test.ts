/**
 * The state file as a snapshot and a journal (journal.ts, store.ts): a change appends what it
 * touched and no more; what it appended is what another process reads back, and only that; a line
 * torn by a crash, a failed change, a rewrite by another process and a state file of older versions
 * are each read right; and the journal never grows past the snapshot for long.
 */
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, derived, findItem, readStateFile as readData, settled } from './journal.js';
import { readStateFile, StateFileError, Store } from './store.js';
import { changeInPlace } from './transaction.js';

interface Tag {
  name: string;
  count: number;
}
interface Small {
  version: number;
  tags: Tag[];
  nextId: Record<string, number>;
  note?: string;
}

const seed = (tags = 0): Small => ({
  version: 1,
  tags: Array.from({ length: tags }, (_, i) => ({ name: `tag-${i}`, count: 0 })),
  nextId: { tag: tags },
});

let root: string;
let n = 0;
const freshPath = () => join(root, `state-${++n}.json`);

async function opened(path: string, tags = 0): Promise<Store<Small>> {
  const store = new Store<Small>({ path, seed: () => seed(tags) });
  await store.open();
  return store;
}

const addTag = (world: Small, name: string) => {
  world.tags.push({ name, count: 0 });
  world.nextId.tag = (world.nextId.tag ?? 0) + 1;
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-journal-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a change to the state file', () => {
  it('appends what it touched, not the account: the same bytes at 10,000 tags as at 10', async () => {
    const growth = async (tags: number) => {
      const path = freshPath();
      const store = await opened(path, tags);
      const before = statSync(path).size;
      await store.write((world) => addTag(world, 'new'));
      await store.write((world) => {
        const tag = findItem(world.tags, (t) => t.name === `tag-${Math.floor(tags / 2)}`);
        if (tag) tag.count++;
      });
      return statSync(path).size - before;
    };
    const small = await growth(10);
    const large = await growth(10_000);
    expect(small).toBeLessThan(300);
    // Index numbers have more digits; nothing else differs.
    expect(large - small).toBeLessThan(20);
  });

  it('is read back by another process exactly, and a change that fails or changes nothing writes nothing', async () => {
    const path = freshPath();
    const writer = await opened(path, 5);
    const reader = await opened(path);
    await writer.write((world) => addTag(world, 'a'));
    await writer.write((world) => {
      world.tags.splice(1, 2);
      world.note = 'spliced';
    });
    const size = statSync(path).size;
    await expect(
      writer.write((world) => {
        addTag(world, 'half-way');
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await writer.write(() => 'nothing');
    expect(statSync(path).size).toBe(size);
    const expected = writer.peek((world) => JSON.stringify(world));
    expect(reader.peek((world) => JSON.stringify(world))).toBe(expected);
    expect(JSON.stringify(readStateFile(path))).toBe(expected);
    expect(reader.peek((world) => world.tags.map((t) => t.name))).toEqual(['tag-0', 'tag-3', 'tag-4', 'a']);
  });

  it('answers reads with copies, which later changes leave as they were', async () => {
    const path = freshPath();
    const store = await opened(path, 3);
    const held = await store.read((world) => world.tags);
    await store.write((world) => {
      const tag = world.tags[0] as Tag;
      tag.count = 9;
      addTag(world, 'later');
    });
    expect(store.peek((world) => world.tags.length)).toBe(4);
    expect(held.map((t) => t.count)).toEqual([0, 0, 0]);
  });
});

describe('views kept of the world (derived)', () => {
  it('are built again after a change to what they read, here, inside a change, or in another process', async () => {
    const path = freshPath();
    const store = await opened(path, 2);
    const other = await opened(path);
    let built = 0;
    const names = (world: Small) =>
      derived('tag names', settled(world), ['tags'], () => {
        built++;
        return settled(world).tags.map((t) => t.name);
      });
    expect(store.peek(names)).toEqual(['tag-0', 'tag-1']);
    expect(store.peek(names)).toEqual(['tag-0', 'tag-1']);
    expect(built).toBe(1);
    // A change elsewhere keeps it.
    await store.write((world) => {
      world.note = 'elsewhere';
    });
    store.peek(names);
    expect(built).toBe(1);
    // Inside a change, after changing what it reads, it is already up to date.
    const inside = await store.write((world) => {
      addTag(world, 'inside');
      return names(world);
    });
    expect(inside).toEqual(['tag-0', 'tag-1', 'inside']);
    // A change that fails leaves it as the world is.
    await expect(
      store.write((world) => {
        addTag(world, 'refused');
        names(world);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(store.peek(names)).toEqual(['tag-0', 'tag-1', 'inside']);
    // Another process's change, read from the file.
    await other.write((world) => addTag(world, 'other'));
    expect(store.peek(names)).toEqual(['tag-0', 'tag-1', 'inside', 'other']);
  });
});

describe('a state file after a crash or another writer', () => {
  it('ignores a line torn by a crash, and the next writer cuts it off before appending', async () => {
    const path = freshPath();
    const store = await opened(path, 2);
    await store.write((world) => addTag(world, 'kept'));
    const whole = statSync(path).size;
    // A writer killed after writing part of its line: no newline at the end.
    appendFileSync(path, '{"g":"torn","n":2,"ops":[["s",["note"],"never');
    const other = await opened(path);
    expect(other.peek((world) => world.note)).toBeUndefined();
    expect(other.peek((world) => world.tags.map((t) => t.name))).toEqual(['tag-0', 'tag-1', 'kept']);
    await other.write((world) => addTag(world, 'after'));
    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toContain('never');
    expect(statSync(path).size).toBeGreaterThan(whole);
    expect((readStateFile(path) as Small).tags.map((t) => t.name)).toEqual([
      'tag-0',
      'tag-1',
      'kept',
      'after',
    ]);
    // The first store, which saw the torn tail too, reads the new line.
    expect(store.peek((world) => world.tags.length)).toBe(4);
  });

  it('refuses a whole line that does not follow the one before, naming the file', async () => {
    const path = freshPath();
    const store = await opened(path, 1);
    await store.write((world) => addTag(world, 'one'));
    appendFileSync(path, '{"g":"another","n":7,"ops":[]}\n');
    const reopened = new Store<Small>({ path, seed: () => seed() });
    const refused = await reopened.open().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StateFileError);
    expect((refused as Error).message).toContain(path);
    expect((refused as Error).message).toContain('journal line 2');
  });

  it('reads the whole file again when another process rewrote it, even at the same size', async () => {
    const path = freshPath();
    const a = await opened(path, 1);
    const b = await opened(path);
    await a.write((world) => addTag(world, 'x'));
    expect(b.peek((world) => world.tags.length)).toBe(2);
    // Rewritten in place, as one snapshot of the same size: another generation, nothing appended.
    const stat = statSync(path);
    const world = readStateFile(path) as Small;
    (world.tags[1] as Tag).name = 'y';
    const text = `${JSON.stringify(world)}\n{"journal":"rewritten","n":0}\n`;
    writeFileSync(path, `${text.slice(0, -1).padEnd(stat.size - 1, ' ')}\n`);
    utimesSync(path, stat.atime, new Date(stat.mtimeMs + 1000));
    await a.write((w) => addTag(w, 'z'));
    expect(b.peek((w) => w.tags.map((t) => t.name))).toEqual(['tag-0', 'y', 'z']);
  });

  it('reads a state file of older versions (one JSON text) and turns it into a journal at its first change', async () => {
    const path = freshPath();
    writeFileSync(path, JSON.stringify(seed(2), null, 2));
    const store = await opened(path);
    expect(store.peek((world) => world.tags.length)).toBe(2);
    await store.write((world) => addTag(world, 'new'));
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[1] as string)).toMatchObject({ n: 0 });
    expect((readStateFile(path) as Small).tags).toHaveLength(3);
  });

  it('folds the journal into a new snapshot once it outgrows it, losing nothing', async () => {
    const path = freshPath();
    const store = await opened(path, 10);
    const reader = await opened(path);
    let largest = 0;
    for (let i = 0; i < 400; i++) {
      await store.write((world) => {
        world.note = `${i}:${'x'.repeat(1000)}`;
        addTag(world, `t${i}`);
      });
      largest = Math.max(largest, statSync(path).size);
    }
    const snapshot = JSON.stringify(store.peek((world) => world)).length;
    // Never more than the snapshot, its journal's bound and one line.
    expect(largest).toBeLessThan(Math.max(256 * 1024, snapshot) + snapshot + 4096);
    expect(readFileSync(path, 'utf8').split('\n').length).toBeLessThan(400);
    expect(reader.peek((world) => world.tags.length)).toBe(410);
    expect(JSON.stringify(readStateFile(path))).toBe(JSON.stringify(store.peek((world) => world)));
  });
});

// JSON values a world holds: objects, lists, strings (with the keys JSON.parse makes own), numbers.
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.integer(),
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    tie('list'),
    tie('object'),
  ),
  list: fc.array(tie('value'), { maxLength: 6 }),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor'), tie('value'), {
    maxKeys: 4,
  }),
})).object;

/** A change made through a draft: at a place in the world, set, delete, push, splice or shift. */
const edits = fc.array(
  fc.record({
    where: fc.array(fc.nat(), { maxLength: 3 }),
    what: fc.constantFrom('set', 'delete', 'push', 'splice', 'shift', 'unshift'),
    value: json,
    at: fc.nat(),
  }),
  { maxLength: 6 },
);

function edit(
  root: Record<string, unknown>,
  change: { where: number[]; what: string; value: unknown; at: number },
) {
  // A value of its own each time: one inserted twice and changed in place would make a cycle.
  const value = JSON.parse(JSON.stringify(change.value)) as unknown;
  let place: unknown = root;
  for (const step of change.where) {
    const keys = Object.keys(place as object);
    const next = keys.length
      ? (place as Record<string, unknown>)[keys[step % keys.length] as string]
      : undefined;
    if (typeof next !== 'object' || next === null) break;
    place = next;
  }
  if (Array.isArray(place)) {
    const at = place.length ? change.at % place.length : 0;
    if (change.what === 'push') place.push(value);
    else if (change.what === 'splice') place.splice(at, change.at % 3, value);
    else if (change.what === 'shift') place.shift();
    else if (change.what === 'unshift') place.unshift(value);
    else if (change.what === 'delete') place.splice(at, 1);
    else if (place.length) place[at] = value;
  } else {
    const target = place as Record<string, unknown>;
    const key = ['a', 'b', 'c', 'd'][change.at % 4] as string;
    if (change.what === 'delete') delete target[key];
    else target[key] = value;
  }
}

describe('the changes a journal line holds', () => {
  it('turn the world before into the world after, whatever the change, through JSON and back', () => {
    fc.assert(
      fc.property(json, edits, (world, changes) => {
        const text = JSON.stringify(world);
        const changing = JSON.parse(text) as Record<string, unknown>;
        const { ops } = changeInPlace(changing, (draft) => {
          for (const change of changes) edit(draft, change);
        });
        const after = JSON.stringify(changing);
        const line = JSON.parse(JSON.stringify(ops));
        // Another process applies the line to the world as it read it.
        expect(JSON.stringify(apply(JSON.parse(text), [line]))).toBe(after);
        // Applied to a copy, the world it was given is left as it was.
        const held = JSON.parse(text);
        const copied = apply(held, [line], true);
        expect(JSON.stringify(copied)).toBe(after);
        expect(JSON.stringify(held)).toBe(text);
        expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
      }),
      { numRuns: 1000 },
    );
  });

  it('leave nothing behind when the change fails half-way, whatever it did first', () => {
    fc.assert(
      fc.property(json, edits, (world, changes) => {
        const text = JSON.stringify(world);
        const changing = JSON.parse(text) as Record<string, unknown>;
        expect(() =>
          changeInPlace(changing, (draft) => {
            for (const change of changes) edit(draft, change);
            throw new Error('refused');
          }),
        ).toThrow('refused');
        expect(JSON.stringify(changing)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('hold what an item read before a splice became, written where the item is now', () => {
    const world = { items: [{ n: 0 }, { n: 1 }, { n: 2 }], other: { a: 1 } };
    const reader = JSON.parse(JSON.stringify(world));
    const { ops } = changeInPlace(world, (draft) => {
      const last = draft.items[2] as { n: number };
      draft.items.splice(0, 1);
      last.n = 20;
      draft.other.a = 2;
    });
    apply(reader, [JSON.parse(JSON.stringify(ops))]);
    expect(reader).toEqual({ items: [{ n: 1 }, { n: 20 }], other: { a: 2 } });
    expect(reader).toEqual(world);
  });

  it('write an append to a long list as the items appended, and a change in place as that item', () => {
    const world = { items: Array.from({ length: 10_000 }, (_, n) => ({ n })) };
    const appended = changeInPlace(world, (draft) => {
      draft.items.push({ n: -1 });
    }).ops;
    expect(appended).toEqual([['a', ['items'], 10_000, 0, [{ n: -1 }]]]);
    const changed = changeInPlace(world, (draft) => {
      (draft.items[5_000] as { n: number }).n = 7;
    }).ops;
    expect(changed).toEqual([['s', ['items', 5_000, 'n'], 7]]);
  });

  it('never reach past the world: a path through a missing or inherited key is refused', () => {
    const world = { tags: [] };
    expect(() => apply(world, [[['s', ['__proto__', 'polluted'], true]]])).toThrow('does not exist');
    expect(() => apply(world, [[['s', ['constructor', 'x'], 1]]])).toThrow('does not exist');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() =>
      readData(Buffer.from('{"a":1}\n{"journal":"g","n":0}\n{"g":"g","n":1,"ops":[["a",["a"],0,0,[]]]}\n')),
    ).toThrow('not a list');
  });
});
