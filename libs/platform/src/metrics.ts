import { Counter, Gauge, type Registry } from 'prom-client';

/** The platform's own Prometheus metrics (bus, consumers, retention), registered once per registry. */
export interface PlatformMetrics {
  /** Read requests sent again to another replica after a failed first attempt. */
  requestRetries: Counter<'subject'>;
  /** Requests a service did not work on: `overloaded` (queue full) or `expired` (the caller's deadline passed). */
  requestsRejected: Counter<'service' | 'reason'>;
  /** Requests a service works on now. */
  requestsInFlight: Gauge<'service'>;
  /** Replies refused because their signature did not verify (a forged or replayed identity reply). */
  forgedReplies: Counter<'subject'>;
  /** Events parked in a dead-letter table after their last failed attempt. */
  deadLetters: Counter<'consumer'>;
  /** Restarts of a consumer loop that ended without being stopped. */
  consumerRestarts: Counter<'consumer'>;
  /** Rows deleted by the retention job. */
  retentionDeleted: Counter<'table'>;
}

const byRegistry = new WeakMap<Registry, PlatformMetrics>();

/** The platform metrics of a registry (created on first use). */
export function platformMetrics(registry: Registry): PlatformMetrics {
  const known = byRegistry.get(registry);
  if (known) return known;
  const registers = [registry];
  const metrics: PlatformMetrics = {
    requestRetries: new Counter({
      name: 'studium_bus_request_retries_total',
      help: 'Read requests retried on another replica after a failed first attempt',
      labelNames: ['subject'],
      registers,
    }),
    requestsRejected: new Counter({
      name: 'studium_bus_requests_rejected_total',
      help: 'Requests not worked on: overloaded (queue full) or expired (caller deadline passed)',
      labelNames: ['service', 'reason'],
      registers,
    }),
    requestsInFlight: new Gauge({
      name: 'studium_bus_requests_in_flight',
      help: 'Requests a service works on now',
      labelNames: ['service'],
      registers,
    }),
    forgedReplies: new Counter({
      name: 'studium_bus_forged_replies_total',
      help: 'Replies refused because their signature did not verify (forged or replayed identity replies)',
      labelNames: ['subject'],
      registers,
    }),
    deadLetters: new Counter({
      name: 'studium_dead_letters_total',
      help: 'Events parked in a dead-letter table after their last failed attempt',
      labelNames: ['consumer'],
      registers,
    }),
    consumerRestarts: new Counter({
      name: 'studium_consumer_restarts_total',
      help: 'Restarts of a consumer loop that ended without being stopped',
      labelNames: ['consumer'],
      registers,
    }),
    retentionDeleted: new Counter({
      name: 'studium_retention_deleted_total',
      help: 'Rows deleted by the retention job',
      labelNames: ['table'],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
