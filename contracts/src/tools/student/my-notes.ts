import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';

/** One remembered note about the student. */
export const StudentNote = z.looseObject({
  key: z.string(),
  text: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** my_notes: shows the student what is remembered about them. */
export const my_notes = defineTool({
  name: 'my_notes',
  surface: 'student',
  service: 'knowledge',
  title: 'Что обо мне запомнено',
  description:
    'Показывает ученику, что о нём запомнено, когда он спрашивает вне занятия (на занятии заметки приходят в history ответа start_lesson). ' +
    'facts — о человеке; с course ещё observations — как учится, project — на чём учится в этом курсе — и projects_elsewhere — проекты других курсов, ' +
    'пока у этого своего нет: спросите, берём ли тот же. У записи ключ, текст и даты появления и обновления. Своих отказов нет.',
  input: z.object({
    course: z
      .string()
      .optional()
      .describe('Идентификатор курса. Необязательный; с ним к фактам добавляются проект и наблюдения этого курса.'),
  }),
  output: z.looseObject({
    facts: z.array(StudentNote),
    observations: z.array(StudentNote).optional(),
    project: z.array(StudentNote).optional(),
    projects_elsewhere: z
      .array(z.looseObject({ ...StudentNote.shape, course: z.string(), course_title: z.string() }))
      .optional(),
  }),
  annotations: READ,
  refusals: [],
});
