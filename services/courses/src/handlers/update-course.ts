import { ok, update_course } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { courseFromRelease, courseHasContent, courseNotFound } from '../refusals.ts';
import type { CoursePatch } from '../repositories/course.repository.ts';
import { type CoursesDeps, changeCourse } from '../store.ts';

const FIELDS = ['title', 'summary', 'description', 'promise'] as const;

/** update_course: edits the card of a course before its first release; omitted fields stay. */
export function updateCourseHandler({ transaction }: CoursesDeps) {
  return endpoint(update_course, async (args, ctx) => {
    author(ctx);
    return transaction(async (s) => {
      const course = await s.courses.lock(args.course);
      if (!course) return courseNotFound(args.course);
      if (course.course_key !== null) return courseFromRelease(course.id);
      if (course.legacy_lessons > 0) return courseHasContent(course.id, course.legacy_lessons);
      const patch: CoursePatch = {};
      for (const field of FIELDS) {
        const value = args[field]?.trim();
        if (value !== undefined && value !== course[field]) patch[field] = value;
      }
      const row = Object.keys(patch).length ? await changeCourse(s, course.id, patch, null) : course;
      return ok({
        course: row.id,
        title: row.title,
        summary: row.summary,
        description: row.description,
        promise: row.promise,
      });
    });
  });
}
