import { lesson_item, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { LessonsDeps } from '../deps.ts';
import { closes, findItem, goalKeys } from '../domain/lesson-progress.ts';
import { refusals } from '../refusals.ts';
import { loadSession } from '../session-context.ts';

/** lesson_item: reads one item of the lesson (removed items are unknown); writes nothing. */
export function lessonItemHandler(deps: LessonsDeps) {
  return endpoint(lesson_item, async (args, { principal }) => {
    const loaded = await loadSession(deps, principal, args.session, { fresh: false });
    if (!loaded.ok) return loaded;
    const { session, active, placed } = loaded.data;
    if (!placed) return refusals.lessonNotInRelease(session.course, session.lesson_key, active.release);
    const found = findItem(placed.lesson, args.goal);
    if (!found) return refusals.goalUnknown(args.goal, goalKeys(placed.lesson));
    const marks = await deps.runs.marks(session.run_id);
    const status = marks.get(args.goal)?.status ?? 'open';
    const { item } = found;
    const open = !closes(status) && status !== 'not_needed';
    return ok({
      goal: { key: item.key, kind: item.kind, required: item.required, title: item.title, status },
      details: item.details,
      ...(open
        ? {
            next: `Разберите пункт «${item.title}» с учеником на его задаче и сразу отметьте его mark_goal со свидетельством.`,
          }
        : {}),
    });
  });
}
