import { list_my_courses } from '@studium/contracts';
import { myCourse } from '../domain/course-views.ts';
import type { Identities } from '../identities.ts';
import type { EnrollmentRepository, MyCourseRow } from '../repositories/enrollment.repository.ts';
import type { ListStampsRepository } from '../repositories/list-stamps.repository.ts';
import { courseListEndpoint } from './course-list.ts';

/**
 * list_my_courses: the student's courses in the space with progress, deadlines and programs.
 * Personal lists every course of the student except those of suspended organizations (their
 * enrollments are kept and come back with the organization). Behind the identity cache: one
 * prepared query with card, progress and programs. The reply is tagged with the list's ETag,
 * which also expires when the next deadline passes (overdue changes with no write).
 */
export function listMyCoursesHandler(
  identities: Identities,
  enrollments: EnrollmentRepository,
  stamps: ListStampsRepository,
) {
  return courseListEndpoint(list_my_courses, identities, stamps, async (principal, scope) => {
    const rows = await enrollments.listMine(principal.user, scope.courseSpaces);
    return { data: { space: scope.space, courses: rows.map((r) => myCourse(r)) }, until: nextDeadline(rows) };
  });
}

/** When the first course of the list that is not yet overdue turns overdue (epoch ms), if any does. */
function nextDeadline(rows: readonly MyCourseRow[]): number | null {
  let next: number | null = null;
  for (const r of rows) {
    if (!r.deadline || r.overdue || r.completed) continue;
    const at = new Date(r.deadline).getTime();
    if (next === null || at < next) next = at;
  }
  return next;
}
