import { myEnrollments, ok, type Principal, parseLessonId, type Reply } from '@studium/contracts';
import { skippedLessons, unpassableLessons } from '../course-progress.ts';
import type { LessonsDeps } from '../deps.ts';
import { nextOpenLesson, rankEnrollments } from '../domain/opening.ts';
import { refusals } from '../refusals.ts';
import type { CourseState } from '../repositories/course-state.ts';
import { nothingLeft } from './nothing-left.ts';

/** The lesson start_lesson opens: a course and a lesson key in it (null: the next open one). */
export interface Target {
  course: string;
  lessonKey: string | null;
  /** How it was chosen: an explicit lesson, a course, or without arguments. */
  mode: 'lesson' | 'course' | 'auto';
  /** The student's state in that course, read once for the whole start. */
  state: CourseState;
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
  const user = principal.user;
  if (args.lesson !== undefined) {
    const id = parseLessonId(args.lesson);
    if (!id) return refusals.lessonNotFound(args.lesson);
    return ok({
      course: id.course,
      lessonKey: id.key,
      mode: 'lesson',
      state: await deps.courseStates.of(user, id.course),
    });
  }
  if (args.course !== undefined) {
    return ok({
      course: args.course,
      lessonKey: null,
      mode: 'course',
      state: await deps.courseStates.of(user, args.course),
    });
  }

  // Without a course: the state of the latest session's course.
  const state = await deps.courseStates.of(user, null);
  const last = state.last;
  if (last) {
    const run = state.runs.find((r) => r.lesson_key === last.lesson_key);
    const active = await deps.releases.activeFrom(last.course, state.activeRelease);
    if (
      run &&
      run.status !== 'passed' &&
      active.ok &&
      active.data.lessons.has(last.lesson_key) &&
      !unpassableLessons(state, active.data).has(last.lesson_key)
    ) {
      return ok({ course: last.course, lessonKey: last.lesson_key, mode: 'auto', state });
    }
    const next = active.ok ? nextOpenLesson(active.data.order, skippedLessons(state, active.data)) : null;
    if (next) return ok({ course: last.course, lessonKey: next, mode: 'auto', state });
  }
  const mine = await deps.bus.request(myEnrollments, principal, { user, space: args.space ?? null });
  if (!mine.ok) return mine;
  for (const e of rankEnrollments(mine.data.enrollments)) {
    const inCourse = await deps.courseStates.of(user, e.course);
    const active = await deps.releases.activeFrom(e.course, inCourse.activeRelease);
    const next = active.ok ? nextOpenLesson(active.data.order, skippedLessons(inCourse, active.data)) : null;
    if (next) return ok({ course: e.course, lessonKey: next, mode: 'auto', state: inCourse });
  }
  // Homework returned in any space the student studies in may still be waiting.
  return nothingLeft(deps, principal, {
    spaces: [mine.data.space, ...mine.data.enrollments.map((e) => e.space)],
  });
}
