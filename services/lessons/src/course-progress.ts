import type { CourseAccess } from '@studium/contracts';
import type { LessonsDeps } from './deps.ts';
import { quizStanding } from './domain/quiz.ts';
import type { LoadedRelease } from './releases.ts';
import { type CourseState, passedIn } from './repositories/course-state.ts';

/**
 * Lesson keys of a release the student can no longer pass: a required quiz with no attempt left
 * and none passed — a failed lesson (docs/decisions.md). Start_lesson without a lesson skips them.
 */
export function unpassableLessons(state: CourseState, release: LoadedRelease): Set<string> {
  const now = new Date();
  const out = new Set<string>();
  for (const run of state.runs) {
    if (run.status === 'passed') continue;
    const quiz = release.lessons.get(run.lesson_key)?.lesson.quiz ?? null;
    if (!(quiz?.required && quiz.attempts !== null && quiz.questions.length > 0)) continue;
    const standing = quizStanding(
      quiz,
      state.attempts.filter((a) => a.run_id === run.id),
      now,
    );
    if (standing?.exhausted) out.add(run.lesson_key);
  }
  return out;
}

/** Some lesson of the release has a required quiz with a limit of attempts: only such a lesson can fail. */
export function canFail(release: LoadedRelease): boolean {
  for (const { lesson } of release.lessons.values()) {
    const quiz = lesson.quiz;
    if (quiz?.required && quiz.attempts !== null && quiz.questions.length > 0) return true;
  }
  return false;
}

/** Passed and unpassable lessons: what the next open lesson skips. */
export function skippedLessons(state: CourseState, release: LoadedRelease): Set<string> {
  return new Set([...passedIn(state), ...unpassableLessons(state, release)]);
}

/** Where the student stands in a course's active release. */
export interface CourseStanding {
  /** Passed lesson keys, in course order. */
  passed: string[];
  /** Failed lesson keys (cannot be passed any more), in course order. */
  failed: string[];
  /** The first lesson neither passed nor failed; null when nothing is left to study. */
  next: string | null;
  /** Every lesson is passed. */
  completed: boolean;
  /** Every lesson is passed or failed: the course is finished (its program goes on). */
  finished: boolean;
}

/** The standing of a release's lessons given the passed and failed keys (keys outside the release are ignored). */
export function courseStanding(
  order: readonly string[],
  passed: ReadonlySet<string>,
  failed: ReadonlySet<string>,
): CourseStanding {
  const p = order.filter((k) => passed.has(k));
  const f = order.filter((k) => failed.has(k) && !passed.has(k));
  const next = order.find((k) => !passed.has(k) && !failed.has(k)) ?? null;
  return { passed: p, failed: f, next, completed: p.length === order.length, finished: next === null };
}

/** The standing of a course from the student's state (as committed) and its active release. */
export function standingOf(state: CourseState, release: LoadedRelease): CourseStanding {
  return courseStanding(release.order, passedIn(state), unpassableLessons(state, release));
}

/**
 * The program lock of a course as lessons sees it. Enrollment names the previous course of an
 * ordered program while it does not know that course finished; it learns that from lesson_passed
 * and lesson_failed a moment after the commit. Lessons' own runs are the truth it is built from, so
 * a previous course finished here does not hold the course back, even before enrollment catches up.
 */
export async function programLock(
  deps: Pick<LessonsDeps, 'courseStates' | 'releases'>,
  user: string,
  access: Pick<CourseAccess, 'program_previous'>,
): Promise<CourseAccess['program_previous']> {
  const previous = access.program_previous;
  if (!previous) return null;
  const state = await deps.courseStates.of(user, previous.course);
  const active = await deps.releases.activeFrom(previous.course, state.activeRelease);
  if (!active.ok || active.data.order.length === 0) return previous;
  return standingOf(state, active.data).finished ? null : previous;
}
