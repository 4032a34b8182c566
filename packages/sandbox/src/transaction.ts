/**
 * A change to the world, made in place and recorded: the handler gets the world behind a proxy
 * that notes each value it sets or deletes (with what was there before) and where, so that the
 * change costs what it touches, whatever the size of the account. Nothing is copied: a list of
 * 40,000 records takes a new one at the cost of one. When the handler throws, the notes undo
 * what it did, in reverse; when it returns, they give the journal's line (journal.ts): what to
 * set, delete or splice, at each place, as the world is once the change is made.
 *
 * The world is a tree of plain objects and arrays (JSON), each reached from its parent by one
 * key. The proxy notes, for each object it hands out or is given, the parent and key it was last
 * seen at; a move within a list (a splice) is followed by searching the list again.
 */

type Container = Record<string | number, unknown>;
type Key = string | number;

/** One change as the journal writes it: set a value, delete an object's key, or splice a list. */
export type Op = ['s', Key[], unknown] | ['d', Key[]] | ['a', Key[], number, number, unknown[]];

/** Objects behind the proxies handed out: `settled` and stores unwrap with it. */
const targets = new WeakMap<object, object>();

/**
 * For each world, a count of the changes to each of its top-level collections (`droplets`,
 * `domainRecords`...), made or read from the file in this process: views of the world cached for
 * a collection (`derived` in journal.ts) are good while its count stays the same.
 */
const versions = new WeakMap<object, Map<string, number>>();
let changes = 0;

/** The count of changes to `world[key]` (to anything, for a world read from the file afresh). */
export function versionOf(world: object, key: string): number {
  return versions.get(world)?.get(key) ?? 0;
}

/** Notes that `world[key]` changed (every collection, without a key). */
export function worldChanged(world: object, key?: string): void {
  let counts = versions.get(world);
  if (!counts) {
    counts = new Map();
    versions.set(world, counts);
  }
  changes++;
  if (key === undefined) {
    for (const name of Object.keys(world)) counts.set(name, changes);
  } else counts.set(key, changes);
}

/** The object behind `value` when it is a proxy of a change, else `value`. */
export function unwrap<T>(value: T): T {
  return typeof value === 'object' && value !== null
    ? ((targets.get(value) as T | undefined) ?? value)
    : value;
}

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;

/** Sets a property; an own `__proto__` key (as JSON.parse makes) stays a key rather than setting the prototype. */
function put(target: Container, key: Key, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}

interface Undo {
  target: Container;
  key: Key;
  had: boolean;
  old: unknown;
  /** For a list: its length before this note's change. */
  length?: number;
  /** For a list's length cut short: the items the cut removed. */
  removed?: unknown[];
  /** For a key deleted from an object: the object's keys before, in order (undoing puts it back in its place). */
  order?: string[];
  /** The note is of a deletion. */
  deleted?: boolean;
}

/** What a change did: its result, the journal's operations (none when nothing changed), and how to undo it. */
export interface Changed<T> {
  result: T;
  ops: Op[];
  /** Puts the world back as it was (when saving the change failed). */
  undo(): void;
}

/** The world changed in place by `fn`; when `fn` throws, nothing is changed. */
export function changeInPlace<W, T>(world: W, fn: (draft: W) => T): Changed<T> {
  const proxies = new WeakMap<object, object>();
  const links = new WeakMap<object, { parent: Container; key: Key }>();
  const undo: Undo[] = [];
  /** Values this change placed (deep copies of proxies aside): new to the world, or moved. */
  const placed = new WeakSet<object>();

  const link = (value: unknown, parent: Container, key: Key) => {
    if (isContainer(value)) links.set(value, { parent, key });
  };
  const proxyOf = (target: object): object => {
    let proxy = proxies.get(target);
    if (!proxy) {
      proxy = new Proxy(target, handler);
      proxies.set(target, proxy);
      targets.set(proxy, target);
    }
    return proxy;
  };
  /** A value as the world keeps it: proxies inside it replaced by what they stand for. */
  const raw = (value: unknown, seen = new Set<object>()): unknown => {
    if (!isContainer(value)) return value;
    const target = targets.get(value);
    if (target) return target;
    if (seen.has(value)) return value;
    seen.add(value);
    for (const key of Object.keys(value)) {
      const item = value[key];
      const plain = raw(item, seen);
      if (plain !== item) value[key] = plain;
    }
    return value;
  };
  /** Notes which of the world's collections `target` is in as changed (all, when it is not known). */
  const changedAt = (target: Container, key: Key) => {
    let current: object = target;
    let top: Key = key;
    for (let depth = 0; current !== world && depth <= 64; depth++) {
      const found = links.get(current);
      if (!found) return worldChanged(world as object);
      top = found.key;
      current = found.parent;
    }
    const name = String(top);
    if (!touchedCollections.has(name)) touchedCollections.add(name);
    worldChanged(world as object, name);
  };
  const touchedCollections = new Set<string>();
  const arrayKey = (target: Container, key: string | symbol): Key | undefined => {
    if (typeof key === 'symbol') return undefined;
    return Array.isArray(target) && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
  };
  const handler: ProxyHandler<Container> = {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof key === 'symbol' || !isContainer(value) || !Object.hasOwn(target, key)) return value;
      link(value, target, arrayKey(target, key) as Key);
      return proxyOf(value);
    },
    set(target, key, value) {
      const at = arrayKey(target, key);
      if (at === undefined) return Reflect.set(target, key, value);
      const plain = raw(value);
      const had = Object.hasOwn(target, key);
      const old = target[at];
      if (had && old === plain) return true;
      const entry: Undo = { target, key: at, had, old };
      if (Array.isArray(target)) {
        entry.length = target.length;
        if (key === 'length' && typeof plain === 'number' && plain < target.length)
          entry.removed = target.slice(plain);
      }
      undo.push(entry);
      put(target, at, plain);
      changedAt(target, at);
      if (isContainer(plain)) {
        placed.add(plain);
        link(plain, target, at);
      }
      return true;
    },
    deleteProperty(target, key) {
      const at = arrayKey(target, key);
      if (at === undefined || !Object.hasOwn(target, key)) return Reflect.deleteProperty(target, key);
      const entry: Undo = { target, key: at, had: true, old: target[at], deleted: true };
      if (Array.isArray(target)) entry.length = target.length;
      else entry.order = Object.keys(target);
      undo.push(entry);
      delete target[at];
      changedAt(target, at);
      return true;
    },
    defineProperty(target, key, descriptor) {
      if (!('value' in descriptor)) return false;
      return handler.set?.(target, key, descriptor.value, target) ?? false;
    },
  };

  let result: T;
  try {
    result = fn(proxyOf(world as object) as W);
  } catch (error) {
    rollBack(undo);
    for (const name of touchedCollections) worldChanged(world as object, name);
    throw error;
  }
  if (undo.length === 0) return { result, ops: [], undo: () => undefined };
  return {
    result,
    ops: operations(world as object, undo, links, placed),
    undo: () => {
      rollBack(undo);
      for (const name of touchedCollections) worldChanged(world as object, name);
    },
  };
}

/** Undoes the notes, last first. */
function rollBack(undo: readonly Undo[]): void {
  for (let i = undo.length - 1; i >= 0; i--) {
    const { target, key, had, old, removed, order, length } = undo[i] as Undo;
    // A cut list gets its items back (its length is the cut one's again by now).
    if (removed) for (const item of removed) (target as unknown as unknown[]).push(item);
    else if (!had) delete target[key];
    else put(target, key, old);
    // A list takes back the length it had before the note's change (an item set past its end made it longer).
    if (length !== undefined && (target as unknown as unknown[]).length !== length) {
      (target as unknown as unknown[]).length = length;
    }
    if (order && Object.keys(target).join('\0') !== order.join('\0')) {
      // A key put back goes last: the keys are set again in their order.
      for (const name of order) {
        const value = target[name];
        delete target[name];
        put(target, name, value);
      }
    }
  }
}

/** The path from the world to `target` as it is now, or undefined when it is no longer in it. */
function pathOf(
  world: object,
  target: object,
  links: WeakMap<object, { parent: Container; key: Key }>,
): Key[] | undefined {
  const path: Key[] = [];
  let current = target;
  for (let depth = 0; current !== world; depth++) {
    const found = links.get(current);
    if (!found || depth > 64) return undefined;
    let { key } = found;
    if (found.parent[key] !== current) {
      // Moved within its list (a splice before it), or no longer there.
      const index = Array.isArray(found.parent) ? found.parent.indexOf(current) : -1;
      if (index < 0) return undefined;
      key = index;
      links.set(current, { parent: found.parent, key });
    }
    path.push(key);
    current = found.parent;
  }
  return path.reverse();
}

/**
 * The journal's operations for what the notes say changed, in the world as it is now. A place
 * set whole (or spliced in) covers what lies under it: what was changed inside it is written with it.
 */
function operations(
  world: object,
  undo: readonly Undo[],
  links: WeakMap<object, { parent: Container; key: Key }>,
  placed: WeakSet<object>,
): Op[] {
  // Each container touched, with its keys touched and, for a list, its length before.
  const touched = new Map<Container, { keys: Set<Key>; deleted: Set<Key>; had: Set<Key>; length?: number }>();
  for (const { target, key, had, length, deleted } of undo) {
    let entry = touched.get(target);
    if (!entry) {
      entry = { keys: new Set(), deleted: new Set(), had: new Set(), length };
      touched.set(target, entry);
    }
    // Whether the key was there before the change: as the first note on it says.
    if (!entry.keys.has(key) && had) entry.had.add(key);
    if (Array.isArray(target) && key === 'length') continue;
    if (!had && entry.length !== undefined && typeof key === 'number' && key >= entry.length) continue;
    entry.keys.add(key);
    if (deleted) entry.deleted.add(key);
  }
  const planned: { path: Key[]; ops: Op[] }[] = [];
  for (const [target, entry] of touched) {
    if (placed.has(target)) continue;
    const path = pathOf(world, target, links);
    if (!path) continue;
    const ops: Op[] = [];
    if (Array.isArray(target)) {
      const before = entry.length ?? target.length;
      const changedBelow = [...entry.keys].filter(
        (key): key is number => typeof key === 'number' && key < before,
      );
      if (changedBelow.length === 0 && target.length >= before) {
        if (target.length > before) ops.push(['a', path, before, 0, target.slice(before)]);
      } else if (target.length === before && entry.keys.size === changedBelow.length) {
        for (const index of changedBelow.sort((a, b) => a - b))
          ops.push(['s', [...path, index], target[index]]);
      } else {
        const from = Math.min(before, target.length, ...changedBelow);
        ops.push(['a', path, from, before - from, target.slice(from)]);
      }
    } else {
      // Keys gone, then keys that kept their place, then keys new or set again after a delete
      // (last in the object, in its order), so that the reader's object has the same order.
      const last: Key[] = [];
      for (const key of entry.keys) {
        if (!Object.hasOwn(target, key) || entry.deleted.has(key)) ops.push(['d', [...path, key]]);
      }
      for (const key of entry.keys) {
        if (!Object.hasOwn(target, key)) continue;
        if (entry.deleted.has(key) || !entry.had.has(key)) last.push(key);
        else ops.push(['s', [...path, key], target[key]]);
      }
      const added = new Set(last.map(String));
      for (const key of Object.keys(target)) if (added.has(key)) ops.push(['s', [...path, key], target[key]]);
    }
    planned.push({ path, ops });
  }
  // Shallow places first; what a place set whole covers is left out.
  planned.sort((a, b) => a.path.length - b.path.length);
  const covered: { path: Key[]; from?: number }[] = [];
  const isCovered = (path: readonly Key[]) =>
    covered.some(
      (cover) =>
        cover.path.length <= path.length &&
        cover.path.every((key, i) => key === path[i]) &&
        (cover.from === undefined ||
          (path.length > cover.path.length && (path[cover.path.length] as number) >= cover.from)),
    );
  const ops: Op[] = [];
  for (const plan of planned) {
    for (const op of plan.ops) {
      const path = op[1];
      if (isCovered(path)) continue;
      ops.push(op);
      if (op[0] === 's') covered.push({ path });
      if (op[0] === 'a') covered.push({ path, from: op[2] });
    }
  }
  return ops;
}
