import { create_course, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import { courseCard } from '../domain/card.ts';
import { newId } from '../domain/ids.ts';
import type { CoursesDeps } from '../store.ts';

/** create_course: a draft course without lessons, for an announcement; its creator is its instructor. */
export function createCourseHandler({ transaction }: CoursesDeps) {
  return endpoint(create_course, async ({ title, summary, description }, ctx) => {
    const who = author(ctx);
    const row = await transaction(async (s) => {
      const row = await s.courses.insert({
        id: newId('crs'),
        course_key: null,
        title: title.trim(),
        summary: summary.trim(),
        description: description?.trim() || summary.trim(),
        promise: null,
        created_by: who.user,
        instructors: [who.user],
      });
      await s.emit('courses.course_card_changed', courseCard(row, null, row.updated_at));
      return row;
    });
    return ok({ course: row.id, title: row.title, published: false, upcoming: false });
  });
}
