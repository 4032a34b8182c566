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
import { isDraft, original } from 'mutative';

type Path = (string | number)[];

/** One change: set a value, delete an object's key, or splice an array. */
export type Op = ['s', Path, unknown] | ['d', Path] | ['a', Path, number, number, unknown[]];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * The changes that turn `before` into `after`, where `after` was made from `before` by copying
 * what changed and sharing the rest (a draft's result): identical references are skipped at once,
 * so the cost is that of what changed (and, for a changed array, one pass comparing references).
 */
export function diff(before: unknown, after: unknown, path: Path = [], ops: Op[] = []): Op[] {
  if (before === after) return ops;
  if (Array.isArray(before) && Array.isArray(after)) {
    diffArrays(before, after, path, ops);
  } else if (
    isObject(before) &&
    isObject(after) &&
    !Array.isArray(before) &&
    !Array.isArray(after) &&
    keptInOrder(before, after)
  ) {
    for (const key of Object.keys(after)) {
      if (!Object.hasOwn(before, key)) ops.push(['s', [...path, key], after[key]]);
      else diff(before[key], after[key], [...path, key], ops);
    }
    for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) ops.push(['d', [...path, key]]);
  } else {
    ops.push(['s', path, after]);
  }
  return ops;
}

/**
 * Whether `after` keeps `before`'s keys in their order, new keys last: changing it key by key then
 * gives a reader the keys in the same order (otherwise it is set whole).
 */
function keptInOrder(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  const old = Object.keys(before);
  let i = 0;
  let added = false;
  for (const key of Object.keys(after)) {
    if (!Object.hasOwn(before, key)) {
      added = true;
      continue;
    }
    if (added) return false;
    while (i < old.length && !Object.hasOwn(after, old[i] as string)) i++;
    if (old[i] !== key) return false;
    i++;
  }
  return true;
}

function diffArrays(before: unknown[], after: unknown[], path: Path, ops: Op[]): void {
  let start = 0;
  const shortest = Math.min(before.length, after.length);
  while (start < shortest && before[start] === after[start]) start++;
  let end = 0;
  while (end < shortest - start && before[before.length - 1 - end] === after[after.length - 1 - end]) {
    end++;
  }
  const removed = before.length - start - end;
  const added = after.length - start - end;
  if (removed === added) {
    // Changed in place: each item's own changes.
    for (let i = start; i < start + added; i++) diff(before[i], after[i], [...path, i], ops);
  } else {
    ops.push(['a', path, start, removed, after.slice(start, start + added)]);
  }
}

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
 * The first item of `items` that `match` takes. Inside a change, where `items` is a draft, the
 * committed items are searched (without making a draft of each, which costs in proportion to the
 * list) and only the one found is taken through the draft; when this change has already added or
 * removed items, or changed the one found so that it no longer matches, the draft is searched.
 * An item this change has changed so that it now matches is not found: look items up before
 * changing them.
 */
export function findItem<T>(items: T[], match: (item: T) => boolean): T | undefined {
  if (!isDraft(items)) return items.find(match);
  const committed = original(items) as T[];
  if (committed.length !== items.length) return items.find(match);
  const index = committed.findIndex(match);
  if (index < 0) return undefined;
  const item = items[index] as T;
  return match(item) ? item : items.find(match);
}

/** The index of the first item `match` takes, searched as `findItem` does. */
export function findItemIndex<T>(items: T[], match: (item: T) => boolean): number {
  if (!isDraft(items)) return items.findIndex(match);
  const committed = original(items) as T[];
  if (committed.length !== items.length) return items.findIndex(match);
  const index = committed.findIndex(match);
  if (index < 0) return -1;
  return match(items[index] as T) ? index : items.findIndex(match);
}

/**
 * The world as committed, for what a change reads but does not change (views of resources it
 * leaves alone): inside a change, reading the draft costs a draft of each item read.
 */
export function committed<T extends object>(world: T): T {
  return isDraft(world) ? (original(world) as T) : world;
}
