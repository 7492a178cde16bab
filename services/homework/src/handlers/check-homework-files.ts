import { checkHomeworkFiles, LIMITS, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { type CourseGateway, caller } from '../courses.ts';
import { checkLimits, checkQuota, fileRejected, sniffType, withCleanNames } from '../domain/files.ts';
import { acceptedLocked, answerMode, answerTooLarge, invalidFiles, noHomework, tooManyFiles } from '../refusals.ts';
import type { SubmissionRepository } from '../repositories/submission.repository.ts';
import { ANSWER_LIMIT } from '../views.ts';

/** A file offered for storing: its name, size and first bytes (base64). */
export interface Offer {
  name: string;
  size: number;
  head: string;
}

/**
 * The checks of offered files that need no stored byte: count with the answer's files, sizes,
 * types by content, and the student's quota. Run before the edge stores anything, and again on the
 * locked row when the files are kept.
 */
export function offerRefusal(offers: Offer[], existing: number, usedBytes: number) {
  const sizes = offers.map((f) => ({ name: f.name, size: f.size }));
  const limits = checkLimits(sizes, existing);
  if (limits) return limits;
  for (const f of offers) if (!sniffType(f.name, Buffer.from(f.head, 'base64'))) return fileRejected(f.name);
  return checkQuota(usedBytes, sizes);
}

/**
 * The checks of a text handed in with files (store_homework_file's answer, `length` characters
 * trimmed): the homework takes text, and it is within its limit — as submit_homework checks it.
 */
export function answerRefusal(mode: string, length: number) {
  if (mode === 'files') return answerMode('files');
  if (length > ANSWER_LIMIT) return answerTooLarge({ text: length, limit: ANSWER_LIMIT });
  return null;
}

/** check_homework_files: the edge asks before it stores the bytes of store_homework_file. */
export function checkHomeworkFilesHandler(deps: { gateway: CourseGateway; submissions: SubmissionRepository }) {
  return endpoint(checkHomeworkFiles, async (args, ctx) => {
    const who = caller(ctx);
    if (args.files.some((f) => 'invalid' in f)) return invalidFiles();
    const at = await deps.gateway.lesson(who, args.lesson, args.space);
    if ('ok' in at) return at;
    const hw = at.lesson.homework;
    if (!hw) return noHomework(args.lesson);
    if (hw.answer_mode === 'text') return answerMode('text');
    const text = args.answer_length === undefined ? null : answerRefusal(hw.answer_mode, args.answer_length);
    if (text) return text;
    const row = await deps.submissions.find(who.user, at.id, at.access.space);
    if (row?.status === 'Accepted') return acceptedLocked(at.id);
    const existing = row?.version ? ((await deps.submissions.versions(row.id)).at(-1)?.files.length ?? 0) : 0;
    if (existing + args.offered > LIMITS.homeworkFiles) return tooManyFiles(existing, args.offered);
    const offers = withCleanNames(args.files.filter((f): f is Offer => 'name' in f));
    if (!offers) return invalidFiles();
    const refused = offerRefusal(offers, existing, await deps.submissions.storedBytes(who.user));
    return refused ?? ok({});
  });
}
