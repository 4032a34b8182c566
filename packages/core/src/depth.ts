/**
 * Nesting depth of values from outside (arguments, API answers), measured before code that walks
 * them recursively (validation, masking, printing) can overflow the stack.
 */

/** How deeply `value` nests objects and arrays, counted without recursion and up to `limit + 1`. */
export function depthOf(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  // Objects to look into and their depths, side by side (no pair allocated per value).
  const objects: object[] = [value];
  const depths: number[] = [1];
  while (objects.length) {
    const current = objects.pop() as Record<string, unknown>;
    const depth = depths.pop() as number;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const key in current) {
      if (!Object.hasOwn(current, key)) continue;
      const item = current[key];
      if (item !== null && typeof item === 'object') {
        objects.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return deepest;
}
