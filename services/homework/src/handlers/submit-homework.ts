import { submit_homework } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import { type CourseGateway, caller } from '../courses.ts';
import type { HomeworkDb } from '../db.ts';
import { answerMode, answerTooLarge, emptyAnswer, noHomework } from '../refusals.ts';
import { saveVersion } from '../submit.ts';
import { ANSWER_LIMIT, type UrlSigner } from '../views.ts';

/** submit_homework: the text of the answer replaces the previous one whole; files stay as they were. */
export function submitHomeworkHandler(deps: { db: Kysely<HomeworkDb>; gateway: CourseGateway; signer: UrlSigner }) {
  return endpoint(submit_homework, async (args, ctx) => {
    const who = caller(ctx);
    const at = await deps.gateway.lesson(who, args.lesson, args.space);
    if ('ok' in at) return at;
    const hw = at.lesson.homework;
    if (!hw) return noHomework(args.lesson);
    if (hw.answer_mode === 'files') return answerMode('files');
    const answer = args.answer.trim();
    if (answer.length > ANSWER_LIMIT) return answerTooLarge({ text: answer.length, limit: ANSWER_LIMIT });
    return saveVersion(deps.db, deps.signer, at, who, {
      answer,
      check: async (_row, existingFiles) => {
        if (answer === '' && existingFiles === 0) return emptyAnswer(args.lesson);
        return null;
      },
    });
  });
}
