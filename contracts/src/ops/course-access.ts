import { z } from 'zod';
import { Timestamp } from '../common.ts';
import { defineOperation } from '../tool.ts';
import { ProgramView } from '../tools/shapes.ts';

/** A student's enrollment in a course, in the space a course tool works in. */
export const CourseAccess = z.object({
  /** The resolved space: `personal` or an organization name. */
  space: z.string(),
  /** The organization of an organization space; null in the personal space. */
  organization: z.string().nullable(),
  /** Assigned by the organization as mandatory (false for a self-enrollment). */
  mandatory: z.boolean(),
  /** The assignment's deadline; null without one. */
  deadline: Timestamp.nullable(),
  /** The deadline has passed (computed by the database clock). */
  overdue: z.boolean(),
  self_enrolled: z.boolean(),
  /**
   * The course of an ordered program that the student must complete before this one (spec:
   * program_order); null when no ordered program of the student holds this course back.
   */
  program_previous: z
    .object({ program: z.string(), program_title: z.string().optional(), course: z.string(), title: z.string() })
    .nullable(),
  /** The programs that hold the course, as the course lists show them (course_outline). */
  programs: z.array(ProgramView).optional(),
});
export type CourseAccess = z.infer<typeof CourseAccess>;

/**
 * The access check of every course tool (lessons, homework → enrollment). The space is, in order:
 * the tool's explicit `space` argument, the space the caller knows for this course (`course_space`:
 * the space of the student's started lesson session on it), the user's selected space.
 * Refusals (values, with the spec's messages and details): `space_not_available` (no such space for
 * the user), `organization_suspended` (the space's organization is suspended), `course_not_in_space`
 * (enrolled, but not in the named space), `not_enrolled` (no enrollment in the course at all).
 */
export const courseAccess = defineOperation({
  subject: 'enrollment.course_access',
  input: z.object({
    user: z.string(),
    course: z.string(),
    space: z.string().nullable(),
    course_space: z.string().nullable(),
  }),
  output: CourseAccess,
});

/** One enrollment of {@link myEnrollments}. */
export const EnrollmentSummary = CourseAccess.omit({
  space: true,
  organization: true,
  program_previous: true,
  programs: true,
}).extend({
  course: z.string(),
  space: z.string(),
  organization: z.string().nullable(),
  enrolled_at: Timestamp,
});
export type EnrollmentSummary = z.infer<typeof EnrollmentSummary>;

/**
 * The student's enrollments that count in a space (lessons → enrollment, for start_lesson without
 * arguments: nearest deadline, mandatory and overdue first). `space` null: the selected space. The
 * personal space counts the enrollments of every active organization too, as list_my_courses does.
 * Refusals: `space_not_available`, `organization_suspended` (an explicit space).
 */
export const myEnrollments = defineOperation({
  subject: 'enrollment.my_enrollments',
  input: z.object({ user: z.string(), space: z.string().nullable() }),
  output: z.object({ space: z.string(), enrollments: z.array(EnrollmentSummary) }),
});
