import { notifySubscribers, ok, publish_course } from '@studium/contracts';
import { type Bus, endpoint, Failure } from '@studium/platform';
import type { Kysely } from 'kysely';
import { author } from '../access.ts';
import type { CoursesDb } from '../db.ts';
import { courseNotFound, courseNotReleased } from '../refusals.ts';
import { changeCourse, transaction } from '../store.ts';

/**
 * publish_course: opens a released course to students. Opening an announcement first asks
 * enrollment to notify its subscribers (idempotent there: one e-mail per subscriber, ever) while
 * the course row is locked; if enrollment fails or is away, the call fails and nothing changes,
 * so a retry is safe. Publishing an open course again changes nothing and notifies nobody.
 */
export function publishCourseHandler(db: Kysely<CoursesDb>, bus: Bus) {
  return endpoint(publish_course, async (args, ctx) => {
    const who = author(ctx);
    return transaction(db, async (s) => {
      const course = await s.courses.lock(args.course);
      if (!course) return courseNotFound(args.course);
      const active = await s.releases.active(course.id);
      if (!active) return courseNotReleased(course.id);
      let notified = 0;
      if (course.status !== 'published') {
        if (course.status === 'upcoming') {
          const reply = await bus.request(notifySubscribers, who, {
            course: course.id,
            title: course.title,
            summary: course.summary,
          });
          if (!reply.ok) throw new Failure(503, `notify_subscribers refused: ${reply.error.code}`);
          notified = reply.data.notified;
        }
        const row = await changeCourse(s, course.id, { status: 'published' }, active);
        await s.emit('courses.course_published', {
          course: row.id,
          title: row.title,
          release: active.id,
          version: active.version,
          was_upcoming: course.status === 'upcoming',
          by: who.user,
          at: row.updated_at,
        });
      }
      return ok({
        course: course.id,
        published: true,
        upcoming: false,
        warnings: active.warnings.map((w) => w.message),
        notified,
      });
    });
  });
}
