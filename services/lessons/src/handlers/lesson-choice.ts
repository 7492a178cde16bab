import { myEnrollments, ok, type Principal, parseLessonId, type Reply } from '@studium/contracts';
import type { LessonsDeps } from '../deps.ts';
import { nextOpenLesson, rankEnrollments } from '../domain/opening.ts';
import { quizStanding } from '../domain/quiz.ts';
import { refusals } from '../refusals.ts';
import type { LoadedRelease } from '../releases.ts';

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
 * Lesson keys of a release the student can no longer pass: a required quiz with no attempt left
 * and none passed (docs/decisions.md). Start_lesson without a lesson skips them.
 */
export async function unpassableLessons(deps: LessonsDeps, user: string, release: LoadedRelease): Promise<Set<string>> {
  const limited = release.order.filter((k) => {
    const quiz = release.lessons.get(k)?.lesson.quiz;
    return quiz?.required && quiz.attempts !== null && quiz.questions.length > 0;
  });
  if (!limited.length) return new Set();
  const runs = (await deps.runs.liveInCourse(user, release.course)).filter(
    (r) => r.status !== 'passed' && limited.includes(r.lesson_key),
  );
  const attempts = await deps.attempts.ofRuns(runs.map((r) => r.id));
  const now = new Date();
  const out = new Set<string>();
  for (const run of runs) {
    const quiz = release.lessons.get(run.lesson_key)?.lesson.quiz ?? null;
    const standing = quizStanding(
      quiz,
      attempts.filter((a) => a.run_id === run.id),
      now,
    );
    if (standing?.exhausted) out.add(run.lesson_key);
  }
  return out;
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
      if (
        active.ok &&
        active.data.lessons.has(last.lesson_key) &&
        !(await unpassableLessons(deps, principal.user, active.data)).has(last.lesson_key)
      ) {
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
  const [passed, unpassable] = await Promise.all([
    passedLessons(deps, user, course),
    unpassableLessons(deps, user, active.data),
  ]);
  return nextOpenLesson(active.data.order, new Set([...passed, ...unpassable]));
}
