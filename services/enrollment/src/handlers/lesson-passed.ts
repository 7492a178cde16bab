import { type Logger, type RunningConsumer, startEventConsumer } from '@studium/platform';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
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
      async 'lessons.lesson_passed'(trx, p) {
        await enrollments.applyProgress(trx, {
          user: p.user,
          course: p.course,
          lessonsDone: p.lessons_passed,
          passed: p.passed_lessons,
          completed: p.course_completed,
          at: p.at,
        });
      },
    },
  });
}
