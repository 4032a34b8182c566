/**
 * The HTTP server's Prometheus metrics (prom-client), served at /metrics: tool calls by tool and
 * outcome with their latency, the API's answers by status, its 429s and our retries, and the
 * sessions open, the requests in flight and those refused at a limit. One registry per server, fed by the API client's events and the MCP adapter.
 */
import type { ClientEvent } from '@cloudcall/core';
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  type MetricObjectWithValues,
  type MetricValueWithName,
  Registry,
} from 'prom-client';

export type CallOutcome = 'ok' | 'error';

export interface Metrics {
  registry: Registry;
  /** A tool call ended (only tools this server offers: names from the request would be unbounded). */
  observeCall(tool: string, outcome: CallOutcome, ms: number): void;
  /** The API client's events: answers and retries count (requests about to be sent do not). */
  observeClient(event: ClientEvent): void;
  /** Counts the sessions open, for the gauge; set by the HTTP server (0 until then). */
  openSessions: () => number;
  /** Counts the requests to /mcp being answered, for the gauge; set by the HTTP server. */
  requestsInFlight: () => number;
  /** A request to /mcp was refused with 503 because this process was at one of its limits. */
  observeRefusal(reason: RefusalReason): void;
  /** Bytes of SSE events kept for resuming streams, for the gauge; set by the HTTP server. */
  eventStoreBytes: () => number;
}

/**
 * Which limit refused a request: --max-in-flight, --max-in-flight-per-caller or --max-sessions
 * (503), or --body-timeout (408).
 */
export type RefusalReason = 'max-in-flight' | 'max-sessions' | 'max-in-flight-per-caller' | 'body-timeout';

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cloudcall_' });
  // Every call counts in these three: counted here first, by plain numbers, and handed to
  // prom-client when it is scraped (`collect`), so a call pays for no label object checked and
  // hashed (prom-client's way), only for a map lookup. The lines scraped are the same.
  const callCounts = new Map<string, { ok: number; error: number }>();
  const statusCounts = new Map<number, number>();
  new Counter({
    name: 'cloudcall_tool_calls_total',
    help: 'Tool calls answered, by tool and outcome (error: an isError result).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
    collect() {
      for (const [tool, counts] of callCounts) {
        for (const outcome of OUTCOMES) if (counts[outcome]) this.inc({ tool, outcome }, counts[outcome]);
      }
      callCounts.clear();
    },
  });
  const latency = new Latency(
    'cloudcall_tool_call_duration_seconds',
    'Time from a tool call to its answer, retries and waits included, by tool.',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  );
  registry.registerMetric(latency as unknown as Parameters<Registry['registerMetric']>[0]);
  new Counter({
    name: 'cloudcall_upstream_responses_total',
    help: 'Answers from the API, by HTTP status code (every attempt).',
    labelNames: ['status'] as const,
    registers: [registry],
    collect() {
      for (const [status, count] of statusCounts) this.inc({ status: String(status) }, count);
      statusCounts.clear();
    },
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
  new Gauge({
    name: 'cloudcall_sessions_open',
    help: 'MCP sessions open (always 0 with --stateless).',
    registers: [registry],
    collect() {
      this.set(metrics.openSessions());
    },
  });
  new Gauge({
    name: 'cloudcall_requests_in_flight',
    help: 'Requests to /mcp (POSTs) being answered, the ones --max-in-flight counts.',
    registers: [registry],
    collect() {
      this.set(metrics.requestsInFlight());
    },
  });
  new Gauge({
    name: 'cloudcall_event_store_bytes',
    help: 'Bytes (UTF-8) of SSE events kept for clients to resume their streams, all sessions together (--max-event-store-bytes).',
    registers: [registry],
    collect() {
      this.set(metrics.eventStoreBytes());
    },
  });
  const refused = new Counter({
    name: 'cloudcall_requests_refused_total',
    help: 'Requests to /mcp refused at a limit of this process, by reason: 503 at max-in-flight, max-in-flight-per-caller or max-sessions; 408 at body-timeout.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const metrics: Metrics = {
    registry,
    openSessions: () => 0,
    requestsInFlight: () => 0,
    eventStoreBytes: () => 0,
    observeRefusal(reason) {
      refused.inc({ reason });
    },
    observeCall(tool, outcome, ms) {
      let counts = callCounts.get(tool);
      if (!counts) {
        counts = { ok: 0, error: 0 };
        callCounts.set(tool, counts);
      }
      counts[outcome]++;
      latency.observe(tool, ms / 1000);
    },
    observeClient(event) {
      if (event.type === 'retry') retries.inc();
      if (event.type !== 'response') return;
      statusCounts.set(event.status, (statusCounts.get(event.status) ?? 0) + 1);
      if (event.status === 429) limited.inc();
    },
  };
  return metrics;
}

const OUTCOMES: readonly CallOutcome[] = ['ok', 'error'];

/**
 * A histogram by tool, as prom-client's Histogram with one label (`tool`) reports it: the same
 * values in the same order (each tool's buckets, cumulative, then `+Inf`, the sum and the
 * count; tools in the order first seen), so /metrics reads the same; `metrics.test.ts` compares
 * the two. Observing is an array index, not prom-client's label checks and hashing.
 */
class Latency {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly byTool = new Map<string, { buckets: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  observe(tool: string, value: number): void {
    let kept = this.byTool.get(tool);
    if (!kept) {
      kept = { buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.byTool.set(tool, kept);
    }
    const at = this.bounds.findIndex((bound) => value <= bound);
    if (at !== -1) kept.buckets[at] = (kept.buckets[at] ?? 0) + 1;
    kept.sum += value;
    kept.count++;
  }

  /** What prom-client's Registry reads of a metric to write its lines. */
  get(): Omit<MetricObjectWithValues<MetricValueWithName<string>>, 'collect'> {
    const values: MetricValueWithName<string>[] = [];
    const bucket = `${this.name}_bucket`;
    for (const [tool, kept] of this.byTool) {
      let total = 0;
      this.bounds.forEach((bound, at) => {
        total += kept.buckets[at] ?? 0;
        values.push({ labels: { le: bound, tool }, value: total, metricName: bucket });
      });
      values.push(
        { labels: { le: '+Inf', tool }, value: kept.count, metricName: bucket },
        { labels: { tool }, value: kept.sum, metricName: `${this.name}_sum` },
        { labels: { tool }, value: kept.count, metricName: `${this.name}_count` },
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type as never,
      values,
      aggregator: this.aggregator,
    };
  }

  reset(): void {
    this.byTool.clear();
  }
}
