/**
 * What the documentation tests share: a new user's environment, and reading Markdown as GitHub
 * renders it: the anchors its headings get, the links and the fenced
 * code blocks of a page. Code blocks are left out when looking for headings and links.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

/** The published library packages (under packages/), each with a README example that runs. */
export const LIBRARIES = [
  'core',
  'platform',
  'account',
  'databases',
  'networking',
  'vms',
  'images',
  'monitoring',
  'spaces',
  'apps',
  'kubernetes',
  'registry',
  'api',
  'guard',
  'wait',
  'catalog',
  'sandbox',
] as const;

/** The environment of a new user: a temporary HOME and sandbox state, no token, no colour. */
export function newUserEnv(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'cloudcall-new-user-'));
  return {
    ...(process.env as Record<string, string>),
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    CLOUDCALL_SANDBOX_STATE: join(home, 'sandbox.json'),
    DIGITALOCEAN_API_TOKEN: '',
    DIGITALOCEAN_ACCESS_TOKEN: '',
    NO_COLOR: '1',
  };
}

export interface Block {
  lang: string;
  text: string;
  /** The line before the opening fence's paragraph, for blocks a test picks out. */
  line: number;
}

export function codeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    blocks.push({ lang: open[1] ?? '', text: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** The page without its fenced code blocks and inline code spans. */
export function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a page: its headings' slugs, repeats numbered as GitHub numbers them. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const match of markdown.replace(/^```[\s\S]*?^```\s*$/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count ? `${base}-${count}` : base);
  }
  return found;
}

/** The targets of a page's Markdown links (`[text](target)`), outside code. */
export function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
}
