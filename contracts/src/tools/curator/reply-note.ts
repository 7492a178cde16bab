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
    'Отвечает text в нить заметки note (из course_notes), не меняя статуса: уточнить, спросить, объяснить. ' +
    'Ход переходит к куратору (очередь «Агент спрашивает»). Отказы: note_not_found; invalid_note — пустой текст.',
  input: z.object({
    note: z.string(),
    text: z.string().max(INPUT_LIMITS.text),
  }),
  output: NoteState,
  annotations: WRITE,
  refusals: ['note_not_found', 'invalid_note'],
});
