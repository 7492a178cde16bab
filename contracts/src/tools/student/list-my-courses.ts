import { z } from 'zod';
import { SpaceArg, Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { LessonRef, ProgramFields } from '../shapes.ts';

/** list_my_courses: the student's courses with progress and deadlines. */
export const list_my_courses = defineTool({
  name: 'list_my_courses',
  surface: 'student',
  service: 'enrollment',
  title: 'Мои курсы',
  description:
    'Курсы ученика в пространстве (space) с прогрессом: название, организация, обязательность, дедлайн и просрочка, число уроков и пройденных, следующий урок. ' +
    'В личном пространстве — все курсы ученика, в организации — назначенные ею или взятые из её каталога; у самостоятельной записи поля назначения пустые. ' +
    'Курсы приостановленной организации не приходят, зачисление на них сохраняется. ' +
    'programs — программы (цепочки курсов): когда курс пройден, предложите следующий курс цепочки; locked_by — курс, который пройти раньше. ' +
    'Пустой список — проверьте whoami. Своих отказов нет.',
  input: z.object({
    space: SpaceArg.optional(),
  }),
  output: z.looseObject({
    space: z.string(),
    courses: z.array(
      z.looseObject({
        course: z.string(),
        title: z.string(),
        organization: z.string().nullable(),
        mandatory: z.boolean().nullable(),
        deadline: Timestamp.nullable(),
        overdue: z.boolean(),
        lessons_total: z.number().int(),
        lessons_completed: z.number().int(),
        next_lesson: LessonRef.nullable(),
        ...ProgramFields,
      }),
    ),
  }),
  annotations: READ,
  refusals: [],
});
