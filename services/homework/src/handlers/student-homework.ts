import { homeworkOfStudent, ok, PERSONAL, type Principal, whoami } from '@studium/contracts';
import { type Bus, endpoint, Failure } from '@studium/platform';
import type { SubmissionRepository } from '../repositories/submission.repository.ts';
import { submissionView, type UrlSigner } from '../views.ts';
import { reviewItem } from './review.ts';

/**
 * Whether the caller manages the organization `org`, asked of enrollment with the caller's own
 * signed principal passed on (a service cannot make up a principal for someone).
 */
async function manages(bus: Bus, viewer: Principal, org: string): Promise<boolean> {
  const reply = await bus.request(whoami, viewer, {});
  if (!reply.ok) return false;
  const orgs = (reply.data as { organizations?: Array<{ name: string; role: string }> }).organizations ?? [];
  return orgs.some((o) => o.name === org && o.role === 'manager');
}

/** homework.student_homework: a student's homework in an organization space, for its manager. */
export function studentHomeworkHandler(deps: { bus: Bus; submissions: SubmissionRepository; signer: UrlSigner }) {
  return endpoint(
    homeworkOfStudent,
    async (args, ctx) => {
      if (!ctx.principal) throw new Failure(401, 'no principal');
      if (ctx.principal.user !== args.viewer) throw new Failure(403, 'the viewer is not the caller');
      if (args.space === PERSONAL || !(await manages(deps.bus, ctx.principal, args.space))) {
        throw new Failure(403, 'not a manager of the organization');
      }
      const rows = await deps.submissions.listForUser(args.student, args.space, null);
      const items = [];
      for (const row of rows) {
        const v = await submissionView(deps.submissions, deps.signer, row);
        items.push({
          ...reviewItem(row),
          answer: v.answer,
          files: v.files,
          last_comment: v.last_comment,
        });
      }
      return ok({ space: args.space, items });
      // reporting's student_detail passes on the manager of its call.
    },
    { forwarded: true },
  );
}
