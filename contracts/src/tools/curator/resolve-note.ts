import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import { NoteState } from '../shapes.ts';

/** resolve_note: marks a note done and tells the curator what changed. */
export const resolve_note = defineTool({
  name: 'resolve_note',
  surface: 'curator',
  service: 'courses',
  title: 'Отметить заметку сделанной',
  description:
    'Отмечает заметку note сделанной, когда правка вышла новым релизом. ' +
    'comment уходит в нить: что, где и в какой версии изменено — чтобы куратор проверил, не перечитывая курс. ' +
    'Принимает или возвращает заметку куратор; возвращённая снова откроется в course_notes. Отказы: note_not_found; ' +
    'invalid_transition — заметка не открыта или comment пуст.',
  input: z.object({
    note: z.string(),
    comment: z.string().max(INPUT_LIMITS.text),
  }),
  output: NoteState,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['note_not_found', 'invalid_transition'],
});
