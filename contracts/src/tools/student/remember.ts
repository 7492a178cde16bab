import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import { ObjectiveProgress } from '../shapes.ts';

/** remember: records about the student what will help in later sessions. */
export const remember = defineTool({
  name: 'remember',
  surface: 'student',
  service: 'knowledge',
  title: 'Запомнить об ученике',
  description:
    'Записывает об ученике то, что пригодится на следующих занятиях. kind: fact — о человеке, живёт во всех курсах; ' +
    'project — на чём учится в этом курсе; observation — как учится; для project и observation нужен session — из него берётся курс. ' +
    'key — короткий повторяемый ключ: запись по существующему ключу замещает текст. Факты пишите под каноническими ключами профиля ' +
    '(role, industry, company, goal, current_task, background, tools, learning_style, time_budget — role, а не position), по курсу — под ключами рамки course_frame. ' +
    'В ответе ключ и вид, посреди занятия — objectives, статусы целей урока. ' +
    'Отказы: unknown_note_kind; note_key_required; note_text_required — пустой text; not_your_session — нет session или занятие чужое; note_limit_reached (limit) — пишите по существующим ключам.',
  input: z.object({
    kind: z
      .string()
      .describe(
        'Вид заметки. Обязательный: fact — о человеке (роль, отрасль, размер компании); project — на чём учится в этом курсе; observation — как учится.',
      ),
    key: z
      .string()
      .describe(
        'Короткий повторяемый ключ, например role, project или pace. Обязательный; по существующему ключу текст замещается.',
      ),
    text: z.string().max(INPUT_LIMITS.text).describe('Сама заметка. Обязательный.'),
    session: z
      .string()
      .optional()
      .describe('Идентификатор занятия. Обязателен для project и observation: из него берётся курс.'),
  }),
  output: z.looseObject({
    key: z.string(),
    kind: z.string(),
    objectives: z.array(ObjectiveProgress).optional().describe('Прогресс урока по целям — посреди занятия'),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['unknown_note_kind', 'note_key_required', 'note_text_required', 'not_your_session', 'note_limit_reached'],
});
