import { homeworkReturned, ok, RETURNED_HOMEWORK_LIMIT } from '@studium/contracts';
import { endpoint, requireActsFor } from '@studium/platform';
import type { CourseGateway } from '../courses.ts';
import type { SubmissionRepository } from '../repositories/submission.repository.ts';
import { listItems } from './my-homework.ts';

interface Deps {
  gateway: CourseGateway;
  submissions: SubmissionRepository;
  publicUrl: string;
}

/**
 * The student's homework returned for rework in the spaces, as start_lesson shows it
 * (returned_homework): the list items of my_homework with the space each lives in. `exclude` — a
 * lesson id already shown otherwise (previous_homework).
 */
export async function returnedHomework(
  deps: Deps,
  q: { user: string; spaces: readonly string[]; course: string | null; exclude?: string | null; limit?: number },
) {
  const rows = await deps.submissions.returned({
    user: q.user,
    spaces: q.spaces,
    course: q.course,
    exclude: q.exclude ?? null,
    limit: q.limit ?? RETURNED_HOMEWORK_LIMIT,
  });
  const items = await listItems(deps, rows);
  return items.map((item, i) => ({ ...item, space: rows[i]?.space as string }));
}

/** homework.returned_homework (start_lesson's nothing_to_study → homework). */
export function returnedHomeworkHandler(deps: Deps) {
  return endpoint(
    homeworkReturned,
    async (args, ctx) => {
      // lessons passes on the student of its start_lesson.
      requireActsFor(ctx, args.user);
      return ok({ items: await returnedHomework(deps, args) });
    },
    { forwarded: true },
  );
}
