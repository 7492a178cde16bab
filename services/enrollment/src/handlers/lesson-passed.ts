import { events, LessonPassed } from '@studium/contracts';
import { type Logger, type RunningConsumer, startConsumer } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { EnrollmentDb } from '../db.ts';
import type { EnrollmentRepository } from '../repositories/enrollment.repository.ts';

/** Durable name of the progress consumer (replicas share it). */
export const PROGRESS_CONSUMER = 'enrollment-progress';

/**
 * Keeps the course lists' progress (lessons passed, completed) and the program locks from
 * `evt.lessons.lesson_passed`: durable and idempotent, newest report wins.
 */
export function startProgressConsumer(deps: {
  nc: NatsConnection;
  prefix: string;
  db: Kysely<EnrollmentDb>;
  log: Logger;
  enrollments: EnrollmentRepository;
}): Promise<RunningConsumer> {
  return startConsumer({
    nc: deps.nc,
    prefix: deps.prefix,
    durable: PROGRESS_CONSUMER,
    subjects: [events['lessons.lesson_passed'].subject],
    db: deps.db,
    log: deps.log,
    async handle(trx, event) {
      const passed = LessonPassed.safeParse(event.data);
      if (!passed.success) {
        deps.log.error({ event: event.id, issues: passed.error.issues }, 'progress: malformed lesson_passed dropped');
        return;
      }
      const p = passed.data;
      await deps.enrollments.applyProgress(trx, {
        user: p.user,
        course: p.course,
        lessonsDone: p.lessons_passed,
        completed: p.course_completed,
        at: p.at,
      });
    },
  });
}
