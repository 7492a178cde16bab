import type { CatalogRow } from '../repositories/catalog.repository.ts';
import type { MyCourseRow } from '../repositories/enrollment.repository.ts';
import { type ProgramRow, programsOf } from './programs.ts';

/** `programs` of a course and, only when the course is locked, `locked_by`. */
function programFields(course: string, rows: readonly ProgramRow[] | null) {
  const { programs, lock } = programsOf(course, rows ?? []);
  return lock ? { programs, locked_by: lock.previous } : { programs };
}

/**
 * A catalog course as list_catalog returns it: objectives and notify only on an announcement. A
 * course the student tests before it opens is `testing` and no announcement to them: they enroll.
 */
export function catalogCourse(row: CatalogRow) {
  const upcoming = row.status === 'upcoming' && !row.testing;
  return {
    course: row.course,
    title: row.title,
    summary: row.summary,
    upcoming,
    ...(upcoming ? { objectives: row.objectives, notify: row.notify === true } : {}),
    ...(row.testing ? { testing: true } : {}),
    ...programFields(row.course, row.programs),
  };
}

/**
 * One of the student's courses as list_my_courses returns it. A self-enrollment has empty
 * assignment fields (mandatory, deadline); organization names the space's organization.
 */
export function myCourse(row: MyCourseRow) {
  return {
    course: row.course,
    title: row.title,
    organization: row.organization,
    mandatory: row.self_enrolled ? null : row.mandatory,
    deadline: row.self_enrolled || !row.deadline ? null : new Date(row.deadline).toISOString(),
    overdue: row.overdue,
    lessons_total: row.lessons_total,
    lessons_completed: row.lessons_done,
    lessons_failed: row.lessons_failed,
    completed: row.completed,
    finished: row.finished,
    next_lesson: row.next_lesson,
    ...(row.testing ? { testing: true } : {}),
    ...programFields(row.course, row.programs),
  };
}
