/**
 * The sandbox's state, in memory or in a JSON file shared by several processes (the MCP server,
 * each CLI invocation). Every change runs as a transaction: take the file's lock, read the latest
 * state, apply the change, write a temp file, fsync it, rename it over the old one, release. A
 * crash mid-write leaves the previous file intact; two writers never interleave, so no
 * acknowledged change is lost.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';
export class Store {
    world;
    stamp = '';
    path;
    seed;
    upgrade;
    /** In-process writers queue here; the file lock orders writers across processes. */
    queue = Promise.resolve();
    constructor(options) {
        this.path = options.path;
        this.seed = options.seed;
        this.upgrade = options.upgrade ?? ((world) => world);
    }
    get file() {
        return this.path;
    }
    /** Creates the state file (seeded) when it does not exist yet. */
    async open() {
        if (!this.path) {
            this.world = this.seed();
            return;
        }
        await mkdir(dirname(this.path), { recursive: true });
        await this.write(() => undefined);
    }
    /** Runs `fn` on the latest state without changing it. */
    async read(fn) {
        return fn(this.latest());
    }
    /** Runs `fn` on the latest state and saves what it changed, atomically and durably. */
    write(fn) {
        const run = this.queue.then(() => this.transaction(fn));
        this.queue = run.catch(() => undefined);
        return run;
    }
    /** Replaces the state with a fresh seed. */
    reset() {
        return this.write((world) => {
            Object.assign(world, this.seed());
        });
    }
    async transaction(fn) {
        if (!this.path) {
            const world = this.latest();
            // Work on a copy so that a handler that throws half-way leaves no partial change behind.
            const draft = structuredClone(world);
            const result = fn(draft);
            this.world = draft;
            return result;
        }
        const release = await lockfile.lock(this.path, {
            realpath: false,
            stale: 10_000,
            retries: { retries: 200, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
        });
        try {
            this.stamp = '';
            const draft = structuredClone(this.latest());
            const result = fn(draft);
            this.save(draft);
            return result;
        }
        finally {
            await release();
        }
    }
    /** The current state: re-read from the file when another process changed it. */
    latest() {
        if (!this.path) {
            this.world ??= this.seed();
            return this.world;
        }
        let stamp;
        try {
            const stat = statSync(this.path);
            stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
        }
        catch (error) {
            if (error.code !== 'ENOENT')
                throw error;
            this.world ??= this.seed();
            return this.world;
        }
        if (stamp !== this.stamp || !this.world) {
            const text = readFileSync(this.path, 'utf8');
            let parsed;
            try {
                parsed = JSON.parse(text);
            }
            catch {
                throw new Error(`The sandbox state file ${this.path} is not valid JSON; move it away to start afresh.`);
            }
            this.world = this.upgrade(parsed);
            this.stamp = stamp;
        }
        return this.world;
    }
    save(world) {
        const path = this.path;
        const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
        const fd = openSync(temp, 'w', 0o600);
        try {
            writeSync(fd, JSON.stringify(world));
            fsyncSync(fd);
        }
        catch (error) {
            closeSync(fd);
            unlinkSync(temp);
            throw error;
        }
        closeSync(fd);
        renameSync(temp, path);
        // Make the rename itself durable.
        try {
            const dir = openSync(dirname(path), 'r');
            fsyncSync(dir);
            closeSync(dir);
        }
        catch {
            // Some filesystems cannot fsync a directory; the rename is still atomic.
        }
        this.world = world;
        const stat = statSync(path);
        this.stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    }
}
