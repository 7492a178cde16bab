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
    'Отмечает заметку сделанной, когда правка вышла новым релизом: куратор проверит её в действующем релизе. ' +
    'comment уходит в нить: что и где изменено и в какой версии — чтобы куратор проверил правку, не перечитывая курс. ' +
    'Принимает или возвращает заметку куратор; возвращённая снова откроется в course_notes с его ответом. В ответе note, status done, waiting_on: author и reply_count. ' +
    'Отказы: note_not_found; invalid_transition — заметка не открыта (уже сделана или принята) или comment пуст.',
  input: z.object({
    note: z.string().describe('Идентификатор заметки. Обязательный.'),
    comment: z
      .string()
      .max(INPUT_LIMITS.text)
      .describe('Что поменяли: что и где изменено и в какой версии. Обязательный.'),
  }),
  output: NoteState,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['note_not_found', 'invalid_transition'],
});
