import { notifySubscribers, ok, publish_course } from '@studium/contracts';
import { type Bus, endpoint, Failure } from '@studium/platform';
import { author } from '../access.ts';
import { courseNotFound, courseNotReleased } from '../refusals.ts';
import { type CoursesDeps, changeCourse } from '../store.ts';

/**
 * publish_course: opens a released course to students, then asks enrollment to e-mail the
 * subscribers of the announcement (idempotent there: one e-mail per subscriber, ever).
 *
 * The publication commits first, so e-mails never announce a course that stayed closed. If
 * enrollment does not answer, the call fails with the course already open; the agent's retry
 * (publish_course again) asks enrollment again and reports the e-mails then. Every call on an open
 * course that was ever announced asks, which is harmless: nobody pending means `notified: 0`.
 */
export function publishCourseHandler({ transaction }: CoursesDeps, bus: Bus) {
  return endpoint(publish_course, async (args, ctx) => {
    const who = author(ctx);
    const opened = await transaction(async (s) => {
      const course = await s.courses.lock(args.course);
      if (!course) return courseNotFound(args.course);
      const active = await s.releases.active(course.id);
      if (!active) return courseNotReleased(course.id);
      let card = course;
      if (course.status !== 'published') {
        card = await changeCourse(s, course.id, { status: 'published' }, active);
        await s.emit('courses.course_published', {
          course: card.id,
          title: card.title,
          release: active.id,
          version: active.version,
          was_upcoming: course.status === 'upcoming',
          by: who.user,
          at: card.updated_at,
        });
      }
      return ok({ card, warnings: active.warnings.map((w) => w.message) });
    });
    if (!opened.ok) return opened;
    const { card, warnings } = opened.data;
    let notified = 0;
    if (card.announced) {
      const reply = await bus.request(notifySubscribers, who, {
        course: card.id,
        title: card.title,
        summary: card.summary,
      });
      if (!reply.ok) throw new Failure(503, `notify_subscribers refused: ${reply.error.code}`);
      notified = reply.data.notified;
    }
    return ok({ course: card.id, published: true, upcoming: false, warnings, notified });
  });
}
