/**
 * The stdio server's first call ends with two young-generation collections (young-generation.ts):
 * run after its work and before its answer, once per server, and V8's own collections (seen by a
 * PerformanceObserver in this process).
 */
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import type { CallToolRequestParams, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { CallExtra, ToolCall } from './tool-call.js';
import { promotingFirstCall, youngCollector } from './young-generation.js';

const params: CallToolRequestParams = { name: 'key-list', arguments: {} };
const extra = {} as CallExtra;

/** A call that answers when `finish` is called, noting what happened when into `events`. */
function heldCall(events: string[]) {
  const finishes: (() => void)[] = [];
  const call: ToolCall = (p) =>
    new Promise<CallToolResult>((resolve) => {
      events.push(`call ${p.name}`);
      finishes.push(() => {
        events.push(`done ${p.name}`);
        resolve({ content: [{ type: 'text', text: p.name }] });
      });
    });
  return { call, finish: (at: number) => finishes[at]?.() };
}

describe('the first call of a stdio server', () => {
  it('collects twice after its work and before its answer, and never again', async () => {
    const events: string[] = [];
    const { call, finish } = heldCall(events);
    const promoting = promotingFirstCall(call, () => events.push('collect'));
    const first = promoting({ ...params, name: 'first' }, extra).then(() => events.push('answered first'));
    // A call made while the first runs goes on as it is.
    const second = promoting({ ...params, name: 'second' }, extra).then(() => events.push('answered second'));
    expect(events).toEqual(['call first', 'call second']);
    finish(1);
    await second;
    finish(0);
    await first;
    const third = promoting({ ...params, name: 'third' }, extra).then(() => events.push('answered third'));
    finish(2);
    await third;
    expect(events).toEqual([
      'call first',
      'call second',
      'done second',
      'answered second',
      'done first',
      'collect',
      'collect',
      'answered first',
      'call third',
      'done third',
      'answered third',
    ]);
  });

  it('still collects when the first call fails, and the failure reaches the caller', async () => {
    let collected = 0;
    const failing: ToolCall = () => Promise.reject(new Error('the API is gone'));
    const promoting = promotingFirstCall(failing, () => collected++);
    await expect(promoting(params, extra)).rejects.toThrow('the API is gone');
    expect(collected).toBe(2);
  });

  it("collects V8's young generation, not the whole heap", async () => {
    const kinds: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        kinds.push((entry as unknown as { detail: { kind: number } }).detail.kind);
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      const collect = await youngCollector();
      collect();
      await expect.poll(() => kinds.length).toBeGreaterThan(0);
      // (A full collection reports itself as major only.)
      expect(kinds).toContain(perf.NODE_PERFORMANCE_GC_MINOR);
    } finally {
      observer.disconnect();
    }
  });
});
