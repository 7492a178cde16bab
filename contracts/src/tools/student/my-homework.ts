import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { CourseSpaceArg, HomeworkStatus, HomeworkTask, Submission } from '../shapes.ts';

/** my_homework: the student's homework — status, due date, curator comment. */
export const my_homework = defineTool({
  name: 'my_homework',
  surface: 'student',
  service: 'homework',
  title: 'Мои домашние задания',
  description:
    'Домашки ученика в пространстве, недавние сверху: урок, lesson_url, due_at, overdue, версия, last_comment куратора, status (Assigned — выдана, Submitted — ждёт куратора, Returned — на доработке, Accepted — принята). ' +
    'С lesson — одна домашка с заданием и текущим ответом: прочитайте её, прежде чем дополнять. ' +
    'Отказы: not_enrolled, organization_suspended, space_not_available, course_not_in_space, lesson_not_found.',
  input: z.object({
    course: z.string().optional().describe('Без него — все курсы пространства.'),
    lesson: z.string().optional(),
    space: CourseSpaceArg.optional(),
  }),
  output: z.looseObject({
    space: z.string(),
    items: z.array(
      z.looseObject({
        course: z.string(),
        course_title: z.string(),
        lesson: z.string(),
        lesson_title: z.string(),
        lesson_url: z.string(),
        title: z.string(),
        status: HomeworkStatus,
        due_at: Timestamp.nullable(),
        overdue: z.boolean(),
        version: z.number().int().nullable(),
        last_comment: z.string().nullable(),
      }),
    ),
    homework: HomeworkTask.optional().describe('Задание — только с lesson'),
    submission: Submission.nullable().optional().describe('Текущий ответ, файлы, журнал — только с lesson'),
  }),
  annotations: READ,
  refusals: [
    'not_enrolled',
    'organization_suspended',
    'space_not_available',
    'course_not_in_space',
    'lesson_not_found',
  ],
});
