/**
 * The audit log under concurrency: eight processes append to one file at once, through the built
 * package, with lines from a few bytes to nearly the 16 KiB bound; every line must arrive whole,
 * once, and the lines must make one chain (each process reads the last line under the lock).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseOutcomes, parseSince, readAudit, verifyAudit } from './index.js';

// The audit log's module of the built package, not its index: eight processes load it.
const BUILT = fileURLToPath(new URL('../dist/audit.js', import.meta.url));
const PROCESSES = 8;
const LINES = 400;
/** Fills up to this long: lines from a few bytes to nearly the 16 KiB bound, none cut. */
const FILL = 16_000;

function writer(path: string, id: number): Promise<number | null> {
  const script = `
    const { openAuditLog } = await import(${JSON.stringify(BUILT)});
    const log = openAuditLog(${JSON.stringify(path)});
    for (let line = 0; line < ${LINES}; line++) {
      const size = (line * 7919 + ${id} * 104729) % ${FILL};
      await log.append({ time: new Date().toISOString(), front_end: 'cli', tool: 'w${id}', args: { line, fill: 'abcdefgh'[${id}].repeat(size) }, outcome: 'ok', duration_ms: 0 });
    }
    log.close();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

describe('the audit log', () => {
  it(`keeps every line of ${PROCESSES} processes appending at once whole and separate`, async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cloudcall-audit-')), 'audit.log');
    const codes = await Promise.all(Array.from({ length: PROCESSES }, (_, id) => writer(path, id)));
    expect(codes).toEqual(Array(PROCESSES).fill(0));
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(PROCESSES * LINES);
    const seen = new Map<string, number[]>();
    for (const line of lines) {
      const entry = JSON.parse(line) as { tool: string; args: { line: number; fill: string } };
      const id = Number(entry.tool.slice(1));
      // Whole: the fill is one letter, as long as the writer made it.
      expect(entry.args.fill).toBe('abcdefgh'[id]?.repeat((entry.args.line * 7919 + id * 104729) % FILL));
      seen.set(entry.tool, [...(seen.get(entry.tool) ?? []), entry.args.line]);
    }
    for (let id = 0; id < PROCESSES; id++) {
      expect(seen.get(`w${id}`)).toEqual(Array.from({ length: LINES }, (_, line) => line));
    }
    // One chain: no two lines name the same line before them.
    expect(await verifyAudit([path])).toMatchObject({
      intact: true,
      problems: [],
      last: { seq: PROCESSES * LINES },
    });
    // Each line opens the log by its path (so a rotated log is created again): 3,200 opens on
    // a loaded two-core machine take longer than the default 30 s.
  }, 120_000);

  it('is read back filtered by time, tool glob and outcome, counting lines that do not parse', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cloudcall-audit-')), 'audit.log');
    const entry = (time: string, tool: string, outcome: string) =>
      JSON.stringify({ time, front_end: 'mcp', tool, args: {}, outcome, duration_ms: 1 });
    writeFileSync(
      path,
      `${[
        entry('2026-01-01T00:00:00Z', 'vm-delete', 'ok'),
        'not json',
        entry('2026-01-02T00:00:00Z', 'vm-create', 'refused'),
        entry('2026-01-03T00:00:00Z', 'db-cluster-delete', 'declined'),
      ].join('\n')}\n`,
    );
    const now = Date.parse('2026-01-03T12:00:00Z');
    expect(await readAudit(path)).toMatchObject({ torn: 1, skipped: 0, more: false });
    expect((await readAudit(path, { since: parseSince('2d', now) })).entries.map((e) => e.tool)).toEqual([
      'vm-create',
      'db-cluster-delete',
    ]);
    expect((await readAudit(path, { tools: ['vm-*'] })).entries).toHaveLength(2);
    expect((await readAudit(path, { outcomes: parseOutcomes(['refused,declined']) })).entries).toHaveLength(
      2,
    );
    expect(() => parseOutcomes(['nope'])).toThrow(
      'unknown outcome nope; choose from ok, error, refused, declined',
    );
    expect(() => parseSince('soon')).toThrow(/--since must be a duration/);
    expect(parseSince('2026-01-02T00:00:00Z')).toBe(Date.parse('2026-01-02T00:00:00Z'));
  });
});
