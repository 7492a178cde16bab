import { course_testers, grant_tester, knownUser, ok, revoke_tester, TESTERS_MAX } from '@studium/contracts';
import { type Bus, type CallContext, endpoint, Failure } from '@studium/platform';
import { instructor } from '../access.ts';
import { courseNotFound, tooManyTesters, userNotFound } from '../refusals.ts';
import type { CourseRow } from '../repositories/course.repository.ts';
import { type CoursesDeps, changeCourse } from '../store.ts';

const view = (c: CourseRow) => ({ course: c.id, status: c.status, testers: c.testers });

/** course_testers (cabinet): who may study the course before it opens; the course's instructors and staff. */
export function courseTestersHandler({ store: s }: CoursesDeps) {
  return endpoint(course_testers, async (args, ctx) => {
    const course = await s.courses.find(args.course);
    if (!course) return courseNotFound(args.course);
    instructor(ctx, course);
    return ok(view(course));
  });
}

/**
 * grant_tester / revoke_tester (cabinet): a person's grant, never an agent's (spec 000). The list
 * reaches enrollment on the course card (course_card_changed, same transaction), which honours it
 * in enroll and course_access while the course is not open. A grant names a platform user: the
 * login is asked of enrollment before the transaction (no lock is held over the bus), after the
 * course and the caller are checked, so an outsider learns nothing of which logins exist.
 */
export function testerHandlers({ store, transaction }: CoursesDeps, bus: Bus) {
  const knownLogin = async (id: string, user: string, ctx: CallContext) => {
    const course = await store.courses.find(id);
    if (!course) return courseNotFound(id);
    const who = instructor(ctx, course);
    const reply = await bus.request(knownUser, who, { user });
    if (!reply.ok) throw new Failure(503, `known_user refused: ${reply.error.code}`);
    return reply.data.known ? null : userNotFound(user);
  };
  const change = (grant: boolean) =>
    endpoint(grant ? grant_tester : revoke_tester, async (args, ctx) => {
      const user = args.user.trim();
      if (grant) {
        const refused = await knownLogin(args.course, user, ctx);
        if (refused) return refused;
      }
      return transaction(async (s) => {
        const course = await s.courses.lock(args.course);
        if (!course) return courseNotFound(args.course);
        instructor(ctx, course);
        const has = course.testers.includes(user);
        if (grant === has) return ok(view(course));
        if (grant && course.testers.length >= TESTERS_MAX) return tooManyTesters(course.id, TESTERS_MAX);
        const testers = grant ? [...course.testers, user] : course.testers.filter((t) => t !== user);
        const active = (await s.releases.active(course.id)) ?? null;
        return ok(view(await changeCourse(s, course.id, { testers }, active)));
      });
    });
  return [change(true), change(false)];
}
