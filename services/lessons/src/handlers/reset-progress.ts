import { ok, resetProgress } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { LessonsDeps } from '../deps.ts';

/** lessons.reset_progress: archives the student's live runs of a course (run_archived from then on). */
export function resetProgressHandler(deps: LessonsDeps) {
  return endpoint(resetProgress, async ({ user, course }) => {
    const archived = await deps.db.transaction().execute((trx) => deps.runs.archiveCourse(trx, user, course));
    return ok({ archived });
  });
}
