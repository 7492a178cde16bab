import { z } from 'zod';
import { SpaceArg, Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { DocumentFill } from '../shapes.ts';

/** get_my_progress: the student's summary — courses, overdue, recent sessions. */
export const get_my_progress = defineTool({
  name: 'get_my_progress',
  surface: 'student',
  service: 'reporting',
  title: 'Мой прогресс',
  description:
    'Сводка ученика в пространстве: курсы, просрочки, доля пройденных уроков, documents — заполненность документов, последние занятия. ' +
    'Урок засчитывает квиз, а не документ: это разные числа. lessons_failed — уроки, которые уже не зачесть; finished — изучать больше нечего. Своих отказов нет.',
  input: z.object({
    space: SpaceArg.optional(),
  }),
  output: z.looseObject({
    space: z.string().optional(),
    courses_count: z.number().int(),
    overdue_count: z.number().int(),
    courses: z.array(
      z.looseObject({
        course: z.string(),
        title: z.string(),
        deadline: Timestamp.nullable(),
        overdue: z.boolean(),
        progress: z.number().describe('Доля пройденных уроков, от 0 до 1'),
        lessons_failed: z.number().int(),
        finished: z.boolean(),
        documents: z.array(z.looseObject({ artifact: z.string(), title: z.string(), ...DocumentFill.shape })),
      }),
    ),
    recent_sessions: z.array(
      z.looseObject({
        session: z.string(),
        course: z.string().optional(),
        lesson: z.string(),
        lesson_title: z.string().optional(),
        status: z.string().describe('Статус занятия: open, closed или abandoned'),
        started_at: Timestamp,
      }),
    ),
  }),
  annotations: READ,
  refusals: [],
});
