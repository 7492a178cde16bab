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
    'Записывает об ученике то, что пригодится дальше; по существующему key текст замещается. ' +
    'Факты — под ключами профиля role, industry, company, goal, current_task, background, tools, learning_style, time_budget (role, а не position), по курсу — под ключами course_frame. ' +
    'Отказы: unknown_note_kind; note_key_required; note_text_required; not_your_session — нет session или занятие чужое; ' +
    'note_limit_reached — пишите по существующим ключам.',
  input: z.object({
    kind: z
      .string()
      .describe('fact — о человеке (во всех курсах), project — на чём учится в курсе, observation — как учится.'),
    key: z.string().describe('Короткий повторяемый ключ: role, project, pace…'),
    text: z.string().max(INPUT_LIMITS.text).describe('Текст заметки.'),
    session: z.string().optional().describe('id занятия; нужен для project и observation.'),
  }),
  output: z.looseObject({
    key: z.string(),
    kind: z.string(),
    objectives: z.array(ObjectiveProgress).optional().describe('Прогресс урока по целям — посреди занятия'),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['unknown_note_kind', 'note_key_required', 'note_text_required', 'not_your_session', 'note_limit_reached'],
});
