/**
 * V8's code cache for the CLI's own files on a Node with no compile cache of its own (Node 20;
 * 22.1 and later keep one, which main.ts enables instead). Compiling the chunks a command loads is
 * about a third of its processor time; with the cache, V8 reads the code it made last time
 * (bytecode of every function that ran, not only of the top level) and compiles only what it has
 * not seen.
 *
 * The build makes dist/ CommonJS, which Node compiles as scripts: `vm.Script` takes the code a
 * previous start made (`cachedData`) and makes it anew at exit (`createCachedData`) for a file
 * whose code was not in the cache, or whose cached code V8 refused. A run that loaded such a file
 * also makes anew the code of the files it found cached: what a file's cached code holds is what
 * the run that made it called (a first `--help` calls little of the program's chunk), and a run
 * that loads a file never cached before is one that goes another way (a first command after it);
 * its code holds what the cache held and what this run called. A file's cached code is kept
 * in a file of its own under the user's cache directory, in a folder named by the CLI's version,
 * Node's version, the machine's architecture and the place the CLI is installed; the file's name
 * has the chunk's name (which holds a hash of its content), size and modification time, so that
 * code made from other source is never used (V8 checks its own version, its flags and the
 * source's length, not the source itself). Each is written to a temporary name, then renamed: a
 * start that reads it sees all of it or none. When it writes, it removes what no file of this
 * installation can use any more (the code of chunks an update replaced, the folders of other
 * versions of the CLI or Node installed in the same place), so the cache holds one copy of what
 * the commands run. Nothing about the cache can stop a command: a directory that cannot be made, a
 * file that cannot be read or written, is skipped. NODE_DISABLE_COMPILE_CACHE (Node's own switch)
 * turns it off.
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * Where the CLI keeps cached code: `code-cache` in `$XDG_CACHE_HOME/cloudcall`, `%LOCALAPPDATA%`
 * on Windows, `~/Library/Caches` on macOS, else `~/.cache`.
 */
export function codeCacheDirectory(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  const home = env.HOME || homedir();
  const base =
    env.XDG_CACHE_HOME ||
    (platform === 'win32' && env.LOCALAPPDATA) ||
    (platform === 'darwin' ? join(home, 'Library', 'Caches') : join(home, '.cache'));
  return join(base, 'cloudcall', 'code-cache');
}

/** FNV-1a of a text, in hex: names an installation's folder (no need for node:crypto here). */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * One buffer the cached code of each file is read into, grown as needed: V8 reads the data while
 * it compiles and keeps none of it, so the next file's can go in the same memory. A buffer of its
 * own for each file (readFileSync) is fresh memory from the system each time, which costs a start
 * a page fault for every 4 KiB of the 700 KiB or so a command reads.
 */
let readBuffer: Buffer | undefined;

function readCached(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    if (!readBuffer || readBuffer.length < size)
      readBuffer = Buffer.allocUnsafeSlow(Math.max(size, 256 * 1024));
    let read = 0;
    while (read < size) {
      const got = readSync(fd, readBuffer, read, size - read, read);
      if (got === 0) break;
      read += got;
    }
    return readBuffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** The name of a file's cached code: its name, size and modification time. */
function cacheName(file: string): string {
  const { size, mtimeMs } = statSync(file);
  return `${basename(file)}-${size}-${Math.trunc(mtimeMs)}.v8`;
}

interface CompilingModule {
  exports: unknown;
  require: (id: string) => unknown;
}

type Compile = (this: CompilingModule, content: string, filename: string) => unknown;

/**
 * Compiles the CommonJS files under `root` (the CLI's dist/, of this `version`) with V8's code
 * cache kept in a folder of `cache` of their own; other files are compiled as Node compiles them.
 */
export function keepCompiledCode(root: string, cache: string, version: string): void {
  const installation = shortHash(root);
  const directory = join(cache, `${version}-node${process.version}-${process.arch}-${installation}`);
  const internals = Module as unknown as {
    prototype: { _compile: Compile };
    wrap: (source: string) => string;
    _resolveFilename: (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
    _cache: unknown;
  };
  const nodeCompile = internals.prototype._compile;
  const pending: { script: Script; file: string }[] = [];
  const used: { script: Script; file: string }[] = [];
  const prefix =
    root.endsWith('/') || root.endsWith('\\') ? root : `${root}${root.includes('\\') ? '\\' : '/'}`;

  internals.prototype._compile = function compile(content, filename) {
    if (!filename.startsWith(prefix)) return nodeCompile.call(this, content, filename);
    let file: string | undefined;
    let cachedData: Buffer | undefined;
    try {
      file = join(directory, cacheName(filename));
      cachedData = readCached(file);
    } catch {
      // Not cached yet (or not readable): compiled, and cached at exit.
    }
    // A dynamic import() in a script needs Node's loader callbacks, which only Node's own compile
    // sets up: the build turns every import() into require(), so this is a safety net. A file
    // with cached code passed it when that code was made (the cache's name holds the file's
    // name, size and time): its 100 KB or so are not searched again at every start.
    if (cachedData === undefined && content.includes('import(')) {
      return nodeCompile.call(this, content, filename);
    }
    // A shebang line is no comment to V8 inside the function Node wraps a module in.
    const source = content.startsWith('#!') ? `//${content}` : content;
    const script = new Script(internals.wrap(source), { filename, cachedData });
    if (file !== undefined) {
      (cachedData === undefined || script.cachedDataRejected ? pending : used).push({ script, file });
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const require = Object.assign((id: string) => this.require(id), {
      resolve: (request: string, options?: unknown) =>
        internals._resolveFilename(request, this, false, options),
      main: process.mainModule,
      cache: internals._cache,
    });
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };

  // At exit the scripts have run: their cached data holds the functions the command called too.
  process.once('exit', () => {
    if (!pending.length) return;
    try {
      mkdirSync(directory, { recursive: true });
    } catch {
      return;
    }
    for (const { script, file } of [...pending, ...used]) {
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, file);
      } catch {
        try {
          unlinkSync(temporary);
        } catch {}
      }
    }
    try {
      prune(root, cache, directory, installation);
    } catch {
      // Left for the next write.
    }
  });
}

/**
 * Removes the cached code no file of this installation can use: in its folder, what is not the
 * current code of a file under `root` (a chunk an update replaced, or changed); beside it, the
 * folders of this installation made by another version of the CLI or of Node.
 */
function prune(root: string, cache: string, directory: string, installation: string): void {
  const current = new Set<string>();
  const collect = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) collect(path);
      else if (entry.name.endsWith('.js')) current.add(cacheName(path));
    }
  };
  collect(root);
  for (const name of readdirSync(directory)) {
    // Another start's file being written ends in .tmp: left to it.
    if (name.endsWith('.v8') && !current.has(name)) rmSync(join(directory, name), { force: true });
  }
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (path !== directory && name.endsWith(`-${installation}`))
      rmSync(path, { recursive: true, force: true });
  }
}
