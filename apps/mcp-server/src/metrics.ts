/**
 * The HTTP server's Prometheus metrics (prom-client), served at /metrics: tool calls by tool and
 * outcome with their latency, the API's answers by status, its 429s and our retries, and the
 * sessions open, the requests in flight and those refused at a limit. One registry per server, fed by the API client's events and the MCP adapter.
 */
import type { ClientEvent } from '@cloudcall/core';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

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
  const calls = new Counter({
    name: 'cloudcall_tool_calls_total',
    help: 'Tool calls answered, by tool and outcome (error: an isError result).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'cloudcall_tool_call_duration_seconds',
    help: 'Time from a tool call to its answer, retries and waits included, by tool.',
    labelNames: ['tool'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const upstream = new Counter({
    name: 'cloudcall_upstream_responses_total',
    help: 'Answers from the API, by HTTP status code (every attempt).',
    labelNames: ['status'] as const,
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
      calls.inc({ tool, outcome });
      latency.observe({ tool }, ms / 1000);
    },
    observeClient(event) {
      if (event.type === 'retry') retries.inc();
      if (event.type !== 'response') return;
      upstream.inc({ status: String(event.status) });
      if (event.status === 429) limited.inc();
    },
  };
  return metrics;
}
