/**
 * What the stdio server's first call loads (the call path's modules, the tool families, the API
 * client) is made in V8's young generation and stays alive. V8 copies a surviving object once
 * within the young generation and moves it out at its second collection, so the collections just
 * after loading copy most of it: in a cold server the one during the third call and the one
 * about thirty calls later took 2–2.5 ms each, against 0.4–0.7 ms for a collection once only
 * calls' garbage is there (docs/benchmark.md, twelfth pass). Two collections at the end of the
 * first call, which loads and is slow anyway, move it all out before the next call comes.
 *
 * Node has no call to collect garbage; V8's `gc` function, which can ask for a young-generation
 * collection alone, is given to contexts made after `--expose-gc` is set, so one is made for it
 * (about 6 ms and 2 MB, dropped once used).
 */
import type { ToolCall } from './tool-call.js';

/** One young-generation collection each time it is called (V8's `gc({ type: 'minor' })`). */
export async function youngCollector(): Promise<() => void> {
  const [v8, vm] = await Promise.all([import('node:v8'), import('node:vm')]);
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (options: { type: 'minor' }) => void;
  return () => gc({ type: 'minor' });
}

/**
 * `call`, with `collect` run twice once the first call's work is done, before its answer is
 * returned; later calls (and any made while the first runs) go to `call` as they are.
 */
export function promotingFirstCall(call: ToolCall, collect: () => void): ToolCall {
  let pending: (() => void) | undefined = collect;
  return (params, extra) => {
    const then = pending;
    if (!then) return call(params, extra);
    pending = undefined;
    return call(params, extra).finally(() => {
      then();
      then();
    });
  };
}
