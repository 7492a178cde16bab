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
    'Программа курса целиком: главы с описанием и прогрессом, уроки (id, ключ, название, зачин, пройден ли, текущий), ' +
    'цели уроков со статусами not_started, touched, covered, разделы документа и домашнее задание. ' +
    'Единственный способ узнать id уже пройденного урока, чтобы вернуться к нему через start_lesson с lesson: без аргумента start_lesson ведёт только вперёд. ' +
    'programs — программы (цепочки курсов) с курсом: место, предыдущий и следующий курс, участник ли ученик; locked_by — курс, который пройти раньше. ' +
    'Пунктов целей здесь нет; инструмент только читает. Отказы: not_enrolled, organization_suspended, course_not_released.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
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
