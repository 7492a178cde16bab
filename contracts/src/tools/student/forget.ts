import { z } from 'zod';
import { DESTRUCTIVE, defineTool } from '../../tool.ts';

/** forget: deletes a note about the student by key. */
export const forget = defineTool({
  name: 'forget',
  surface: 'student',
  service: 'knowledge',
  title: 'Забыть заметку',
  description:
    'Удаляет заметку об ученике по ключу key, когда ученик просит забыть. Факт ищется без course; ' +
    'проект и наблюдение записаны при курсе — передайте course. Отказ note_not_found — сверьте ключ и курс по my_notes.',
  input: z.object({
    key: z.string().describe('Ключ заметки, например role или pace.'),
    course: z.string().optional(),
  }),
  output: z.looseObject({
    key: z.string(),
    kind: z.string().optional(),
    course: z.string().nullable().optional(),
  }),
  annotations: DESTRUCTIVE,
  refusals: ['note_not_found'],
});
