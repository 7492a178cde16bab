import { z } from 'zod';
import { defineTool, READ } from '../../tool.ts';
import { HomeworkTask, ObjectiveStatus, ProgramFields } from '../shapes.ts';

/** course_outline: the course program — chapters, lessons, lesson objectives with statuses. */
export const course_outline = defineTool({
  name: 'course_outline',
  surface: 'student',
  service: 'lessons',
  title: 'Программа курса',
  description:
    'Программа курса course: главы с прогрессом, уроки (id, пройден ли, failed — попытки обязательного квиза кончились, текущий) с целями и их статусами, разделы документа, домашки; ' +
    'programs — цепочки курсов, locked_by — курс, который пройти раньше. ' +
    'Только отсюда берут id пройденного урока: start_lesson без lesson ведёт только вперёд. ' +
    'Отказы: not_enrolled, organization_suspended, course_not_released.',
  input: z.object({
    course: z.string(),
  }),
  output: z.looseObject({
    course: z.string(),
    title: z.string().optional(),
    chapters: z.array(
      z.looseObject({
        key: z.string().optional(),
        title: z.string(),
        description: z.string().nullable(),
        lessons_started: z.number().int(),
        lessons_completed: z.number().int(),
        lessons: z.array(
          z.looseObject({
            id: z.string(),
            key: z.string().nullable(),
            title: z.string(),
            hook: z.string().nullable(),
            completed: z.boolean(),
            failed: z.boolean(),
            current: z.boolean(),
            objectives: z.array(z.looseObject({ key: z.string(), text: z.string(), status: ObjectiveStatus })),
            blocks: z.array(z.looseObject({ artifact: z.string(), key: z.string(), title: z.string() })),
            homework: HomeworkTask.nullable(),
          }),
        ),
      }),
    ),
    ...ProgramFields,
  }),
  annotations: READ,
  refusals: ['not_enrolled', 'organization_suspended', 'course_not_released'],
});
