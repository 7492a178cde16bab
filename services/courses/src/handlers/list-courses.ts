import { list_courses, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import type { CoursesDeps } from '../store.ts';

/** list_courses: drafts, announcements and open courses, newest first (one query). */
export function listCoursesHandler({ store: s }: CoursesDeps) {
  return endpoint(list_courses, async ({ published }, ctx) => {
    author(ctx);
    const rows = await s.courses.list(published);
    return ok({
      courses: rows.map((r) => ({
        course: r.id,
        title: r.title,
        summary: r.summary,
        published: r.status !== 'draft',
        upcoming: r.status === 'upcoming',
        course_key: r.course_key,
        release:
          r.release && r.version !== null && r.published_at
            ? { release: r.release, version: r.version, published_at: r.published_at }
            : null,
        lessons: r.lesson_count ?? r.legacy_lessons,
        modified_at: r.updated_at,
      })),
    });
  });
}
