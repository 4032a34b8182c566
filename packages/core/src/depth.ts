/**
 * Nesting depth of values from outside (arguments, API answers), measured before code that walks
 * them recursively (validation, masking, printing) can overflow the stack.
 */

/** How deeply `value` nests objects and arrays, counted without recursion and up to `limit + 1`. */
export function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    for (const item of Object.values(current)) stack.push([item, depth + 1]);
  }
  return deepest;
}
