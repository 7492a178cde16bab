import type { CourseAccess, Principal, Reply } from '@studium/contracts';
import { continuationAfter } from '../continuation.ts';
import type { LessonsDeps } from '../deps.ts';
import { fetchReturnedHomework } from '../lesson-context.ts';
import { refusals } from '../refusals.ts';

/**
 * nothing_to_study with its way on (docs/decisions.md, the failed lesson): with a course, the next
 * course of the student's program (next_course); and homework returned for rework in the spaces
 * (returned_homework) — a course's last lesson has no next lesson whose start would show it.
 */
export async function nothingLeft(
  deps: LessonsDeps,
  principal: Principal,
  q: { course?: string; spaces: string[]; programs?: CourseAccess['programs'] },
): Promise<Reply<never>> {
  const [returned, after] = await Promise.all([
    fetchReturnedHomework(
      deps.bus,
      deps.log,
      deps.config.CONTEXT_TIMEOUT_MS,
      { user: principal.user, spaces: [...new Set(q.spaces)], course: q.course ?? null },
      principal,
    ),
    q.course ? continuationAfter(deps, principal, q.course, { finished: true }, q.programs) : null,
  ]);
  const nextCourse =
    after?.kind === 'course'
      ? { course: after.course, title: after.title, program_title: after.program_title, enrolled: after.enrolled }
      : null;
  return refusals.nothingToStudy(q.course, { nextCourse, returned });
}
