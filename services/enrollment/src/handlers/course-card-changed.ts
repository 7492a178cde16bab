import { type Logger, type RunningConsumer, startEventConsumer } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { announceAccess, usersOfCourse } from '../access-events.ts';
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
  const { catalog, ...consumer } = deps;
  return startEventConsumer({
    ...consumer,
    durable: CATALOG_CONSUMER,
    on: {
      // A card that fails the contract is parked as a dead letter by the platform.
      async 'courses.course_card_changed'(trx, card) {
        // What the access documents show of a course: its status and testers (a tester's
        // enrollment counts while either lets it) and its title (in program views).
        const before = await trx
          .selectFrom('catalog')
          .select(['status', 'testers', 'title'])
          .where('course', '=', card.course)
          .executeTakeFirst();
        if (!(await catalog.upsertCard(trx, card))) return;
        const after = { status: card.status, testers: card.testers ?? [], title: card.title };
        if (
          before &&
          JSON.stringify([before.status, before.testers, before.title]) ===
            JSON.stringify([after.status, after.testers, after.title])
        )
          return;
        await announceAccess(trx, await usersOfCourse(trx, card.course));
      },
    },
  });
}
