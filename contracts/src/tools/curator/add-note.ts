import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE } from '../../tool.ts';
import { CuratorNote } from '../shapes.ts';

/** add_note: asks the curator a question on a place of the course release. */
export const add_note = defineTool({
  name: 'add_note',
  surface: 'curator',
  service: 'courses',
  title: 'Спросить куратора',
  description:
    'Задаёт куратору вопрос на месте курса, когда для правки нужно его решение, а в чате его нет. ' +
    'target — ключ места в действующем релизе: course, chapter.<ключ>, lesson.<ключ>, goal.<урок>/<пункт> и другие (перечень — в course_notes, ключи — из course_release); quote — фрагмент, о котором вопрос. ' +
    'Вопрос встаёт в очередь «Агент спрашивает»; ответ куратора читайте в course_notes. В ответе note, target, release и version, lesson_key, label, missing: false, status open и waiting_on: author. ' +
    'Отказы: invalid_target — адрес не по форме (where); note_target_unknown — такого ключа в действующем релизе нет, возьмите его из course_release; ' +
    'course_not_released — ставить заметку не на что; course_not_found; invalid_note — пустой текст.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    target: z
      .string()
      .describe(
        'Ключ места в действующем релизе курса: course, chapter.<ключ>, lesson.<ключ>, goal.<урок>/<пункт> и другие. Обязательный.',
      ),
    text: z.string().max(INPUT_LIMITS.text).describe('Вопрос куратору. Обязательный.'),
    quote: z
      .string()
      .max(INPUT_LIMITS.summary)
      .optional()
      .describe('Фрагмент текста, о котором вопрос. Необязательный.'),
  }),
  output: CuratorNote,
  annotations: WRITE,
  refusals: ['course_not_found', 'course_not_released', 'invalid_target', 'note_target_unknown', 'invalid_note'],
});
