import { ok, sessionCourse } from '@studium/contracts';
import { checkActsFor, endpoint } from '@studium/platform';
import type { LessonsDeps } from '../deps.ts';
import { lessonMap } from '../domain/lesson-progress.ts';

/**
 * lessons.session_course (knowledge → lessons, for remember's project and observation notes): the
 * course of the student's session, whether it is still open, and while it is, the lesson's
 * objectives with their statuses. Another user's session is `found: false`, as a missing one.
 */
export function sessionCourseHandler(deps: LessonsDeps) {
  return endpoint(
    sessionCourse,
    async ({ session: id, user }, ctx) => {
      // knowledge passes on the student of its remember.
      checkActsFor(ctx, user);
      // The session with its run's marks and its course's active release row: one statement.
      const found = await deps.sessions.findWithRun(id);
      const session = found?.session;
      if (!found || !session || session.user_id !== user) return ok({ found: false as const });
      const active = await deps.releases.activeFrom(session.course, found.activeRelease);
      const title = active.ok ? active.data.content.course.title : session.course;
      const open = session.status === 'open';
      const placed = active.ok ? active.data.lessons.get(session.lesson_key) : undefined;
      const objectives =
        open && placed
          ? lessonMap(placed.lesson, found.marks).map((o) => ({
              key: o.key,
              title: o.text,
              status: o.status,
            }))
          : undefined;
      return ok({
        found: true as const,
        course: session.course,
        course_title: title,
        open,
        ...(objectives ? { objectives } : {}),
      });
    },
    { forwarded: true },
  );
}
