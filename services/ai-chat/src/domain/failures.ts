import type { ModelFailure } from '../model/model.ts';

/** Why an answer ended without being saved, as the `error` event tells the teacher. */
export type AnswerFailure = Exclude<ModelFailure, 'cancelled'> | 'no_model' | 'empty' | 'thread_deleted' | 'shutdown';

const SAVED = 'Ваше сообщение сохранено в треде';

/**
 * How the service is connected to a model; shown in the page's banner and in the `error` event
 * when no model is configured.
 */
export const HOW_TO_CONNECT =
  'Администратор платформы подключает модель переменными окружения сервиса ai-chat: AI_BASE_URL — адрес ' +
  'OpenAI-совместимого API (OpenAI, vLLM, Ollama — например http://127.0.0.1:11434/v1, LM Studio), ' +
  'AI_MODEL — имя модели, AI_API_KEY — ключ, если провайдер его требует; затем сервис перезапускают.';

/** The `error` event's text for each failure (Russian, for the teacher). */
export function failureText(failure: AnswerFailure): string {
  switch (failure) {
    case 'no_model':
      return `ИИ-модель не подключена, поэтому ассистент не может ответить. ${HOW_TO_CONNECT}`;
    case 'rate_limited':
      return `Модель сейчас перегружена запросами. ${SAVED} — отправьте вопрос ещё раз через минуту.`;
    case 'unavailable':
      return `Модель сейчас недоступна: провайдер ответил ошибкой. ${SAVED} — попробуйте ещё раз позже.`;
    case 'timeout':
      return `Модель не ответила вовремя. ${SAVED} — попробуйте ещё раз.`;
    case 'unauthorized':
      return 'Провайдер модели не принял ключ доступа: администратору нужно проверить AI_API_KEY сервиса ai-chat.';
    case 'rejected':
      return `Провайдер модели отклонил запрос (неизвестная модель или слишком длинный разговор). ${SAVED} — попробуйте начать новый тред.`;
    case 'unreachable':
      return `Не удалось связаться с моделью. ${SAVED} — попробуйте ещё раз позже.`;
    case 'broken':
      return `Связь с моделью оборвалась посреди ответа. ${SAVED} — отправьте вопрос ещё раз.`;
    case 'empty':
      return `Модель вернула пустой ответ. ${SAVED} — попробуйте переформулировать вопрос.`;
    case 'thread_deleted':
      return 'Тред удалён, пока ассистент отвечал: ответ не сохранён.';
    case 'shutdown':
      return `Сервис ИИ-чата перезапускается, ответ прерван. ${SAVED} — отправьте вопрос ещё раз.`;
    default: {
      const never: never = failure;
      return never;
    }
  }
}
