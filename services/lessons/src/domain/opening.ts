import type { RunStatus } from './lesson-progress.ts';

export type Opening = 'first_in_course' | 'new_lesson' | 'return' | 'repeat';

/** What start_lesson knows when it picks the opening. */
export interface OpeningFacts {
  /** The student has had sessions in this course before (any lesson). */
  courseSessionsBefore: boolean;
  /** Sessions of this lesson run before the current one. */
  lessonSessionsBefore: boolean;
  runStatus: RunStatus;
  /** Some item of the run is marked (not open). */
  anyMarked: boolean;
  /** The last activity of this lesson run, or null. */
  lastActivity: string | null;
  now: Date;
}

/** A pause longer than this makes a return (bridge from resume_from). */
export const RETURN_AFTER_MS = 24 * 3600 * 1000;

/**
 * The opening: repeat — the lesson was passed, or items are marked and the student comes back
 * within a day; return — more than a day passed and something is unclosed; new_lesson — a lesson
 * not touched yet; first_in_course — the first session of the course.
 */
export function chooseOpening(f: OpeningFacts): Opening {
  if (f.runStatus === 'passed') return 'repeat';
  const away = f.lastActivity !== null && f.now.getTime() - new Date(f.lastActivity).getTime() > RETURN_AFTER_MS;
  if (f.lessonSessionsBefore && away) return 'return';
  if (f.anyMarked) return 'repeat';
  if (!f.courseSessionsBefore) return 'first_in_course';
  return 'new_lesson';
}

/** An enrollment as start_lesson without arguments ranks it. */
export interface RankedEnrollment {
  course: string;
  mandatory: boolean;
  overdue: boolean;
  deadline: string | null;
  enrolled_at: string;
}

/**
 * Courses in the order start_lesson without arguments tries them: mandatory and overdue first,
 * then the nearest deadline (courses without one after those with one), then the oldest enrollment.
 */
export function rankEnrollments<E extends RankedEnrollment>(list: readonly E[]): E[] {
  const key = (e: E) => (e.mandatory || e.overdue ? 0 : 1);
  const time = (s: string | null) => (s === null ? Number.POSITIVE_INFINITY : new Date(s).getTime());
  return [...list].sort(
    (a, b) =>
      key(a) - key(b) ||
      Number(b.overdue) - Number(a.overdue) ||
      time(a.deadline) - time(b.deadline) ||
      time(a.enrolled_at) - time(b.enrolled_at),
  );
}

/** The first lesson key in course order that is not passed; null when every lesson is passed. */
export function nextOpenLesson(order: readonly string[], passed: ReadonlySet<string>): string | null {
  return order.find((k) => !passed.has(k)) ?? null;
}
