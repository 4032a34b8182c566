/**
 * A wait's progress names what it waits for, by kind and name, never by a bare id: the built CLI
 * as a process, on a real pseudo-terminal (the spinner line) and on a pipe (a line per status),
 * against a sandbox on loopback whose clock stands still: nothing is ready until the test, having
 * seen the CLI poll, moves the clock on. So no test depends on how fast the machine is.
 */
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner, type Json, onTerminal, type Run, startCli, VM_FLAGS } from './testing/run.js';

const cli = cliRunner({}, { process: true });
let sandbox: Sandbox;
let api: string[];

beforeAll(async () => {
  const frozen = Date.now();
  sandbox = await startSandbox({ now: () => frozen });
  api = ['--api-url', sandbox.url, '--token', 'sandbox-token'];
});
afterAll(async () => {
  await sandbox.close();
});

/** A command against the frozen sandbox, expecting exit 0: its JSON. */
async function ok(...args: string[]): Promise<Json> {
  const run = await cli.run([...api, ...args]);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.json;
}

/**
 * Runs `start`, and once the CLI has polled `path` twice (it is waiting, and has had the answer to
 * its first poll), moves the clock on a minute. A request is counted before it is answered: moved
 * on at the first count, the clock could make that very answer the ready one, with no progress.
 */
async function whenPolled<T>(path: string, start: () => Promise<T>): Promise<T> {
  const polls = await sandbox.watchRequests({ method: 'GET', path });
  const running = start();
  await expect.poll(() => sandbox.matchedRequests(polls), { timeout: 30_000 }).toBeGreaterThan(1);
  await sandbox.advanceClock(60_000);
  return running;
}

/** The CLI on a terminal; what the terminal showed, expecting exit 0. */
async function onTerminalHere(args: string[]): Promise<string> {
  const run = await onTerminal([...api, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: cli.home, TERM: 'xterm' },
  });
  expect(run.code, run.text).toBe(0);
  return run.text;
}

/** The progress lines a terminal showed: each rewrite of the spinner line, and the last line. */
function progressLines(text: string): string[] {
  return text
    .split('\r\x1b[K')
    .flatMap((part) => part.split('\n'))
    .filter((line) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] |^cloudcall: /.test(line));
}

/** A command on a pipe, moving the clock once it polls `path`: its result, expecting exit 0. */
async function piped(path: string, args: string[]): Promise<Run> {
  const run = await whenPolled(path, () => startCli([...api, ...args], cli.env).exit);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

describe('the wait spinner on a terminal', () => {
  it('names the VM that --wait waits for, then the state it ended in', async () => {
    // The next VM's id: the sandbox numbers them in order.
    const before = (await ok('vm-list')).droplets.length;
    const text = await whenPolled(`/v2/droplets/${480_000_001 + before}`, () =>
      onTerminalHere(['vm-create', '--name', 'spin-web', ...VM_FLAGS, '--wait', '-o', 'json']),
    );
    const id = String(JSON.parse(text.slice(text.indexOf('{'))).droplet.id);
    expect(id).toBe(String(480_000_001 + before));
    const lines = progressLines(text);
    expect(lines[0]).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] vm spin-web: new \(\d+ s, timeout 300 s\)$/);
    expect(lines.at(-1)).toMatch(/^cloudcall: vm spin-web: active \(\d+ s\)$/);
    expect(lines.filter((line) => line.includes(id))).toEqual([]);
  }, 60_000);

  it('names it for `cloudcall wait` given only the id, with the same spinner line', async () => {
    const id = String((await ok('vm-create', '--name', 'spin-later', ...VM_FLAGS)).droplet.id);
    const text = await whenPolled(`/v2/droplets/${id}`, () =>
      onTerminalHere(['wait', '--kind', 'vm', '--id', id, '-o', 'json']),
    );
    const lines = progressLines(text);
    expect(lines[0]).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] vm spin-later: new \(\d+ s, timeout 300 s\)$/);
    expect(lines.at(-1)).toMatch(/^cloudcall: vm spin-later: active \(\d+ s\)$/);
  }, 60_000);
});

describe('wait progress on a pipe', () => {
  it("names an action by its type and the resource's name, as typed or read by its id", async () => {
    const vm = (await ok('vm-create', '--name', 'spin-vm', ...VM_FLAGS)).droplet;
    await sandbox.advanceClock(60_000);
    const { volume } = await ok(
      ...['volume-create', '--name', 'spin-logs', '--size-gigabytes', '1', '--region', 'nyc3'],
    );

    // The volume by the name typed (a volume's action names no volume).
    const attached = await piped('/v2/actions', [
      'volume-attach',
      'spin-logs',
      '--vm-id',
      'spin-vm',
      '--wait',
    ]);
    expect(attached.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^cloudcall: action attach_volume on volume spin-logs: in-progress \(\d+ s\)$/),
      expect.stringMatching(/^cloudcall: action attach_volume on volume spin-logs: completed \(\d+ s\)$/),
    ]);
    expect(attached.stderr).not.toContain(volume.id);

    // Given the VM's id, the wait reads its name once.
    const off = await piped('/v2/actions', ['power-off-vm', String(vm.id), '--force', '--wait']);
    expect(off.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^cloudcall: action power_off on vm spin-vm: in-progress \(\d+ s\)$/),
      expect.stringMatching(/^cloudcall: action power_off on vm spin-vm: completed \(\d+ s\)$/),
    ]);
  }, 90_000);
});

describe('a name with control characters in the progress line', () => {
  // A line break, an ANSI escape (clear screen, colour), a bidi override and a C1 control, as a
  // name read from the platform may hold them.
  const raw = 'evil\nname\x1b[2J\x1b[31m\u202eexe.txt\x9b';
  const escaped = 'evil\\nname\\x1b[2J\\x1b[31m\\u202eexe.txt\\x9b';

  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** A VM whose name, as the platform holds it, is `raw`. */
  async function vmNamedRaw(): Promise<string> {
    const vm = (await ok('vm-create', '--name', 'plain-name', ...VM_FLAGS)).droplet;
    await sandbox.store.write((world) => {
      const found = world.droplets.find((droplet) => droplet.id === vm.id);
      if (!found) throw new Error('the VM just made is missing');
      found.name = raw;
    });
    return String(vm.id);
  }

  /** Fails on any control character a terminal would act on (tab aside). */
  const noControls = (text: string) =>
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters looked for
    expect(text).not.toMatch(/[\x00-\x08\x0a-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);

  it('shows them escaped on a terminal, in the spinner line and the last line', async () => {
    const id = await vmNamedRaw();
    const text = await whenPolled(`/v2/droplets/${id}`, () =>
      onTerminalHere(['wait', '--kind', 'vm', '--id', id, '-o', 'json']),
    );
    const lines = progressLines(text);
    expect(lines[0]).toMatch(
      new RegExp(`^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] vm ${literal(escaped)}: new \\(\\d+ s, timeout 300 s\\)$`),
    );
    expect(lines.at(-1)).toMatch(new RegExp(`^cloudcall: vm ${literal(escaped)}: active \\(\\d+ s\\)$`));
    // Everything before the JSON answer: the progress lines, with only the CLI's own escapes.
    const progress = text.slice(0, text.indexOf('{')).replaceAll('\r\x1b[K', '');
    expect(progress).toContain(escaped);
    noControls(progress.replaceAll('\r\n', '').replaceAll('\n', ''));
  }, 60_000);

  it('shows them escaped on a pipe, one line per status', async () => {
    const id = await vmNamedRaw();
    await sandbox.advanceClock(60_000);
    const off = await piped('/v2/actions', ['power-off-vm', id, '--force', '--wait']);
    expect(off.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^cloudcall: action power_off on vm ${literal(escaped)}: in-progress \\(\\d+ s\\)$`),
      ),
      expect.stringMatching(
        new RegExp(`^cloudcall: action power_off on vm ${literal(escaped)}: completed \\(\\d+ s\\)$`),
      ),
    ]);
  }, 60_000);
});
