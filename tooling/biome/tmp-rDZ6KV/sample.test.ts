import { expect } from 'vitest';
const a = { message: 'x', list: [{ text: 'y' }] };
expect(a).toMatchObject({ message: /one/ });
await expect(Promise.resolve(a)).resolves.toMatchObject({
  list: [{ text: /two/ }],
});
expect(a).toMatchObject({ message: new RegExp('three') });
