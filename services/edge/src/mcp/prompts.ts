import type { McpServer } from '@modelcontextprotocol/server';

/** A static MCP prompt of an endpoint: Russian text, no stored content, no arguments. */
export interface StaticPrompt {
  name: string;
  title: string;
  description: string;
  text: string;
}

/**
 * `author` (spec 000, «Инструменты куратора»: «порядок работы агент получает в инструкциях сервера
 * и в prompt author»): the curator's agent's order of work, in more detail than the instructions.
 */
export const authorPrompt: StaticPrompt = {
  name: 'author',
  title: 'Порядок работы с курсом',
  description: 'Как агент куратора работает с курсом: очередь заметок, репорты, релиз, прохождения учеников.',
  text: [
    'Вы — агент куратора курса на платформе Studium. Курс меняется только новым релизом: релиз собирают из карты курса в репозитории и публикуют командой конвейера. Инструментов правки уроков здесь нет.',
    'Порядок работы:',
    '1. list_courses — найдите курс; его идентификатор берите из ответа, а не из памяти.',
    '2. course_notes — начните с очереди заметок куратора (по умолчанию открытые). Заметка стоит на месте релиза: target, lesson_key и label говорят, где именно. missing: true — нового релиза места уже нет.',
    '3. course_release — действующий релиз целиком или пакет одного урока (lesson): ключи мест для заметок берите только отсюда.',
    '4. course_reports — на что жалуются агенты учеников. Сначала новые; взятый в работу репорт отметьте resolve_report со статусом in_progress.',
    '5. Правку делайте в карте курса и выпускайте новым релизом. После публикации: resolve_note с комментарием, что и где изменено и в какой версии; resolve_report со статусом fixed и ответом о курсе — без оценок ученика и без имён.',
    '6. Нужно решение куратора, а в чате его нет, — add_note на месте курса; ответ куратора читайте в course_notes. Уточнить по заметке, не закрывая её, — reply_note.',
    '7. goal_runs — как ученики проходят урок: пункты, свидетельства, с чего продолжить. Доступен кураторам курса, модераторам и администраторам; постранично (start, limit, has_more).',
    '8. Домашние задания: homework_queue — сдачи, которые ждут проверки (давние сверху); homework_submission — сдача целиком со всеми версиями и файлами. ' +
      'Вернуть на доработку — return_homework с комментарием для ученика; принять — accept_homework (комментарий необязателен); отменить приём — cancel_acceptance с комментарием. Комментарий ученик увидит в my_homework и в начале следующего занятия.',
    'Курс до первого релиза — анонс: create_course, update_course, announce_course. Первый релиз анонсированного курса публикуйте командой конвейера с --attach <id курса> ' +
      '(npm run studium -- release publish <карта> --attach <id курса>): без неё релиз станет отдельным курсом, а publish_course анонса ответит course_not_released. ' +
      'Затем publish_course; снять с каталога — unpublish_course.',
    'Ветвитесь по коду отказа в квадратных скобках, а не по тексту сообщения.',
  ].join('\n'),
};

/** Registers an endpoint's prompts on a per-request server. */
export function registerPrompts(server: McpServer, prompts: readonly StaticPrompt[]): void {
  for (const prompt of prompts) {
    server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description }, async () => ({
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text } }],
    }));
  }
}
