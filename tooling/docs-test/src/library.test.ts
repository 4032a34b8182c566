/**
 * The library path from a clone, as the pages write it: `pnpm pack:libs ~/cloudcall-libs`, then
 * `npm install` lines of tarballs. Each line must bring every library its code imports, and the
 * libraries those depend on, as the manifests say (the public registry has no @cloudcall package
 * yet, so a missing tarball is a failed install). tooling/packed runs these same blocks: the
 * command, the lines in a new directory, the examples there.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, codeBlocks, LIBRARIES, links, ROOT, read } from './markdown.js';

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifests = new Map(
  readdirSync(join(ROOT, 'packages'))
    .filter((dir) => existsSync(join(ROOT, 'packages', dir, 'package.json')))
    .map((dir) => JSON.parse(read(`packages/${dir}/package.json`)) as Manifest)
    .map((manifest) => [manifest.name, manifest]),
);

/** The libraries `name` needs installed beside it: its workspace dependencies, theirs, and so on. */
function needs(name: string, seen = new Set<string>()): Set<string> {
  const manifest = manifests.get(name);
  if (!manifest) throw new Error(`no package ${name} under packages/`);
  seen.add(name);
  const all = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies };
  for (const [dependency, range] of Object.entries(all)) {
    if (range.startsWith('workspace:') && !seen.has(dependency)) needs(dependency, seen);
  }
  return seen;
}

const TARBALL = /^~\/cloudcall-libs\/cloudcall-([\w-]+)\.tgz$/;
/** The packages an `npm install` line of tarballs installs, by name; anything else fails. */
function installs(line: string): string[] {
  const [npm, install, ...words] = line.split(' ');
  expect(`${npm} ${install}`, line).toBe('npm install');
  return words.map((word) => {
    const name = TARBALL.exec(word)?.[1];
    expect(name, `${word} in: ${line}`).toBeDefined();
    return `@cloudcall/${name}`;
  });
}
/** The line pack:libs prints for a library: its tarball, then those it needs, by name. */
const lineFor = (name: string) =>
  `npm install ${[name, ...[...needs(name)].filter((each) => each !== name).sort()]
    .map((each) => `~/cloudcall-libs/${each.replace('@cloudcall/', 'cloudcall-')}.tgz`)
    .join(' ')}`;
const commandLines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
/** The @cloudcall packages an example imports. */
const imported = (code: string) =>
  [...new Set([...code.matchAll(/from '(@cloudcall\/[\w-]+)/g)].map((match) => match[1] ?? ''))].sort();
/** What an example needs installed: what it imports, and what those need. */
const required = (code: string) => new Set(imported(code).flatMap((name) => [...needs(name)]));

/** A page's section: from its heading to the next heading of the same level. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const level = /^#+ /.exec(heading)?.[0] ?? '## ';
  const end = markdown.indexOf(`\n${level}`, start + heading.length + 2);
  return markdown.slice(start, end === -1 ? undefined : end);
}

describe("the README's library quick start", () => {
  const readme = read('README.md');
  const blocks = codeBlocks(readme);
  const part = section(readme, '## Quick start: the library');

  it('holds the blocks the tests run: the shell block with pnpm pack:libs, and the example after it', () => {
    // tooling/packed runs the first shell block with `pnpm pack:libs` and the next code block;
    // examples.test.ts runs the README's first `js` block: the same, inside this section.
    const shell = blocks.find((b) => b.lang === 'sh' && b.text.includes('pnpm pack:libs'));
    const example = blocks.find((b) => b.lang === 'js');
    expect(codeBlocks(part).map((b) => b.lang)).toEqual(['sh', 'js']);
    expect(codeBlocks(part).map((b) => b.text)).toEqual([shell?.text, example?.text]);
  });

  it('packs, makes a directory, installs @cloudcall/vms with what it needs, then what the example needs', () => {
    const [pack, init, vms, ...more] = commandLines(codeBlocks(part)[0]?.text ?? '');
    expect(pack).toBe('pnpm install && pnpm pack:libs ~/cloudcall-libs');
    const dir = /^mkdir -p (~\/[\w-]+) && cd \1 && npm init -y$/.exec(init ?? '')?.[1];
    expect(dir, init).toBeDefined();
    expect(vms).toBe(lineFor('@cloudcall/vms'));

    const example = codeBlocks(part)[1]?.text ?? '';
    const installed = new Set([vms, ...more].flatMap((line) => installs(line ?? '')));
    expect([...required(example)].filter((name) => !installed.has(name))).toEqual([]);
    expect(imported(example)).toEqual(['@cloudcall/sandbox', '@cloudcall/vms']);
    // The text names the file the code is saved as, in that directory, and how to run it.
    expect(part).toContain(`Save this as \`example.mjs\` in \`${dir}\` and run \`node example.mjs\`:`);
  });
});

describe.each(LIBRARIES)('packages/%s/README.md', (name) => {
  const readme = read(`packages/${name}/README.md`);
  const lines = codeBlocks(readme)
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => commandLines(b.text))
    .filter((line) => line.includes('~/cloudcall-libs/'));

  it('says how to pack the libraries from a clone, and gives the line pack:libs prints for it', () => {
    expect(section(readme, '## Install')).toContain('`pnpm pack:libs ~/cloudcall-libs`');
    expect(lines[0]).toBe(lineFor(`@cloudcall/${name}`));
  });

  it("installs, with the example's own line, every library its example imports and what those need", () => {
    const [example] = codeBlocks(readme).filter((b) => b.lang === 'ts');
    const installed = new Set(lines.flatMap(installs));
    expect([...required(example?.text ?? '')].filter((each) => !installed.has(each))).toEqual([]);
    // At most one more line: the example's, under its heading.
    expect(lines.length).toBeLessThanOrEqual(2);
    if (lines[1])
      expect(commandLines(codeBlocks(section(readme, '## Example'))[0]?.text ?? '')).toEqual([lines[1]]);
  });

  it('has an install, an example and links, each into the repository resolving to a page and heading', () => {
    expect(readme).toMatch(/^## Install$/m);
    expect(readme).toMatch(/^## Example$/m);
    const repository = links(section(readme, '## Links')).filter((target) =>
      target.startsWith('https://github.com/cloudcall/cloudcall'),
    );
    expect(repository.length).toBeGreaterThan(0);
    for (const target of links(readme)) {
      const match = /^https:\/\/github\.com\/cloudcall\/cloudcall(?:\/blob\/main\/([^#]+))?(?:#(.+))?$/.exec(
        target,
      );
      if (!match) continue;
      const [, path = 'README.md', anchor] = match;
      expect(existsSync(join(ROOT, path)), target).toBe(true);
      if (anchor && anchor !== 'readme') expect(anchors(read(path)).has(anchor), target).toBe(true);
    }
  });
});

describe('docs/library.md', () => {
  const guide = read('docs/library.md');

  it('installs, in a new directory, every library its first example imports and what those need', () => {
    const part = section(guide, '## Installing the libraries');
    const [pack, install] = codeBlocks(part).filter((b) => b.lang === 'sh');
    expect(commandLines(pack?.text ?? '')).toEqual(['pnpm pack:libs ~/cloudcall-libs']);
    const [init, ...lines] = commandLines(install?.text ?? '');
    expect(init).toMatch(/^mkdir -p (~\/[\w-]+) && cd \1 && npm init -y$/);
    const installed = new Set(lines.flatMap(installs));
    expect(lines[0]).toBe(lineFor('@cloudcall/account'));
    const [example] = codeBlocks(guide).filter((b) => b.lang === 'js');
    expect(imported(example?.text ?? '')).toEqual([
      '@cloudcall/account',
      '@cloudcall/core',
      '@cloudcall/sandbox',
    ]);
    expect([...required(example?.text ?? '')].filter((each) => !installed.has(each))).toEqual([]);
  });
});
