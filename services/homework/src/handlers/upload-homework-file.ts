import { LIMITS, ok, upload_homework_file } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { type CourseGateway, caller } from '../courses.ts';
import { ACCEPTED_EXTENSIONS } from '../domain/files.ts';
import { acceptedLocked, answerMode, noHomework } from '../refusals.ts';
import type { SubmissionRepository } from '../repositories/submission.repository.ts';
import { lessonUrl } from '../views.ts';

/**
 * upload_homework_file: checks that files can be handed in for the lesson in the space and tells
 * the window what to show; the edge draws the window (MCP Apps) or the text with the lesson link.
 */
export function uploadHomeworkFileHandler(deps: {
  gateway: CourseGateway;
  submissions: SubmissionRepository;
  publicUrl: string;
}) {
  return endpoint(upload_homework_file, async (args, ctx) => {
    const who = caller(ctx);
    const at = await deps.gateway.lesson(who, args.lesson, args.space);
    if ('ok' in at) return at;
    const hw = at.lesson.homework;
    if (!hw) return noHomework(args.lesson);
    if (hw.answer_mode === 'text') return answerMode('text');
    const row = await deps.submissions.find(who.user, at.id, at.access.space);
    if (row?.status === 'Accepted') return acceptedLocked(at.id);
    return ok({
      lesson: at.id,
      space: at.access.space,
      lesson_url: lessonUrl(deps.publicUrl, at.id),
      title: at.lesson.title,
      limits: {
        files: LIMITS.homeworkFiles,
        file_bytes: LIMITS.homeworkFileBytes,
        batch_bytes: LIMITS.homeworkBatchBytes,
        accepted: ACCEPTED_EXTENSIONS,
      },
    });
  });
}
