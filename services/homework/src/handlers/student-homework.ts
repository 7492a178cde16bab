import { homeworkOfStudent, ok, PERSONAL, whoami } from '@studium/contracts';
import { type Bus, endpoint, Failure } from '@studium/platform';
import type { SubmissionRepository } from '../repositories/submission.repository.ts';
import { submissionView, type UrlSigner } from '../views.ts';

/** Whether `user` manages the organization `org` (asked of enrollment, as whoami shows it). */
async function manages(bus: Bus, user: string, org: string): Promise<boolean> {
  const reply = await bus.request(whoami, { user, full_name: user, roles: [], scope: 'read', space: PERSONAL }, {});
  if (!reply.ok) return false;
  const orgs = (reply.data as { organizations?: Array<{ name: string; role: string }> }).organizations ?? [];
  return orgs.some((o) => o.name === org && o.role === 'manager');
}

/** homework.student_homework: a student's homework in an organization space, for its manager. */
export function studentHomeworkHandler(deps: { bus: Bus; submissions: SubmissionRepository; signer: UrlSigner }) {
  return endpoint(homeworkOfStudent, async (args) => {
    if (args.space === PERSONAL || !(await manages(deps.bus, args.viewer, args.space))) {
      throw new Failure(403, 'not a manager of the organization');
    }
    const rows = await deps.submissions.listForUser(args.student, args.space, null);
    const items = [];
    for (const row of rows) {
      const v = await submissionView(deps.submissions, deps.signer, row);
      items.push({
        submission: row.id,
        course: row.course,
        lesson: row.lesson,
        lesson_key: row.lesson_key,
        student: row.user_id,
        space: row.space,
        status: row.status,
        version: row.version,
        submitted_at: row.submitted_at,
        due_at: row.due_at,
        answer: v.answer,
        files: v.files,
        last_comment: v.last_comment,
      });
    }
    return ok({ space: args.space, items });
  });
}
