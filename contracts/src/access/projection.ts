import { z } from 'zod';
import { Timestamp } from '../common.ts';
import type { CourseAccess } from '../ops/course-access.ts';
import { ok } from '../refusal.ts';
import { type CourseEnrollment, chooseCourseSpace } from './course-space.ts';
import { type ProgramRow, programsOf } from './programs.ts';
import type { OrgMembership } from './space.ts';

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/**
 * The decision of a course tool's access check (enrollment.course_access) from the state it reads:
 * the student's organizations and effective selected space, their counted enrollments in the
 * course and the programs holding it. Enrollment's handler and the lessons and homework
 * projections call this same function, so they cannot decide differently on the same state.
 */
export function decideCourseAccess(input: {
  course: string;
  orgs: readonly OrgMembership[];
  selected: string;
  explicit: string | null;
  courseSpace: string | null;
  enrollments: readonly CourseEnrollment[];
  programs: readonly ProgramRow[];
}) {
  const chosen = chooseCourseSpace(input);
  if (!chosen.ok) return chosen;
  const { enrollment } = chosen.value;
  const { programs: views, lock } = programsOf(input.course, input.programs);
  const access: CourseAccess = {
    space: chosen.value.space,
    organization: chosen.value.organization,
    mandatory: enrollment.mandatory ?? false,
    deadline: iso(enrollment.deadline),
    overdue: enrollment.overdue,
    self_enrolled: enrollment.self_enrolled,
    program_previous: lock
      ? {
          program: lock.program,
          program_title: lock.program_title,
          course: lock.previous.course,
          title: lock.previous.title,
        }
      : null,
    programs: views,
  };
  return ok(access);
}

const ProgramRowSchema = z.object({
  program: z.string(),
  title: z.string(),
  ordered: z.boolean(),
  member: z.boolean(),
  courses: z.array(z.object({ course: z.string(), title: z.string(), finished: z.boolean() })),
});

/**
 * enrollment.access_changed: everything course_access reads about one student, as one document
 * (state transfer). Sent in the transaction of every change of it (enrollment, assignment,
 * progress that finishes a course, membership, suspension, selected space, program, tester grant
 * or course status); a projection keeps the highest `version` (a per-user counter bumped under
 * the user's row lock, so a higher version is a later state).
 */
export const AccessChanged = z.looseObject({
  user: z.string(),
  version: z.number().int(),
  /** The effective selected space (personal when the selection is no longer available). */
  space: z.string(),
  organizations: z.array(z.looseObject({ name: z.string(), title: z.string(), suspended: z.boolean() })),
  /** The enrollments that count (a tester's only while the grant stands or the course is open). */
  enrollments: z.array(
    z.object({
      course: z.string(),
      space: z.string(),
      organization: z.string().nullable(),
      self_enrolled: z.boolean(),
      mandatory: z.boolean().nullable(),
      deadline: Timestamp.nullable(),
      enrolled_at: Timestamp,
      completed: z.boolean(),
    }),
  ),
  /** The programs holding each enrolled course that is in a program, for this student. */
  programs: z.record(z.string(), z.array(ProgramRowSchema)),
});
export type AccessChanged = z.infer<typeof AccessChanged>;

/** {@link decideCourseAccess} on a projected document; overdue by `now` (the caller's clock). */
export function courseAccessFromDoc(
  doc: AccessChanged,
  q: { course: string; space: string | null; course_space: string | null },
  now: number,
) {
  const enrollments: CourseEnrollment[] = doc.enrollments
    .filter((e) => e.course === q.course)
    .map((e) => ({
      space: e.space,
      organization: e.organization,
      self_enrolled: e.self_enrolled,
      mandatory: e.mandatory,
      deadline: iso(e.deadline),
      enrolled_at: iso(e.enrolled_at) as string,
      overdue: e.deadline !== null && Date.parse(e.deadline) < now && !e.completed,
    }));
  return decideCourseAccess({
    course: q.course,
    orgs: doc.organizations,
    selected: doc.space,
    explicit: q.space,
    courseSpace: q.course_space,
    enrollments,
    programs: doc.programs[q.course] ?? [],
  });
}
