import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const biome = join(root, 'node_modules', '.bin', 'biome');

// Runs the repository's own biome.json over one file written inside the repository (so the config and
// its plugins apply) and returns the lines Biome points at.
async function flagged(source) {
  const file = join(dir, 'sample.test.ts');
  await writeFile(file, source);
  const { stdout } = await promisify(execFile)(
    biome,
    ['lint', '--reporter=json', '--max-diagnostics=none', file],
    { cwd: root },
  ).catch((error) => error);
  const report = JSON.parse(stdout);
  return report.diagnostics.filter((d) => d.category === 'plugin').map((d) => d.location.start.line);
}

let dir;
beforeAll(async () => {
  dir = await mkdtemp(join(root, 'tooling', 'biome', 'tmp-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('no-regexp-in-to-match-object', () => {
  test('flags a bare RegExp anywhere inside toMatchObject(), on one line or several', async () => {
    const source = [
      "import { expect } from 'vitest';",
      "const a = { message: 'x', list: [{ text: 'y' }] };",
      'expect(a).toMatchObject({ message: /one/ });',
      'await expect(Promise.resolve(a)).resolves.toMatchObject({',
      '  list: [{ text: /two/ }],',
      '});',
      "expect(a).toMatchObject({ message: new RegExp('three') });",
      '',
    ].join('\n');
    expect(await flagged(source)).toEqual([3, 5, 7]);
  });

  test('leaves expect.stringMatching() and the other matchers alone', async () => {
    const source = [
      "import { expect } from 'vitest';",
      "const a = { message: 'x' };",
      'expect(a).toMatchObject({ message: expect.stringMatching(/one/) });',
      'expect(a).toMatchObject({ m: expect.objectContaining({ n: expect.stringMatching(/two/) }) });',
      "expect('x').toMatch(/three/);",
      'expect(() => a).toThrow(/four/);',
      '',
    ].join('\n');
    expect(await flagged(source)).toEqual([]);
  });
});
