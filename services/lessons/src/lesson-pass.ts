import { type CourseAccess, type LessonPassed, lessonId, type QuizAttemptCancelled } from '@studium/contracts';
import { emitEvent } from '@studium/platform';
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
 * enrollment's deadline has passed, and the lesson_passed event with the course's progress.
 * A run passed before stays as it was (no second event). Returns the lesson keys now passed.
 */
export async function passRun(
  trx: Trx,
  deps: LessonsDeps,
  v: { run: Run; session: Session; access: CourseAccess; active: LoadedRelease; via: 'quiz' | 'complete'; at: string },
): Promise<Set<string>> {
  const runs = await deps.runs.liveInCourse(v.run.user_id, v.run.course, trx);
  const passed = new Set(runs.filter((r) => r.status === 'passed').map((r) => r.lesson_key));
  if (v.run.status === 'passed') return passed;
  passed.add(v.run.lesson_key);
  await deps.runs.update(trx, v.run.id, {
    status: 'passed',
    passed_at: v.at,
    passed_late: v.access.overdue,
    ...(v.run.covered_at === null ? { covered_at: v.at } : {}),
  });
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
  await emitEvent(trx, 'lessons.lesson_passed', event);
  return passed;
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
