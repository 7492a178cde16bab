import { randomUUID } from 'node:crypto';
import {
  ok,
  refuse,
  TUTOR_MESSAGE_MAX,
  tutorListConversations,
  tutorMessages,
  tutorStartTurn,
} from '@studium/contracts';
import { type CallContext, endpoint, Failure } from '@studium/platform';
import type { ActiveAnswers } from '../active-answers.ts';
import { charCount, isUuid, threadTitle } from '../domain/text.ts';
import { tooManyAnswers } from '../refusals.ts';
import type { LessonTitles, TutorRepository } from './repository.ts';
import type { TutorRunner } from './runner.ts';

/** A lesson id (`course.lesson`) or a course id, as the page opens the chat. */
const LESSON = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}(\.[A-Za-z0-9][A-Za-z0-9_-]{0,99})?$/;

const conversationNotFound = (id: string) =>
  refuse('conversation_not_found', 'Разговора нет: возможно, он удалён или не ваш', { conversation_id: id });

function messageInvalid(reason: 'empty' | 'too_long' | 'no_lesson', length: number) {
  const text = {
    empty: 'Сообщение пустое: напишите репетитору',
    too_long: `Сообщение длиннее ${TUTOR_MESSAGE_MAX} символов (${length}): сократите его`,
    no_lesson: 'Новый разговор открывается для урока или курса: укажите lesson',
  }[reason];
  return refuse('message_invalid', text, { reason, length, limit: TUTOR_MESSAGE_MAX });
}

function student(ctx: CallContext): string {
  if (!ctx.principal) throw new Failure(401, 'no principal');
  return ctx.principal.user;
}

/** The tutor's operations: a turn, the conversations, a conversation's messages. */
export function tutorHandlers(
  repo: TutorRepository,
  active: ActiveAnswers,
  runner: TutorRunner,
  limit: number,
  modelConnected: boolean,
) {
  return [
    endpoint(tutorStartTurn, async ({ message, conversation_id, lesson, titles, inbox }, ctx) => {
      const user = student(ctx);
      const length = charCount(message);
      if (message.trim() === '') return messageInvalid('empty', length);
      if (length > TUTOR_MESSAGE_MAX) return messageInvalid('too_long', length);
      let target = lesson;
      let named: LessonTitles = { course: titles?.course || null, lesson: titles?.lesson || null };
      if (conversation_id !== null) {
        const conv = isUuid(conversation_id) ? await repo.conversation(user, conversation_id) : undefined;
        if (!conv) return conversationNotFound(conversation_id);
        target = conv.lesson;
        named = { course: conv.course_title, lesson: conv.lesson_title };
      }
      if (!target || !LESSON.test(target)) return messageInvalid('no_lesson', length);
      const turnId = randomUUID();
      if (!(await active.acquire(user, turnId))) return tooManyAnswers(limit);
      try {
        const id = await repo.addMessage(user, conversation_id, target, threadTitle(message), message, named);
        if (!id) {
          await active.release(user, turnId);
          return conversationNotFound(conversation_id ?? '');
        }
        const control = runner.start({ user, conversationId: id, lesson: target, titles: named, inbox, turnId });
        return ok({ conversation_id: id, control });
      } catch (err) {
        await active.release(user, turnId);
        throw err;
      }
    }),
    endpoint(tutorListConversations, async ({ page, page_size }, ctx) => {
      const { items, total } = await repo.conversations(student(ctx), page_size, (page - 1) * page_size);
      return ok({ items, page, page_size, total, model_connected: modelConnected });
    }),
    endpoint(tutorMessages, async ({ conversation_id, page, page_size }, ctx) => {
      const conv = isUuid(conversation_id) ? await repo.conversation(student(ctx), conversation_id) : undefined;
      if (!conv) return conversationNotFound(conversation_id);
      const { items, total } = await repo.messages(conversation_id, page_size, (page - 1) * page_size);
      return ok({ conversation: conv, items, page, page_size, total });
    }),
  ];
}
