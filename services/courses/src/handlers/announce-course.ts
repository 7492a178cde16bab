import { announce_course, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { catalogObjectives } from '../domain/card.ts';
import {
  courseAlreadyPublished,
  courseFromRelease,
  courseHasContent,
  courseNotFound,
  courseObjectivesMissing,
} from '../refusals.ts';
import { type CoursesDeps, changeCourse } from '../store.ts';

/**
 * announce_course: shows the course in the catalog as an announcement. A course without release
 * keeps its own goals (a new list replaces the old one); a released course shows its chapter titles.
 */
export function announceCourseHandler({ transaction }: CoursesDeps) {
  return endpoint(announce_course, async (args, ctx) => {
    const who = author(ctx);
    return transaction(async (s) => {
      const course = await s.courses.lock(args.course);
      if (!course) return courseNotFound(args.course);
      if (course.status === 'published') return courseAlreadyPublished(course.id);
      const given = args.objectives?.map((o) => o.trim()).filter(Boolean);
      const active = await s.releases.active(course.id);
      let own = course.objectives;
      if (active) {
        if (given?.length) return courseFromRelease(course.id);
      } else {
        if (course.legacy_lessons > 0) return courseHasContent(course.id, course.legacy_lessons);
        own = given?.length ? given : course.objectives;
        if (!own.length) return courseObjectivesMissing(course.id);
      }
      const objectives = catalogObjectives(own, active?.content ?? null);
      const changed = course.status !== 'upcoming' || JSON.stringify(own) !== JSON.stringify(course.objectives);
      if (changed) {
        const row = await changeCourse(
          s,
          course.id,
          { status: 'upcoming', announced: true, objectives: JSON.stringify(own) },
          active ?? null,
        );
        if (course.status !== 'upcoming') {
          await s.emit('courses.course_announced', {
            course: row.id,
            title: row.title,
            objectives,
            by: who.user,
            at: row.updated_at,
          });
        }
      }
      return ok({ course: course.id, published: true, upcoming: true, objectives });
    });
  });
}
