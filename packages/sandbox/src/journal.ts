/**
 * The state file's format: a snapshot of the world followed by a journal of the changes made
 * since, one line each, so that a change costs what it touches rather than the whole account.
 *
 *     {"version":1,"droplets":[...],...}            the world, as JSON (a file of this line alone is
 *     {"journal":"<generation>","n":0}              a state file of older versions, still read)
 *     {"g":"<generation>","n":1,"ops":[...]}        a change: what to set, delete or splice
 *     {"g":"<generation>","n":2,"ops":[...]}
 *
 * A line counts once its newline is written: a writer killed half-way leaves a tail without one,
 * which readers ignore and the next writer cuts off. The generation, new at each compaction
 * (the file rewritten as one snapshot), and the numbers in turn let a reader that read the file
 * before tell that the lines after what it read really follow it: otherwise it reads the whole file.
 */
import { type Op, unwrap, versionOf } from './transaction.js';

type Path = (string | number)[];

export type { Op } from './transaction.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * Applies changes read back from a journal to a world parsed from the same file, in place; or,
 * with `copy`, to a copy that shares what the changes do not touch (the world it is given is left
 * as it was, for whoever still reads it). Answers the world changed.
 */
export function apply<T>(world: T, changes: readonly (readonly Op[])[], copy = false): T {
  const copied = new Set<unknown>();
  const own = <V>(value: V): V => {
    if (!copy || copied.has(value) || !isObject(value)) return value;
    const fresh = (Array.isArray(value) ? value.slice() : { ...value }) as V;
    copied.add(fresh);
    return fresh;
  };
  let root = own(world);
  for (const ops of changes) {
    for (const op of ops) {
      const path = op[1];
      if (!Array.isArray(path)) throw new Error('a change without a place');
      if (path.length === 0 && op[0] !== 'a') {
        if (op[0] !== 's') throw new Error('a deletion of the whole world');
        root = op[2] as T;
        continue;
      }
      const parent = walk(root, op[0] === 'a' ? path : path.slice(0, -1), own);
      if (op[0] === 'a') {
        const [, , start, count, items] = op;
        if (!Array.isArray(parent) || !Array.isArray(items))
          throw new Error('a splice of what is not a list');
        parent.splice(start, count, ...items);
        continue;
      }
      const key = path[path.length - 1] as string | number;
      if (!isObject(parent))
        throw new Error(`a change under ${JSON.stringify(path.slice(0, -1))}, which is no object`);
      if (op[0] === 'd') delete parent[key];
      else setOwn(parent, key, op[2]);
    }
  }
  return root;
}

/**
 * Sets an own property; an own `__proto__` key (as JSON.parse makes) stays a key rather than
 * setting the prototype.
 */
function setOwn(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The container at `path`, through own properties only, each made the caller's own on the way. */
function walk(root: unknown, path: Path, own: <V>(value: V) => V): unknown {
  let current = root;
  for (const key of path) {
    if (!isObject(current) || !Object.hasOwn(current, key)) {
      throw new Error(`a change at ${JSON.stringify(path)}, which does not exist`);
    }
    const child = own(current[key]);
    if (child !== current[key]) setOwn(current, key, child);
    current = child;
  }
  return current;
}

/** The line that opens a journal, written with each snapshot. */
export const openingLine = (generation: string) => `${JSON.stringify({ journal: generation, n: 0 })}\n`;

/** A change's line. */
export const changeLine = (generation: string, n: number, ops: readonly Op[]) =>
  `${JSON.stringify({ g: generation, n, ops })}\n`;

/** What reading lines of a journal found. */
export interface JournalRead {
  /** Changes, in order. */
  changes: Op[][];
  /** Bytes of whole lines read (a torn tail is not counted). */
  bytes: number;
  /** The number of the last change read. */
  last: number;
}

const NEWLINE = 0x0a;

/**
 * Reads the journal's lines in `data` (from just after the opening line, or from where an
 * earlier read stopped), checking that each follows the one before: the generation is
 * `generation` and the numbers run on from `last`. Throws on a whole line that does not; a tail
 * without a newline (a writer killed mid-line) is left unread. A newline byte is never part of a
 * multi-byte character, and JSON text holds none but the one that ends the line.
 */
export function readJournal(data: Buffer, generation: string, last: number): JournalRead {
  const changes: Op[][] = [];
  let at = 0;
  let n = last;
  for (;;) {
    const end = data.indexOf(NEWLINE, at);
    if (end < 0) break;
    let line: { g?: unknown; n?: unknown; ops?: unknown };
    try {
      line = JSON.parse(data.toString('utf8', at, end)) as typeof line;
    } catch {
      throw new Error(`journal line ${n + 1} is not JSON`);
    }
    if (line.g !== generation || line.n !== n + 1 || !Array.isArray(line.ops)) {
      throw new Error(`journal line ${n + 1} does not follow the one before`);
    }
    changes.push(line.ops as Op[]);
    n++;
    at = end + 1;
  }
  return { changes, bytes: at, last: n };
}

/** A state file as read: the world with the journal applied, and where the journal stands. */
export interface StateFileRead {
  world: unknown;
  /** The journal's generation; undefined for a file of older versions (a snapshot alone). */
  generation: string | undefined;
  /** The number of the last change applied. */
  last: number;
  /** Bytes of the snapshot and the opening line. */
  snapshotBytes: number;
  /** Bytes read, up to the end of the last whole line. */
  bytes: number;
  /** Whether changes were applied after the snapshot. */
  changed: boolean;
}

/**
 * Reads a whole state file: the snapshot, then each change of its journal. Throws an Error saying
 * what is wrong. A file of older versions is one JSON text (which may span lines).
 */
export function readStateFile(data: Buffer): StateFileRead {
  const first = data.indexOf(NEWLINE);
  const second = first < 0 ? -1 : data.indexOf(NEWLINE, first + 1);
  const generation = second < 0 ? undefined : openingOf(data.toString('utf8', first + 1, second));
  if (generation === undefined) {
    let world: unknown;
    try {
      world = JSON.parse(data.toString('utf8'));
    } catch {
      throw new Error('it is not valid JSON; move it away to start afresh');
    }
    return { world, generation, last: 0, snapshotBytes: data.length, bytes: data.length, changed: false };
  }
  let world: unknown;
  try {
    world = JSON.parse(data.toString('utf8', 0, first));
  } catch {
    throw new Error('its snapshot is not valid JSON; move it away to start afresh');
  }
  const journal = readJournal(data.subarray(second + 1), generation, 0);
  apply(world, journal.changes);
  return {
    world,
    generation,
    last: journal.last,
    snapshotBytes: second + 1,
    bytes: second + 1 + journal.bytes,
    changed: journal.changes.length > 0,
  };
}

/** The generation a journal's opening line names, or undefined when `line` is not one. */
export function openingOf(line: string): string | undefined {
  try {
    const parsed = JSON.parse(line) as { journal?: unknown; n?: unknown };
    return typeof parsed.journal === 'string' && parsed.n === 0 ? parsed.journal : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `value` as plain data, for reading: inside a change, the object behind the change's proxy (the
 * world is changed in place, so it is up to date), read without the cost of a proxy per item
 * read. Never change what it gives: a change made through it is neither saved nor undone.
 */
export function settled<T>(value: T): T {
  return unwrap(value);
}

/** The first item of `items` that `match` takes, searched in `settled(items)`; the item itself (a proxy inside a change). */
export function findItem<T>(items: T[], match: (item: T) => boolean): T | undefined {
  const index = settled(items).findIndex(match);
  return index < 0 ? undefined : items[index];
}

/** The index of the first item `match` takes, searched in `settled(items)`. */
export function findItemIndex<T>(items: T[], match: (item: T) => boolean): number {
  return settled(items).findIndex(match);
}

/**
 * A value computed from some of the world's collections (`collections`, top-level keys such as
 * `droplets`), kept until one of them changes (in this process or, read from the file, in
 * another): an index of the account (tags by name, records by domain) is built once for all the
 * reads that follow a change, and a change elsewhere keeps it. `world` is the world itself, as
 * `settled` gives it.
 */
export function derived<T>(name: string, world: object, collections: readonly string[], compute: () => T): T {
  let byName = cache.get(world);
  if (!byName) {
    byName = new Map();
    cache.set(world, byName);
  }
  const now = collections.map((key) => versionOf(world, key));
  const kept = byName.get(name);
  if (kept?.versions.every((version, i) => version === now[i])) return kept.value as T;
  const value = compute();
  byName.set(name, { versions: now, value });
  return value;
}

const cache = new WeakMap<object, Map<string, { versions: number[]; value: unknown }>>();
