/** Copies of the world's data. A leaf module: the store and the families use it. */

/**
 * A deep copy of JSON data (the world and what it holds: a state file keeps it as JSON), made by
 * hand: several times faster than structuredClone, which serializes first. What is not a plain
 * object or array (the world holds none) is copied by structuredClone.
 */
export function cloneData<T>(value: T): T {
  return copy(value, structuredClone);
}

/**
 * A copy of what a change answered, taken before its draft is gone: plain objects and arrays (the
 * world's data, or drafts of it) are copied; anything else (a file's bytes) is kept as it is.
 */
export function detach<T>(value: T): T {
  return copy(value, (other) => other);
}

function copy<T>(value: T, other: <V>(value: V) => V): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => copy(item, other)) as T;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return other(value);
  const result: Record<string, unknown> = prototype === null ? Object.create(null) : {};
  for (const key of Object.keys(value)) {
    const item = copy((value as Record<string, unknown>)[key], other);
    // An own `__proto__` key (JSON.parse makes one) stays a key rather than setting the prototype.
    if (key === '__proto__') {
      Object.defineProperty(result, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else result[key] = item;
  }
  return result as T;
}
