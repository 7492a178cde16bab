import type { LessonPassed } from '@studium/contracts';
import { type Logger, type RunningConsumer, startEventConsumer } from '@studium/platform';
import type { Kysely, Transaction } from 'kysely';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { type CourseGateway, findLesson } from '../courses.ts';
import type { HomeworkDb } from '../db.ts';
import { dueAt, transition } from '../domain/homework.ts';
import { SubmissionRepository } from '../repositories/submission.repository.ts';
import { emitChange } from '../submit.ts';

/** Durable name of homework's consumer of lesson events. */
export const LESSONS_CONSUMER = 'homework-lessons';

/**
 * A passed lesson assigns its homework in the session's space (status Assigned, due date from the
 * release's rule counted from the pass). A homework handed in before the lesson closed keeps its
 * status and gets its due date. Throws when courses does not answer: the event is redelivered.
 */
export async function assignHomework(trx: Transaction<HomeworkDb>, gateway: CourseGateway, e: LessonPassed) {
  const release = await gateway.release(e.course, e.release);
  if ('ok' in release) throw new Error(`release ${e.release} of ${e.course}: ${release.error.code}`);
  const lesson = findLesson(release.content, e.lesson_key);
  if (!lesson?.homework) return;
  const repo = new SubmissionRepository(trx);
  const { row } = await repo.lockPlace(
    {
      user: e.user,
      course: e.course,
      lesson: e.lesson,
      lesson_key: e.lesson_key,
      space: e.space,
      organization: e.organization,
    },
    'Assigned',
    true,
  );
  // A lesson passed again (a repeat) does not move the first assignment or its due date.
  if (row.assigned_at !== null) return;
  const updated = await repo.update(row.id, {
    status: transition(row.status, 'assign') ?? row.status,
    assigned_at: e.at,
    due_at: dueAt(lesson.homework, e.at),
    curators: release.content.course.curators,
    ...(e.user_name ? { student_name: e.user_name } : {}),
  });
  await repo.addJournal({ submission: row.id, event: 'assigned', actor: null, version: row.version, comment: null });
  await emitChange(trx, 'homework.assigned', updated, null, null);
}

/** Starts the consumer of lessons.lesson_passed and lessons.session_started. */
export function startLessonConsumer(deps: {
  nc: NatsConnection;
  prefix: string;
  db: Kysely<HomeworkDb>;
  log: Logger;
  gateway: CourseGateway;
  /** Dead-letter and restart counters, and how often a failing event is retried before it is parked. */
  metrics?: Registry;
  maxAttempts?: number;
  retryDelayMs?: number;
}): Promise<RunningConsumer> {
  const { gateway, ...consumer } = deps;
  return startEventConsumer({
    ...consumer,
    durable: LESSONS_CONSUMER,
    on: {
      'lessons.lesson_passed': (trx, e) => assignHomework(trx, gateway, e),
      async 'lessons.session_started'(trx, e) {
        await new SubmissionRepository(trx).setCourseSpace(e.user, e.course, e.space, e.at);
      },
    },
  });
}
