import { ok, unpublish_course } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { courseNotFound } from '../refusals.ts';
import { type CoursesDeps, changeCourse } from '../store.ts';

/** unpublish_course: removes a course or an announcement from the catalog; students' progress stays. */
export function unpublishCourseHandler({ transaction }: CoursesDeps) {
  return endpoint(unpublish_course, async (args, ctx) => {
    const who = author(ctx);
    return transaction(async (s) => {
      const course = await s.courses.lock(args.course);
      if (!course) return courseNotFound(args.course);
      if (course.status !== 'draft') {
        const active = await s.releases.active(course.id);
        const row = await changeCourse(s, course.id, { status: 'draft', announced: false }, active ?? null);
        await s.emit('courses.course_unpublished', { course: row.id, by: who.user, at: row.updated_at });
      }
      return ok({ course: course.id, published: false, upcoming: false });
    });
  });
}
