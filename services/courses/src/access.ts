import { isAuthor, type Principal } from '@studium/contracts';
import { type CallContext, Failure } from '@studium/platform';

/**
 * The caller of a curator tool. The edge lets only author roles into /authoring; the service
 * checks again because some answers (quiz answers) must never reach a student.
 */
export function author(ctx: CallContext): Principal {
  if (!ctx.principal) throw new Failure(401, 'no principal');
  if (!isAuthor(ctx.principal.roles)) throw new Failure(403, 'author role required');
  return ctx.principal;
}

/** The caller of a student tool (courses serves report_issue and my_reports): any signed-in user. */
export function student(ctx: CallContext): Principal {
  if (!ctx.principal) throw new Failure(401, 'no principal');
  return ctx.principal;
}

/** Platform roles that act on every course (as goal_runs and the homework review see them). */
const STAFF = ['Moderator', 'System Manager', 'Administrator'];

/**
 * The caller of a cabinet action on one course that gives access to people (testers): an author
 * who is one of the course's instructors, or staff. Anyone else: 403 (the edge audits it).
 */
export function instructor(ctx: CallContext, course: { instructors: string[] }): Principal {
  const who = author(ctx);
  if (!who.roles.some((r) => STAFF.includes(r)) && !course.instructors.includes(who.user)) {
    throw new Failure(403, 'not an instructor of this course');
  }
  return who;
}
