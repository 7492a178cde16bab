import { z } from 'zod';
import { DESTRUCTIVE, defineTool } from '../../tool.ts';

/** forget: deletes a note about the student by key. */
export const forget = defineTool({
  name: 'forget',
  surface: 'student',
  service: 'knowledge',
  title: 'Забыть заметку',
  description:
    'Удаляет заметку об ученике по ключу key — когда ученик просит забыть то, что перестало быть правдой. ' +
    'Факт ищется без course; проект и наблюдение записаны при курсе, и для них нужен course. В ответе удалённый ключ. ' +
    'Отказ note_not_found — заметки нет: сверьте ключ и курс по my_notes.',
  input: z.object({
    key: z.string().describe('Ключ заметки, например role или pace. Обязательный.'),
    course: z
      .string()
      .optional()
      .describe(
        'Идентификатор курса — для проекта или наблюдения, записанных при курсе. Необязательный; без него ищется факт.',
      ),
  }),
  output: z.looseObject({
    key: z.string(),
    kind: z.string().optional(),
    course: z.string().nullable().optional(),
  }),
  annotations: DESTRUCTIVE,
  refusals: ['note_not_found'],
});
