import { lessonId, ok, sessionProgress } from '@studium/contracts';
import { endpoint, requireActsFor } from '@studium/platform';
import type { LessonsDeps } from '../deps.ts';
import { lessonMap } from '../domain/lesson-progress.ts';
import { RETURN_AFTER_MS } from '../domain/opening.ts';
import { marksFrom } from '../repositories/session.repository.ts';

const NONE = { session: null, lesson: null, objectives: [] };

/**
 * lessons.session_progress (homework → lessons, for update_artifact «посреди занятия»): the
 * student's open session on the course in the space and its lesson's objectives with the statuses
 * mark_goal computes, without items. A session idle longer than start_lesson would continue it
 * (RETURN_AFTER_MS) is not "mid-session": the next start_lesson abandons it. Objectives come from
 * the active release, as mark_goal's do; a lesson the release removed has none to show. Asked
 * only inside the student's update_artifact: the student's signed principal comes with it.
 */
export function sessionProgressHandler(deps: LessonsDeps) {
  return endpoint(
    sessionProgress,
    async ({ user, course, space }, ctx) => {
      requireActsFor(ctx, user);
      const since = new Date(Date.now() - RETURN_AFTER_MS);
      const session = await deps.sessions.openInSpace(user, course, space, since);
      if (!session) return ok(NONE);
      const active = await deps.releases.activeFrom(course, session.active_release);
      const placed = active.ok ? active.data.lessons.get(session.lesson_key) : undefined;
      if (!placed) return ok(NONE);
      const objectives = lessonMap(placed.lesson, marksFrom(session.marks)).map((o) => ({
        key: o.key,
        title: o.text,
        status: o.status,
      }));
      return ok({ session: session.id, lesson: lessonId(course, session.lesson_key), objectives });
    },
    { forwarded: true },
  );
}
