import { my_homework, myEnrollments, ok, parseLessonId } from '@studium/contracts';
import { type Bus, endpoint } from '@studium/platform';
import { type CourseGateway, caller, findLesson } from '../courses.ts';
import { homeworkTask, isOverdue } from '../domain/homework.ts';
import type { SubmissionRepository, SubmissionRow } from '../repositories/submission.repository.ts';
import { lessonUrl, submissionView, type UrlSigner } from '../views.ts';

interface Deps {
  bus: Bus;
  gateway: CourseGateway;
  submissions: SubmissionRepository;
  signer: UrlSigner;
  publicUrl: string;
}

/** my_homework: the student's homework in a space, recent first; with lesson — one homework whole. */
export function myHomeworkHandler(deps: Deps) {
  return endpoint(my_homework, async (args, ctx) => {
    const who = caller(ctx);
    if (args.lesson !== undefined) {
      const at = await deps.gateway.lesson(who, args.lesson, args.space);
      if ('ok' in at) return at;
      const row = await deps.submissions.find(who.user, at.id, at.access.space);
      const task = homeworkTask(at.lesson);
      const items = row ? await listItems(deps, [row]) : [];
      return ok({
        space: at.access.space,
        items,
        ...(task ? { homework: task } : {}),
        submission: row ? await submissionView(deps.submissions, deps.signer, row) : null,
      });
    }
    let space: string;
    if (args.course !== undefined) {
      const access = await deps.gateway.access(who, args.course, args.space);
      if ('ok' in access) return access;
      space = access.space;
    } else {
      // Without a course, the space is checked against the student's spaces (space_not_available, organization_suspended).
      const reply = await deps.bus.request(myEnrollments, who, { user: who.user, space: args.space ?? null });
      if (!reply.ok) return reply;
      space = reply.data.space;
    }
    const rows = await deps.submissions.listForUser(who.user, space, args.course ?? null);
    return ok({ space, items: await listItems(deps, rows) });
  });
}

/** The list items of submissions, with course and lesson titles from each course's active release. */
export async function listItems(deps: Pick<Deps, 'gateway' | 'publicUrl'>, rows: SubmissionRow[]) {
  const items = [];
  for (const row of rows) {
    const release = await deps.gateway.release(row.course);
    const content = 'ok' in release ? null : release.content;
    const lesson = content ? findLesson(content, parseLessonId(row.lesson)?.key ?? row.lesson_key) : undefined;
    items.push({
      submission: row.id,
      course: row.course,
      course_title: content?.course.title ?? row.course,
      lesson: row.lesson,
      lesson_title: lesson?.title ?? row.lesson_key,
      lesson_url: lessonUrl(deps.publicUrl, row.lesson),
      title: lesson ? (homeworkTask(lesson)?.title ?? lesson.title) : row.lesson_key,
      status: row.status,
      due_at: row.due_at,
      overdue: isOverdue(row.status, row.due_at),
      version: row.version,
      last_comment: row.last_comment,
    });
  }
  return items;
}
