import { type Logger, type RunningConsumer, startEventConsumer } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { announceAccess } from '../access-events.ts';
import type { EnrollmentDb } from '../db.ts';
import type { EnrollmentRepository } from '../repositories/enrollment.repository.ts';

/** Durable name of the progress consumer (replicas share it). */
export const PROGRESS_CONSUMER = 'enrollment-progress';

/**
 * Keeps the course lists' progress (lessons passed and failed, completed, finished) and the program
 * locks from `evt.lessons.lesson_passed` and `evt.lessons.lesson_failed`: durable and idempotent,
 * newest report wins.
 */
export function startProgressConsumer(deps: {
  nc: NatsConnection;
  prefix: string;
  db: Kysely<EnrollmentDb>;
  log: Logger;
  enrollments: EnrollmentRepository;
  /** Dead-letter and restart counters, and how often a failing event is retried before it is parked. */
  metrics?: Registry;
  maxAttempts?: number;
  retryDelayMs?: number;
}): Promise<RunningConsumer> {
  const { enrollments, ...consumer } = deps;
  return startEventConsumer({
    ...consumer,
    durable: PROGRESS_CONSUMER,
    on: {
      // A course finished or reopened changes the program lock of the next one: the access
      // document follows every applied report.
      async 'lessons.lesson_passed'(trx, p) {
        const n = await enrollments.applyProgress(trx, {
          user: p.user,
          course: p.course,
          lessonsDone: p.lessons_passed,
          passed: p.passed_lessons,
          failed: p.failed_lessons,
          completed: p.course_completed,
          finished: p.course_finished ?? p.course_completed,
          at: p.at,
        });
        if (n > 0) await announceAccess(trx, [p.user]);
      },
      async 'lessons.lesson_failed'(trx, p) {
        const n = await enrollments.applyProgress(trx, {
          user: p.user,
          course: p.course,
          lessonsDone: p.lessons_passed,
          passed: p.passed_lessons,
          failed: p.failed_lessons,
          completed: false,
          finished: p.course_finished,
          at: p.at,
        });
        if (n > 0) await announceAccess(trx, [p.user]);
      },
    },
  });
}
