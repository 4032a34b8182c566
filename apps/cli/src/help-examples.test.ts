/**
 * Every example the help shows is one the CLI takes: each tool's generated `Example:` line and
 * the root help's `Examples:`, run as written. They name placeholders (`ID`, `VM_ID`), not
 * resources of an account, so a tool's example is run against a sandbox state file that cannot be
 * opened: what comes back must be that refusal, which comes after the arguments are read and
 * checked, and never an `invalid input`. The root help's examples run against a sandbox that holds
 * the VM they name.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner } from './testing/run.js';
import { loadIndex } from './tool-entry.js';

const cli = cliRunner();
/** A directory: the sandbox refuses it as a state file, once a command has read its arguments. */
const unusable = mkdtempSync(join(tmpdir(), 'cloudcall-examples-'));

/** What the files an example reads with `"$(cat FILE)"` hold: PEM text of the kind it names. */
const FILES: Record<string, string> = {
  'privkey.pem': pem('PRIVATE KEY'),
  'cert.pem': pem('CERTIFICATE'),
  'chain.pem': pem('CERTIFICATE'),
  // Files an example names for the CLI to read: written to a directory of their own.
  'cloud-init.yml': '#cloud-config\npackages: [nginx]\n',
  'firewall.json': JSON.stringify({ name: 'web', inbound_rules: [], outbound_rules: [] }),
};
const files = mkdtempSync(join(tmpdir(), 'cloudcall-example-files-'));
for (const [name, text] of Object.entries(FILES)) writeFileSync(join(files, name), text);

function pem(label: string): string {
  return `-----BEGIN ${label}-----\nMIIBVgIBADANBgkqhkiG9w0BAQEFAASCAUAwggE8AgEAAkEAq7BFUpkGp3+LQmlQ\n-----END ${label}-----\n`;
}

/**
 * The words of a shell command line as the shell passes them: quotes kept together, and
 * `"$(cat FILE)"` as the file's text (FILES).
 */
function words(line: string): string[] {
  const found = line.match(/'[^']*'|"[^"]*"|[^\s'"]+/g) ?? [];
  return found.map((word) => {
    const read = /^"\$\(cat (\S+)\)"$/.exec(word);
    if (read) {
      const text = FILES[read[1] as string];
      if (text === undefined) throw new Error(`an example reads ${read[1]}, which this test does not have`);
      return text;
    }
    const plain = /^['"]/.test(word) ? word.slice(1, -1) : word;
    // A file named as an argument (`--input firewall.json`, `-F user_data=@cloud-init.yml`).
    return plain.replace(/^(.*@)?([\w.-]+)$/, (whole, head = '', name: string) =>
      FILES[name] === undefined ? whole : `${head}${join(files, name)}`,
    );
  });
}

/** The example lines after `heading` in a help text, without their comments, continuations joined. */
function examples(help: string, heading: RegExp): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((line) => heading.test(line));
  if (start < 0) return [];
  const found: string[] = [];
  let continued = false;
  for (const line of lines.slice(start + 1)) {
    if (continued) found[found.length - 1] += ` ${line.trim()}`;
    else if (/^ {2}cloudcall /.test(line)) found.push(line.trim());
    else break;
    continued = found[found.length - 1]?.endsWith('\\') ?? false;
    if (continued) found[found.length - 1] = (found[found.length - 1] as string).slice(0, -1).trim();
  }
  return found.map((line) => line.replace(/\s+#.*$/, ''));
}

/** Runs an example against the unusable sandbox: whether it got past reading its arguments. */
async function readsItsArguments(example: string): Promise<string | undefined> {
  const run = await cli.run(['--sandbox', '--sandbox-state', unusable, ...words(example).slice(1)]);
  const past = run.stderr.includes('cannot be used: it is a directory') || run.code === 0;
  return past ? undefined : `${example}\n  ${run.stderr.trim().split('\n')[0]}`;
}

const tools = (await loadIndex()).flatMap((family) => family.tools.map((tool) => tool.name));

describe('help examples', () => {
  it('every tool shows one', async () => {
    expect(tools.length).toBeGreaterThan(200);
    const missing: string[] = [];
    for (const tool of tools) {
      const help = await cli.run([tool, '--help']);
      if (examples(help.stdout, /^Example:$/).length !== 1) missing.push(tool);
    }
    expect(missing).toEqual([]);
  }, 120_000);

  it("every tool's example is read and checked without a refusal", async () => {
    const refused: string[] = [];
    for (const tool of tools) {
      const [example] = examples((await cli.run([tool, '--help'])).stdout, /^Example:$/);
      const refusal = await readsItsArguments(example ?? '');
      if (refusal) refused.push(refusal);
    }
    expect(refused.join('\n')).toBe('');
  }, 180_000);

  it("the api command's examples are read and checked without a refusal", async () => {
    const lines = examples((await cli.run(['api', '--help'])).stdout, /^Examples:$/);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    // The continued one is read whole.
    expect(lines).toContainEqual(expect.stringMatching(/-f name=web-1 .* -F user_data=@cloud-init\.yml$/));
    const refused: string[] = [];
    for (const line of lines) {
      const refusal = await readsItsArguments(line);
      if (refusal) refused.push(refusal);
    }
    expect(refused.join('\n')).toBe('');
  });

  it("the root help's examples run", async () => {
    const help = await cli.run(['--help']);
    const lines = examples(help.stdout, /^Examples:$/);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    // The VM the examples name, in the sandbox they run against.
    await cli.ok(
      'vm-create',
      '--name',
      'web-1',
      '--size',
      's-1vcpu-1gb',
      '--image-id',
      '161928327',
      '--region',
      'nyc3',
    );
    for (const line of lines) {
      const run = await cli.sandbox(...words(line).slice(1));
      expect(run.code, `${line}: ${run.stderr}`).toBe(0);
    }
  }, 60_000);
});
