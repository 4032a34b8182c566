/**
 * The metrics every call feeds (tool calls, their latency, the API's answers) are counted by the
 * server itself and handed to prom-client when scraped: /metrics must read exactly as it did when
 * prom-client counted each call, which a registry of prom-client's own metrics, fed the same
 * calls, shows.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const NAMES = [
  'cloudcall_tool_calls_total',
  'cloudcall_tool_call_duration_seconds',
  'cloudcall_upstream_responses_total',
  'cloudcall_upstream_rate_limited_total',
  'cloudcall_upstream_retries_total',
];

/** prom-client's own metrics, as the server made them when prom-client counted every call. */
function reference() {
  const registry = new Registry();
  const calls = new Counter({
    name: 'cloudcall_tool_calls_total',
    help: 'Tool calls answered, by tool and outcome (error: an isError result).',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'cloudcall_tool_call_duration_seconds',
    help: 'Time from a tool call to its answer, retries and waits included, by tool.',
    labelNames: ['tool'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const upstream = new Counter({
    name: 'cloudcall_upstream_responses_total',
    help: 'Answers from the API, by HTTP status code (every attempt).',
    labelNames: ['status'],
    registers: [registry],
  });
  const limited = new Counter({
    name: 'cloudcall_upstream_rate_limited_total',
    help: 'Answers from the API that were 429 Too Many Requests.',
    registers: [registry],
  });
  const retries = new Counter({
    name: 'cloudcall_upstream_retries_total',
    help: 'API requests sent again after a retryable failure.',
    registers: [registry],
  });
  return {
    registry,
    call(tool: string, outcome: 'ok' | 'error', ms: number) {
      calls.inc({ tool, outcome });
      latency.observe({ tool }, ms / 1000);
    },
    answer(status: number) {
      upstream.inc({ status: String(status) });
      if (status === 429) limited.inc();
    },
    retry: () => retries.inc(),
  };
}

/** The blocks (HELP, TYPE and samples) of the metrics named, in the order scraped. */
function blocks(text: string): string[] {
  return text
    .trim()
    .split('\n\n')
    .filter((block) => NAMES.some((name) => block.startsWith(`# HELP ${name} `)));
}

const EVENT = { method: 'GET', path: '/v2/account/keys', target: '/v2/account/keys', attempt: 1 };

describe('the metrics every call feeds', () => {
  it("read as prom-client's own Counter and Histogram read, scrape after scrape", async () => {
    const ours = createMetrics();
    const theirs = reference();
    const calls: [string, 'ok' | 'error', number][] = [
      ['key-list', 'ok', 3],
      ['key-list', 'ok', 5], // on a bucket's bound
      ['vm-list', 'error', 12.5],
      ['key-list', 'error', 61_000], // past the last bound: only +Inf
      ['vm-list', 'ok', 0],
      ['db-cluster-list', 'ok', 2_400],
    ];
    const answers = [200, 200, 429, 503, 200, 404];
    const scrape = async () => {
      const [mine, reference] = await Promise.all([ours.registry.metrics(), theirs.registry.metrics()]);
      expect(blocks(mine)).toEqual(blocks(reference));
      return blocks(mine);
    };
    // Nothing counted yet.
    expect(await scrape()).toHaveLength(NAMES.length);
    for (const [index, [tool, outcome, ms]] of calls.entries()) {
      ours.observeCall(tool, outcome, ms);
      theirs.call(tool, outcome, ms);
      const status = answers[index] ?? 200;
      ours.observeClient({
        ...EVENT,
        type: 'response',
        status,
        ms,
        rateLimit: undefined,
        requestId: undefined,
      });
      theirs.answer(status);
      if (status >= 500) {
        ours.observeClient({ ...EVENT, type: 'retry', delayMs: 10, reason: `HTTP ${status}` });
        theirs.retry();
      }
      // A scrape between calls: what was counted before it is not counted again.
      if (index === 2) await scrape();
    }
    const last = await scrape();
    expect(last.join('\n')).toContain('cloudcall_tool_calls_total{tool="key-list",outcome="ok"} 2');
    expect(last.join('\n')).toContain(
      'cloudcall_tool_call_duration_seconds_bucket{le="0.005",tool="key-list"} 2',
    );
    expect(last.join('\n')).toContain('cloudcall_upstream_responses_total{status="200"} 3');
    // And again with nothing new: the same.
    expect(await scrape()).toEqual(last);
  });
});
