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
    'Что запомнено об ученике, когда он спрашивает вне занятия (на занятии заметки приходят в history ответа start_lesson): facts — о человеке; ' +
    'с course ещё observations, project и projects_elsewhere — проекты других курсов, пока у этого своего нет: спросите, берём ли тот же. ' +
    'Своих отказов нет.',
  input: z.object({
    course: z.string().optional(),
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
