/**
 * On Node 22.1 and later the built server keeps V8's compiled code on disk between starts
 * (main.ts, `module.enableCompileCache`), where Node keeps it by default: a directory under the
 * temporary directory. Node 20 has no compile cache: there the server starts as before, which
 * every other test of the built server shows.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, startHttp } from './testing/process.js';

const supported = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const dirs: string[] = [];
afterEach(() => {
  killAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("V8's compile cache", () => {
  it.skipIf(!supported)('holds the modules a start loaded once the server has exited', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'cloudcall-compile-cache-'));
    dirs.push(scratch);
    const { child } = await startHttp(
      ['--transport', 'http', '--port', '0', '--stateless', '--auth', 'token-passthrough'],
      // Node's default place for the cache: os.tmpdir(), from TMPDIR (the server's environment
      // has nothing else, no NODE_COMPILE_CACHE that would turn the cache on by itself).
      { TMPDIR: scratch },
    );
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
    const cached = filesUnder(join(scratch, 'node-compile-cache'));
    expect(cached.length).toBeGreaterThan(0);
  });
});
