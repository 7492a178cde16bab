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
    'Курсы ученика в пространстве: прогресс, дедлайны, следующий урок; ' +
    'в организации — назначенные ею или взятые из её каталога. Курсы приостановленной организации не приходят. ' +
    'lessons_failed — уроки, которые уже не зачесть; finished — изучать больше нечего. ' +
    'Курс пройден или finished — предложите следующий курс программы (programs); locked_by — что пройти раньше. Пусто — проверьте whoami. ' +
    'Своих отказов нет.',
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
        lessons_failed: z.number().int(),
        finished: z.boolean(),
        next_lesson: LessonRef.nullable(),
        testing: z.boolean().optional().describe('Курс ещё не открыт: ученик тестирует его по доступу автора'),
        ...ProgramFields,
      }),
    ),
  }),
  annotations: READ,
  refusals: [],
});
