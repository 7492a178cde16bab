import { events, SessionStarted } from '@studium/contracts';
import { type Logger, type RunningConsumer, startConsumer } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
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
}): Promise<RunningConsumer> {
  return startConsumer({
    nc: deps.nc,
    prefix: deps.prefix,
    durable: SESSIONS_CONSUMER,
    subjects: [events['lessons.session_started'].subject],
    db: deps.db,
    log: deps.log,
    async handle(trx, event) {
      const parsed = SessionStarted.safeParse(event.data);
      if (!parsed.success) {
        deps.log.error({ event: event.id, issues: parsed.error.issues }, 'sessions: malformed session_started dropped');
        return;
      }
      const e = parsed.data;
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
  });
}
