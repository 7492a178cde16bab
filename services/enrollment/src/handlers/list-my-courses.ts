import { list_my_courses, ok } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { myCourse } from '../domain/course-views.ts';
import type { Identities } from '../identities.ts';
import type { EnrollmentRepository } from '../repositories/enrollment.repository.ts';

/**
 * list_my_courses: the student's courses in the space with progress, deadlines and programs.
 * Personal lists every course of the student except those of suspended organizations (their
 * enrollments are kept and come back with the organization). Behind the identity cache: one
 * prepared query with card, progress and programs.
 */
export function listMyCoursesHandler(identities: Identities, enrollments: EnrollmentRepository) {
  return endpoint(list_my_courses, async ({ space }, { principal }) => {
    if (!principal) throw new Failure(401, 'no principal');
    const { resolved } = await identities.spaceOf(principal, space);
    if (!resolved.ok) return resolved;
    const { scope } = resolved;
    const rows = await enrollments.listMine(principal.user, scope.courseSpaces);
    return ok({ space: scope.space, courses: rows.map((r) => myCourse(r)) });
  });
}
