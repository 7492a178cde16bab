import { myEnrollments, ok, type Principal, parseLessonId, type Reply } from '@studium/contracts';
import type { LessonsDeps } from '../deps.ts';
import { nextOpenLesson, rankEnrollments } from '../domain/opening.ts';
import { refusals } from '../refusals.ts';

/** The lesson start_lesson opens: a course and a lesson key in it (null: the next open one). */
export interface Target {
  course: string;
  lessonKey: string | null;
  /** How it was chosen: an explicit lesson, a course, or without arguments. */
  mode: 'lesson' | 'course' | 'auto';
}

/** Lesson keys of a course the student has passed (live runs). */
export async function passedLessons(deps: LessonsDeps, user: string, course: string): Promise<Set<string>> {
  const runs = await deps.runs.liveInCourse(user, course);
  return new Set(runs.filter((r) => r.status === 'passed').map((r) => r.lesson_key));
}

/**
 * Picks the lesson: an explicit lesson id; a course (its next open lesson, decided later); or,
 * without arguments, the lesson of the last session when it is not passed, else the next open
 * lesson of that course, else the next open lesson of the most urgent enrollment (mandatory and
 * overdue first, nearest deadline).
 */
export async function chooseTarget(
  deps: LessonsDeps,
  principal: Principal,
  args: { lesson?: string; course?: string; space?: string },
): Promise<Reply<Target>> {
  if (args.lesson !== undefined) {
    const id = parseLessonId(args.lesson);
    if (!id) return refusals.lessonNotFound(args.lesson);
    return ok({ course: id.course, lessonKey: id.key, mode: 'lesson' });
  }
  if (args.course !== undefined) return ok({ course: args.course, lessonKey: null, mode: 'course' });

  const last = await deps.sessions.latestOfUser(principal.user);
  if (last) {
    const run = await deps.runs.findLive(principal.user, last.course, last.lesson_key);
    if (run && run.status !== 'passed') {
      const active = await deps.releases.active(last.course);
      if (active.ok && active.data.lessons.has(last.lesson_key)) {
        return ok({ course: last.course, lessonKey: last.lesson_key, mode: 'auto' });
      }
    }
    const next = await nextInCourse(deps, principal.user, last.course);
    if (next) return ok({ course: last.course, lessonKey: next, mode: 'auto' });
  }
  const mine = await deps.bus.request(myEnrollments, null, { user: principal.user, space: args.space ?? null });
  if (!mine.ok) return mine;
  for (const e of rankEnrollments(mine.data.enrollments)) {
    const next = await nextInCourse(deps, principal.user, e.course);
    if (next) return ok({ course: e.course, lessonKey: next, mode: 'auto' });
  }
  return refusals.nothingToStudy();
}

/** The next open lesson of a released course; null when none (or the course has no release). */
async function nextInCourse(deps: LessonsDeps, user: string, course: string): Promise<string | null> {
  const active = await deps.releases.active(course);
  if (!active.ok) return null;
  return nextOpenLesson(active.data.order, await passedLessons(deps, user, course));
}
