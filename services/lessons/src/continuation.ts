import type { CourseAccess, Principal } from '@studium/contracts';
import type { CourseStanding } from './course-progress.ts';
import type { LessonsDeps } from './deps.ts';
import { type Continuation, nextInProgram } from './domain/continuation.ts';

/**
 * What follows a failed lesson for this student: the course's next open lesson, or (the course
 * finished) the next course of their program — asking enrollment whether they are enrolled there,
 * so the hint names enroll only when it is needed — or any other course.
 */
export async function continuationAfter(
  deps: Pick<LessonsDeps, 'access'>,
  principal: Principal,
  course: string,
  standing: Pick<CourseStanding, 'finished'>,
  programs: CourseAccess['programs'],
): Promise<Continuation> {
  if (!standing.finished) return { kind: 'lesson', course };
  const next = nextInProgram(programs);
  if (!next) return { kind: 'other' };
  const access = await deps.access.check(principal, { course: next.course, space: null, course_space: null });
  // Any other refusal (a suspended organization) is start_lesson's to explain.
  const enrolled = access.ok || access.error.code !== 'not_enrolled';
  return { kind: 'course', ...next, enrolled };
}
