/**
 * The README is a front door: small, and every relative link and anchor in it, in docs/ and in
 * each package's README leads somewhere that exists.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, links, ROOT, read, slug } from './markdown.js';

const PACKAGES = ['packages', 'apps'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .map((name) => `${dir}/${name}`)
    .filter(
      (path) =>
        existsSync(join(ROOT, path, 'package.json')) &&
        !read(`${path}/package.json`).includes('"private": true'),
    ),
);
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...PACKAGES.map((path) => `${path}/README.md`),
];

describe('the README', () => {
  it('is at most 30 KB', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(30 * 1024);
  });

  it('links to every page of docs/', () => {
    const linked = new Set(links(read('README.md')).map((target) => target.split('#')[0]));
    for (const page of PAGES.filter((path) => path.startsWith('docs/'))) expect(linked).toContain(page);
  });
});

describe.each(PAGES)('%s', (page) => {
  it('has every relative link and anchor resolve', () => {
    const text = read(page);
    const broken: string[] = [];
    for (const target of links(text)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path ? normalize(join(dirname(page), path)) : page;
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${target}: no file ${file}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!file.endsWith('.md') || statSync(join(ROOT, file)).isDirectory()) {
        broken.push(`${target}: an anchor into ${file}, which is no Markdown page`);
      } else if (!anchors(read(file)).has(anchor)) {
        broken.push(`${target}: ${relative('.', file)} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the link checker', () => {
  it('finds the anchors GitHub makes, and refuses a broken link', () => {
    expect(slug('The MCP server: `cloudcall-mcp`')).toBe('the-mcp-server-cloudcall-mcp');
    expect(slug("Fitting an agent's context")).toBe('fitting-an-agents-context');
    expect([...anchors('# A\n## B\n## B\n```\n# not a heading\n```\n')]).toEqual(['a', 'b', 'b-1']);
    expect(links('[x](docs/none.md) `[y](z.md)`\n```\n[w](v.md)\n```\n')).toEqual(['docs/none.md']);
  });
});
