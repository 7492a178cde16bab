import { createMetrics, type ReplyCache } from '@studium/platform';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The edge's Prometheus metrics. */
export interface Metrics {
  registry: Registry;
  toolCalls: Counter<'tool' | 'outcome'>;
  toolSeconds: Histogram<'tool'>;
  httpRejections: Counter<'endpoint' | 'status'>;
}

export function createEdgeMetrics(replies: ReplyCache, audit?: { suppressed: number }): Metrics {
  const registry = createMetrics('edge');
  new Counter({
    name: 'studium_reply_cache_requests_total',
    help: 'Tagged read tool replies: confirmed from the kept copy (hit), or sent in full and kept (stored)',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset();
      this.labels('hit').inc(replies.hits);
      this.labels('stored').inc(replies.stored);
    },
  });
  new Gauge({
    name: 'studium_reply_cache_bytes',
    help: 'Estimated memory of the replies kept for conditional requests',
    registers: [registry],
    collect() {
      this.set(replies.bytes);
    },
  });
  new Counter({
    name: 'studium_audit_suppressed_total',
    help: 'Access violations not written to the audit log because their user was over the per-minute limit',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(audit?.suppressed ?? 0);
    },
  });
  return {
    registry,
    toolCalls: new Counter({
      name: 'studium_tool_calls_total',
      help: 'MCP tool calls by tool and outcome (ok, refused, forbidden, rate_limited, failure_<status>)',
      labelNames: ['tool', 'outcome'],
      registers: [registry],
    }),
    toolSeconds: new Histogram({
      name: 'studium_tool_call_seconds',
      help: 'Duration of MCP tool calls at the edge',
      labelNames: ['tool'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    httpRejections: new Counter({
      name: 'studium_http_rejections_total',
      help: 'Requests refused before the MCP layer (401, 403, 503)',
      labelNames: ['endpoint', 'status'],
      registers: [registry],
    }),
  };
}
