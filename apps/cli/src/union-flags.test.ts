/**
 * Flags whose argument is a union of text and numbers (or booleans): the word typed becomes the
 * member that takes it. A snapshot's id is a number or a volume snapshot's UUID, so `123` must go
 * out as the number 123; an "integer as string" keeps its text; a list's items are read the same way.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { flagsOf, type JsonSchema, readFlag } from './flags.js';
import { EXIT } from './program.js';
import { inlineRunner } from './testing/inline.js';
import { VM_FLAGS } from './testing/run.js';

const cli = inlineRunner();
afterAll(() => cli.close());

describe('numbers inside unions', () => {
  it('snapshot-delete takes a numeric snapshot id, and snapshot-get too', async () => {
    const vm = await cli.sandbox('vm-create', '--name', 'snap-src', ...VM_FLAGS);
    expect(vm.code, vm.stderr).toBe(EXIT.ok);
    await cli.advance(120_000);
    const id = (vm.json as { droplet: { id: number } }).droplet.id;
    const taken = await cli.sandbox('snapshot-vm', String(id), '--name', 'snap-1');
    expect(taken.code, taken.stderr).toBe(EXIT.ok);
    await cli.advance(600_000);
    const listed = await cli.sandbox('snapshot-list');
    const snapshot = (listed.json as { snapshots: { id: string | number; name: string }[] }).snapshots.find(
      (item) => item.name === 'snap-1',
    );
    expect(String(snapshot?.id)).toMatch(/^\d+$/);

    const got = await cli.sandbox('snapshot-get', String(snapshot?.id));
    expect(got.code, got.stderr).toBe(EXIT.ok);
    const deleted = await cli.sandbox('snapshot-delete', String(snapshot?.id), '--force');
    expect(deleted.code, deleted.stderr).toBe(EXIT.ok);
    const gone = await cli.sandbox('snapshot-get', String(snapshot?.id));
    expect(gone.code).toBe(EXIT.api);
  });

  it('a word no member takes is still refused before any request', async () => {
    const run = await cli.sandbox('snapshot-delete', '12x', '--force');
    expect(run.code).toBe(EXIT.input);
    expect(run.stderr).toMatch(/got "12x"/);
  });

  it('reads each member as the schema says', () => {
    const [id, count, flag, keys] = flagsOf({
      properties: {
        ID: { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^[0-9a-f-]{36}$' }] },
        Count: { anyOf: [{ type: 'string', pattern: '^\\s*-?\\d+\\s*$' }, { type: 'integer' }] },
        Only: { anyOf: [{ type: 'string', enum: ['true', 'false'] }, { type: 'boolean' }] },
        Keys: {
          type: 'array',
          items: {
            anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^[0-9a-f]{2}(:[0-9a-f]{2})+$' }],
          },
        },
      },
    } as JsonSchema);
    expect(readFlag(id as never, '123')).toBe(123);
    expect(readFlag(id as never, 'fbe805e8-866b-11e6-96bf-000f53315a41')).toBe(
      'fbe805e8-866b-11e6-96bf-000f53315a41',
    );
    expect(readFlag(count as never, '2')).toBe('2');
    expect(readFlag(flag as never, 'true')).toBe('true');
    expect(readFlag(keys as never, '12,aa:bb')).toEqual([12, 'aa:bb']);
  });
});
