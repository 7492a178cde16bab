import { type Logger, type RunningConsumer, startEventConsumer } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import type { CoursesDb } from '../db.ts';
import { SessionRepository } from '../repositories/session.repository.ts';

/** Durable name of the consumer of lesson sessions (replicas share it). */
export const SESSIONS_CONSUMER = 'courses-sessions';

/**
 * Keeps the lesson sessions report_issue needs (whose, which course and lesson, which space) from
 * `evt.lessons.session_started`: durable and idempotent; a newer event of a session wins.
 */
export function startSessionConsumer(deps: {
  nc: NatsConnection;
  prefix: string;
  db: Kysely<CoursesDb>;
  log: Logger;
  /** Dead-letter and restart counters, and how often a failing event is retried before it is parked. */
  metrics?: Registry;
  maxAttempts?: number;
  retryDelayMs?: number;
}): Promise<RunningConsumer> {
  return startEventConsumer({
    ...deps,
    durable: SESSIONS_CONSUMER,
    on: {
      async 'lessons.session_started'(trx, e) {
        await new SessionRepository(trx).upsert({
          session: e.session,
          user_id: e.user,
          course: e.course,
          lesson: e.lesson,
          lesson_key: e.lesson_key,
          release: e.release,
          space: e.space,
          updated_at: e.at,
        });
      },
    },
  });
}
