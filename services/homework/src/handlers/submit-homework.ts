import { refuse, submit_homework } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kysely } from 'kysely';
import { type CourseGateway, caller } from '../courses.ts';
import type { HomeworkDb } from '../db.ts';
import { noHomework } from '../refusals.ts';
import { saveVersion } from '../submit.ts';
import { ANSWER_LIMIT, type UrlSigner } from '../views.ts';

/** submit_homework: the text of the answer replaces the previous one whole; files stay as they were. */
export function submitHomeworkHandler(deps: { db: Kysely<HomeworkDb>; gateway: CourseGateway; signer: UrlSigner }) {
  return endpoint(submit_homework, async (args, ctx) => {
    const who = caller(ctx);
    const at = await deps.gateway.lesson(who.user, args.lesson, args.space);
    if ('ok' in at) return at;
    const hw = at.lesson.homework;
    if (!hw) return noHomework(args.lesson);
    if (hw.answer_mode === 'files') {
      return refuse('answer_mode', 'Это задание сдаётся только файлами: откройте окно upload_homework_file', {
        answer_mode: hw.answer_mode,
      });
    }
    const answer = args.answer.trim();
    if (answer.length > ANSWER_LIMIT) {
      return refuse(
        'answer_too_large',
        `Текст ответа длиннее ${ANSWER_LIMIT} знаков: сократите его или сдайте файлом`,
        {
          limit: ANSWER_LIMIT,
          length: answer.length,
        },
      );
    }
    return saveVersion(deps.db, deps.signer, at, who.user, {
      answer,
      check: async (_row, existingFiles) => {
        if (answer === '' && existingFiles === 0) {
          return refuse('empty_answer', 'В ответе нет ни текста, ни файлов: напишите ответ', { lesson: args.lesson });
        }
        return null;
      },
    });
  });
}
