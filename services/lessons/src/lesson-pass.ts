import {
  type CourseAccess,
  events,
  type LessonFailed,
  type LessonPassed,
  lessonId,
  type QuizAttemptCancelled,
  type QuizVerdict,
} from '@studium/contracts';
import { emitEvent, eventEnvelope } from '@studium/platform';
import { sql } from 'kysely';
import { type CourseStanding, canFail, courseStanding, unpassableLessons } from './course-progress.ts';
import type { CancelReason } from './db.ts';
import type { LessonsDeps } from './deps.ts';
import type { LoadedRelease } from './releases.ts';
import type { Attempt } from './repositories/attempt.repository.ts';
import type { Run } from './repositories/run.repository.ts';
import type { Session } from './repositories/session.repository.ts';
import { eventBase, type Trx } from './write.ts';

/**
 * Passes a run (a passed quiz or complete_lesson) once: status passed, passed_at, late when the
 * enrollment's deadline has passed, and the lesson_passed event with the course's progress; and
 * closes the session `close` while it is open. A run passed before stays as it was (no second
 * lesson_passed). `passed`: the lesson keys passed in the course as read under the run's lock (read here
 * when not given); the failed lessons (no attempt left) are read in the same transaction. The run, the session
 * and the event are written in one statement. Returns the course's standing after the pass.
 * `verdict`: the attempt this call finished (a passed quiz). The call emits one event: lesson_passed
 * carrying the verdict, or, when the run was passed before, quiz_attempt_finished alone.
 */
export async function passRun(
  trx: Trx,
  deps: LessonsDeps,
  v: {
    run: Run;
    session: Session;
    access: CourseAccess;
    active: LoadedRelease;
    via: 'quiz' | 'complete';
    at: string;
    passed?: ReadonlySet<string>;
    close: string | null;
    verdict?: QuizVerdict;
  },
): Promise<CourseStanding> {
  const passed = new Set(
    v.passed ??
      (await deps.runs.liveInCourse(v.run.user_id, v.run.course, trx))
        .filter((r) => r.status === 'passed')
        .map((r) => r.lesson_key),
  );
  // Read only where a lesson can fail at all (most courses have no limited required quiz).
  const failed = canFail(v.active)
    ? unpassableLessons(await deps.courseStates.of(v.run.user_id, v.run.course, trx), v.active)
    : new Set<string>();
  if (v.run.status === 'passed') {
    if (v.close) await closeOpen(trx, v.close);
    if (v.verdict)
      await emitEvent(trx, 'lessons.quiz_attempt_finished', { ...eventBase(v.session, v.at), ...v.verdict });
    return courseStanding(v.active.order, passed, failed);
  }
  passed.add(v.run.lesson_key);
  failed.delete(v.run.lesson_key);
  const standing = courseStanding(v.active.order, passed, failed);
  const event: LessonPassed = {
    ...eventBase(v.session, v.at),
    release: v.active.release,
    version: v.active.version,
    via: v.via,
    late: v.access.overdue,
    lessons_passed: standing.passed.length,
    passed_lessons: standing.passed,
    lessons_total: v.active.order.length,
    course_completed: standing.completed,
    failed_lessons: standing.failed,
    course_finished: standing.finished,
    user_name: v.run.user_name,
    ...(v.verdict ? { quiz_attempt: v.verdict } : {}),
  };
  const subject = events['lessons.lesson_passed'].subject;
  const envelope = eventEnvelope(subject, event);
  await sql`with u as (
      update runs set status = 'passed', passed_at = ${v.at}, passed_late = ${v.access.overdue},
        covered_at = coalesce(covered_at, ${v.at})
      where id = ${v.run.id}),
    c as (
      update sessions set status = 'closed', closed_at = now(), last_activity_at = now()
      where id = ${v.close} and status = 'open'),
    e as (insert into outbox (subject, payload) values (${subject}, ${JSON.stringify(envelope)}::jsonb) returning 1)
    select count(*) from e`.execute(trx);
  return standing;
}

/**
 * A lesson failed for good: the last attempt of its required quiz failed (spec: «пересдачи не
 * будет»). Emits lesson_failed with the course's standing (`passed` as read under the run's lock,
 * the other failed lessons in the same transaction), so enrollment and reporting learn when nothing is left
 * to study in the course, and with the verdict of that last attempt (the answer's one event: no
 * quiz_attempt_finished of its own). Returns the standing.
 */
export async function failRun(
  trx: Trx,
  deps: LessonsDeps,
  v: {
    run: Run;
    session: Session;
    active: LoadedRelease;
    at: string;
    passed: ReadonlySet<string>;
    attemptsUsed: number;
    verdict: QuizVerdict;
  },
): Promise<CourseStanding> {
  const failed = unpassableLessons(await deps.courseStates.of(v.run.user_id, v.run.course, trx), v.active);
  failed.add(v.run.lesson_key);
  const standing = courseStanding(v.active.order, v.passed, failed);
  const event: LessonFailed = {
    ...eventBase(v.session, v.at),
    release: v.active.release,
    version: v.active.version,
    attempts_used: v.attemptsUsed,
    lessons_passed: standing.passed.length,
    passed_lessons: standing.passed,
    failed_lessons: standing.failed,
    lessons_total: v.active.order.length,
    course_finished: standing.finished,
    quiz_attempt: v.verdict,
  };
  await emitEvent(trx, 'lessons.lesson_failed', event);
  return standing;
}

/** Closes a session that is still open. */
async function closeOpen(trx: Trx, session: string): Promise<void> {
  await sql`update sessions set status = 'closed', closed_at = now(), last_activity_at = now()
    where id = ${session} and status = 'open'`.execute(trx);
}

/**
 * The next lesson to study after a pass (neither passed nor failed), as a reference; null when
 * nothing is left in the course.
 */
export function nextLessonRef(active: LoadedRelease, standing: Pick<CourseStanding, 'next'>) {
  const key = standing.next;
  const next = key ? active.lessons.get(key) : undefined;
  return next ? { id: lessonId(active.course, next.lesson.key), title: next.lesson.title } : null;
}

/** Cancels an open attempt with its event; `reported` — the agent learns of it in this very reply. */
export async function cancelAttempt(
  trx: Trx,
  deps: LessonsDeps,
  attempt: Attempt,
  reason: CancelReason,
  reported: boolean,
): Promise<void> {
  await deps.attempts.cancel(trx, attempt.id, reason, reported);
  const session = await deps.sessions.find(attempt.session_id, trx);
  if (!session) return;
  const event: QuizAttemptCancelled = {
    ...eventBase(session, new Date().toISOString()),
    attempt: attempt.id,
    number: attempt.number,
    reason,
  };
  await emitEvent(trx, 'lessons.quiz_attempt_cancelled', event);
}
