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
    'Задаёт куратору вопрос text на месте курса course, когда для правки нужно его решение. ' +
    'target — ключ места в действующем релизе: course, chapter.<ключ>, lesson.<ключ>, goal.<урок>/<пункт> и другие (перечень — в course_notes, ключи — из course_release); ' +
    'quote — фрагмент, о котором вопрос. Ответ куратора читайте в course_notes. Отказы: invalid_target — адрес не по форме; ' +
    'note_target_unknown — ключа нет в действующем релизе; course_not_released; course_not_found; invalid_note — пустой текст.',
  input: z.object({
    course: z.string(),
    target: z.string(),
    text: z.string().max(INPUT_LIMITS.text),
    quote: z.string().max(INPUT_LIMITS.summary).optional(),
  }),
  output: CuratorNote,
  annotations: WRITE,
  refusals: ['course_not_found', 'course_not_released', 'invalid_target', 'note_target_unknown', 'invalid_note'],
});
