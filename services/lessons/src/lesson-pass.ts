import { type CourseAccess, events, type LessonPassed, lessonId, type QuizAttemptCancelled } from '@studium/contracts';
import { emitEvent, eventEnvelope } from '@studium/platform';
import { sql } from 'kysely';
import type { CancelReason } from './db.ts';
import type { LessonsDeps } from './deps.ts';
import { nextOpenLesson } from './domain/opening.ts';
import type { LoadedRelease } from './releases.ts';
import type { Attempt } from './repositories/attempt.repository.ts';
import type { Run } from './repositories/run.repository.ts';
import type { Session } from './repositories/session.repository.ts';
import { eventBase, type Trx } from './write.ts';

/**
 * Passes a run (a passed quiz or complete_lesson) once: status passed, passed_at, late when the
 * enrollment's deadline has passed, and the lesson_passed event with the course's progress; and
 * closes the session `close` while it is open. A run passed before stays as it was (no second
 * event). `passed`: the lesson keys passed in the course as read under the run's lock (read here
 * when not given). The run, the session and the event are written in one statement. Returns the
 * lesson keys now passed.
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
  },
): Promise<Set<string>> {
  const passed = new Set(
    v.passed ??
      (await deps.runs.liveInCourse(v.run.user_id, v.run.course, trx))
        .filter((r) => r.status === 'passed')
        .map((r) => r.lesson_key),
  );
  if (v.run.status === 'passed') {
    if (v.close) await closeOpen(trx, v.close);
    return passed;
  }
  passed.add(v.run.lesson_key);
  const passedInRelease = v.active.order.filter((k) => passed.has(k));
  const inRelease = passedInRelease.length;
  const event: LessonPassed = {
    ...eventBase(v.session, v.at),
    release: v.active.release,
    version: v.active.version,
    via: v.via,
    late: v.access.overdue,
    lessons_passed: inRelease,
    passed_lessons: passedInRelease,
    lessons_total: v.active.order.length,
    course_completed: inRelease === v.active.order.length,
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
  return passed;
}

/** Closes a session that is still open. */
async function closeOpen(trx: Trx, session: string): Promise<void> {
  await sql`update sessions set status = 'closed', closed_at = now(), last_activity_at = now()
    where id = ${session} and status = 'open'`.execute(trx);
}

/** The next open lesson of the course after a pass, as a reference; null when the course is done. */
export function nextLessonRef(active: LoadedRelease, passed: ReadonlySet<string>) {
  const key = nextOpenLesson(active.order, passed);
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
