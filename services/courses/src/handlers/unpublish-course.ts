import { ok, unpublish_course } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import { author } from '../access.ts';
import type { CoursesDb } from '../db.ts';
import { courseNotFound } from '../refusals.ts';
import { changeCourse, transaction } from '../store.ts';

/** unpublish_course: removes a course or an announcement from the catalog; students' progress stays. */
export function unpublishCourseHandler(db: Kysely<CoursesDb>) {
  return endpoint(unpublish_course, async (args, ctx) => {
    const who = author(ctx);
    return transaction(db, async (s) => {
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
