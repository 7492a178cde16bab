import { COURSE_CARD_CHANGED, CourseCardChanged } from '@studium/contracts';
import { type Logger, type RunningConsumer, startConsumer } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import type { EnrollmentDb } from '../db.ts';
import type { CatalogRepository } from '../repositories/catalog.repository.ts';

/** Durable name of the catalog consumer (replicas share it). */
export const CATALOG_CONSUMER = 'enrollment-catalog';

/**
 * Builds the local catalog from `evt.courses.course_card_changed`: durable, idempotent (the
 * platform marks each event processed in the same transaction), newest revision wins.
 */
export function startCatalogConsumer(deps: {
  nc: NatsConnection;
  prefix: string;
  db: Kysely<EnrollmentDb>;
  log: Logger;
  catalog: CatalogRepository;
  /** Dead-letter and restart counters, and how often a failing card is retried before it is parked. */
  metrics?: Registry;
  maxAttempts?: number;
  retryDelayMs?: number;
}): Promise<RunningConsumer> {
  return startConsumer({
    nc: deps.nc,
    prefix: deps.prefix,
    durable: CATALOG_CONSUMER,
    subjects: [COURSE_CARD_CHANGED],
    db: deps.db,
    log: deps.log,
    metrics: deps.metrics,
    maxAttempts: deps.maxAttempts,
    retryDelayMs: deps.retryDelayMs,
    async handle(trx, event) {
      const card = CourseCardChanged.safeParse(event.data);
      if (!card.success) {
        // A card that fails the contract is a publisher bug; redelivering it would not help.
        deps.log.error({ event: event.id, issues: card.error.issues }, 'catalog: malformed course card dropped');
        return;
      }
      await deps.catalog.upsertCard(trx, card.data);
    },
  });
}
