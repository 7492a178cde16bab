import { CHAT_MESSAGE_MAX, refuse } from '@studium/contracts';

/** thread_not_found (HTTP 404): no such thread, or someone else's — the two look the same. */
export function threadNotFound(threadId: string) {
  return refuse('thread_not_found', 'Треда нет: возможно, он удалён', { thread_id: threadId });
}

/** message_invalid (HTTP 422): empty, or longer than 8000 characters. */
export function messageInvalid(reason: 'empty' | 'too_long', length: number) {
  const message =
    reason === 'empty'
      ? 'Сообщение пустое: напишите вопрос ассистенту'
      : `Сообщение длиннее ${CHAT_MESSAGE_MAX} символов (${length}): сократите его или разбейте на несколько`;
  return refuse('message_invalid', message, { reason, length, limit: CHAT_MESSAGE_MAX });
}

/** chat_role_required (HTTP 403): the chat is for teachers and school administrators. */
export function chatRoleRequired() {
  return refuse('chat_role_required', 'ИИ-чат доступен учителям и администраторам школы');
}

/** too_many_answers (HTTP 429): the teacher already waits for as many answers as allowed. */
export function tooManyAnswers(limit: number) {
  return refuse(
    'too_many_answers',
    `Ассистент уже отвечает вам в ${limit} разговорах: дождитесь ответа или остановите один из них`,
    { limit },
  );
}
