import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE } from '../../tool.ts';
import { NoteState } from '../shapes.ts';

/** reply_note: replies in a note's thread without changing its status. */
export const reply_note = defineTool({
  name: 'reply_note',
  surface: 'curator',
  service: 'courses',
  title: 'Ответить в заметке',
  description:
    'Отвечает в нить заметки (note из course_notes), не меняя её статуса: уточнить, спросить, объяснить, почему правка сделана иначе. ' +
    'Ход переходит к куратору: в кабинете заметка встаёт в очередь «Агент спрашивает». В ответе note, status, waiting_on и reply_count — число ответов в нити. ' +
    'Отказы: note_not_found; invalid_note — пустой текст.',
  input: z.object({
    note: z.string().describe('Идентификатор заметки. Обязательный.'),
    text: z.string().max(INPUT_LIMITS.text).describe('Ответ. Обязательный.'),
  }),
  output: NoteState,
  annotations: WRITE,
  refusals: ['note_not_found', 'invalid_note'],
});
