/**
 * What the built server loads of Node before it has answered initialize and tools/list over
 * stdio: a host waits for that answer to show the server's tools, so the modules a start does not
 * need (node:crypto and its twenty, the ES module loader that reads the chunks) wait for a call.
 * A preload notes Node's module list at the moment the tools/list answer is written. (The key
 * that seals a confirmation question is made with the first question: modern.test.ts confirms in
 * rounds over stdio without --request-state-key.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { initializeRaw, killAll, rawStdio } from './testing/process.js';

const work = mkdtempSync(join(tmpdir(), 'cloudcall-start-modules-'));
const preload = join(work, 'note-modules.cjs');
writeFileSync(
  preload,
  `const fs = require('node:fs');
const { Duplex, Writable } = require('node:stream');
const { PerformanceObserver, performance } = require('node:perf_hooks');
// Each garbage collection's start; observed entries come later, so they are written at exit.
const collections = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push(entry.startTime);
}).observe({ entryTypes: ['gc'] });
let noted = false;
let answeredAt;
process.on('exit', () => {
  fs.writeFileSync(process.env.MODULES_LOG + '.gc', JSON.stringify({ answeredAt, collections }));
});
const note = (chunk) => {
  if (noted) return;
  const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('latin1', 0, 64) : '';
  if (!text.includes('"tools":')) return;
  noted = true;
  answeredAt = performance.now();
  fs.writeFileSync(process.env.MODULES_LOG, process.moduleLoadList.join('\\n'));
};
const writeSync = fs.writeSync;
fs.writeSync = function (fd, data, ...rest) {
  if (fd === 1) note(data);
  return writeSync.call(this, fd, data, ...rest);
};
// stdout is a socket on a pipe (a Duplex, whose write is its own copy of Writable's), a
// SyncWriteStream on a file.
for (const prototype of [Duplex.prototype, Writable.prototype]) {
  const write = prototype.write;
  prototype.write = function (chunk, ...rest) {
    note(chunk);
    return write.call(this, chunk, ...rest);
  };
}
`,
);
let runs = 0;

afterEach(killAll);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Node's modules loaded when the server wrote its tools/list answer, and when each garbage
 * collection started relative to it (negative: before the answer).
 */
async function atToolList(args: string[]): Promise<{ loaded: string[]; collections: number[] }> {
  const log = join(work, `modules-${runs++}.txt`);
  const stdio = rawStdio(args, {
    DIGITALOCEAN_API_TOKEN: 'start-modules-token',
    NODE_OPTIONS: `--require=${preload}`,
    MODULES_LOG: log,
  });
  await initializeRaw(stdio);
  await stdio.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const listed = (await stdio.next()) as { result?: { tools?: unknown[] } };
  expect(listed.result?.tools?.length).toBeGreaterThan(0);
  expect(await stdio.end()).toBe(0);
  const { answeredAt, collections } = JSON.parse(readFileSync(`${log}.gc`, 'utf8')) as {
    answeredAt: number;
    collections: number[];
  };
  return {
    loaded: readFileSync(log, 'utf8').split('\n'),
    collections: collections.map((start) => start - answeredAt),
  };
}

describe('a stdio start', () => {
  it('answers tools/list before loading node:crypto, the ES module loader or an HTTP client', async () => {
    const { loaded } = await atToolList(['--api-url', 'http://127.0.0.1:9']);
    // The preload saw the streams the answer went through.
    expect(loaded).toContain('NativeModule net');
    expect(
      loaded.filter((entry) =>
        // Node's start loads the ES module loader's frame (esm/loader, utils); reading a module
        // loads the rest (module_job, translators, load).
        /^NativeModule (crypto|internal\/crypto\/.*|https?|tls|zlib|internal\/modules\/esm\/(module_job|translators|load))$/.test(
          entry,
        ),
      ),
    ).toEqual([]);
  });

  it('answers tools/list before V8 first collects garbage, with and without --sandbox', async () => {
    // A collection at start copies nearly everything (the start's objects are alive): about 3 ms
    // before the answer, when the start filled V8's young generation (1 MB at first). The build's
    // tool list goes out as bytes outside V8's heap, and the listing's tools are the index's
    // objects; as text and copies they were 350 KB more and the young generation filled.
    for (const args of [['--api-url', 'http://127.0.0.1:9'], ['--sandbox']]) {
      const { collections } = await atToolList(args);
      expect(
        collections.filter((start) => start < 0),
        args.join(' '),
      ).toEqual([]);
    }
  });
});
