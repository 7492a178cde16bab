import { courseAccess, decideCourseAccess, myEnrollments, ok } from '@studium/contracts';
import { endpoint, Failure, requireActsFor } from '@studium/platform';
import { resolveSpace } from '../domain/space.ts';
import type { Identities } from '../identities.ts';
import type { EnrollmentRepository } from '../repositories/enrollment.repository.ts';

const iso = (t: string | Date | null) => (t === null ? null : new Date(t).toISOString());

/**
 * enrollment.course_access (lessons, homework → enrollment): the space a course tool works in, the
 * enrollment that counts there and the program lock, or the spec's access refusal. Reads the
 * identity through the cache that every change of organizations and spaces invalidates. Asked
 * only inside the student's own call: the request carries the student's signed principal,
 * forwarded by the asking service (401 without one, 403 for another user).
 */
export function courseAccessHandler(deps: { identities: Identities; enrollments: EnrollmentRepository }) {
  return endpoint(
    courseAccess,
    async ({ user, course, space, course_space }, ctx) => {
      requireActsFor(ctx, user);
      const me = await deps.identities.get(user);
      if (!me) throw new Failure(404, 'no such user');
      // Enrollments and programs in one statement (every lesson tool asks this).
      const { enrollments, programs } = await deps.enrollments.accessRows(user, course);
      return decideCourseAccess({
        course,
        orgs: me.organizations,
        selected: me.space,
        explicit: space,
        courseSpace: course_space,
        enrollments,
        programs,
      });
    },
    { forwarded: true },
  );
}

/**
 * enrollment.my_enrollments (lessons → enrollment): the student's enrollments that count in a
 * space, one per course (the assignment before a self-enrollment), as list_my_courses shows them.
 */
export function myEnrollmentsHandler(deps: { identities: Identities; enrollments: EnrollmentRepository }) {
  return endpoint(
    myEnrollments,
    async ({ user, space }, ctx) => {
      requireActsFor(ctx, user);
      const me = await deps.identities.get(user);
      if (!me) throw new Failure(404, 'no such user');
      const resolved = resolveSpace(me.organizations, me.space, space ?? undefined);
      if (!resolved.ok) return resolved;
      const rows = await deps.enrollments.listMine(user, resolved.scope.courseSpaces);
      return ok({
        space: resolved.scope.space,
        enrollments: rows.map((r) => ({
          course: r.course,
          space: r.space,
          organization: r.organization,
          mandatory: r.mandatory ?? false,
          deadline: iso(r.deadline),
          overdue: r.overdue,
          self_enrolled: r.self_enrolled,
          enrolled_at: iso(r.enrolled_at) ?? '',
        })),
      });
    },
    { forwarded: true },
  );
}
