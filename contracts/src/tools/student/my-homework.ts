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
    'Домашние задания ученика в пространстве: items, недавние сверху, — курс и урок, lesson_url (где сдают в вебе), название, due_at, overdue, номер версии ответа, ' +
    'last_comment куратора и status: Assigned — выдано, не сдано; Submitted — ждёт куратора; Returned — вернули на доработку; Accepted — принято. ' +
    'Просрочка — признак, а не статус. С lesson приходит одна домашка целиком: homework (задание, режим ответа, правило срока) и submission ' +
    '(текущий ответ, файлы, журнал) — читайте её, прежде чем дополнить ответ через submit_homework. ' +
    'Отказы: not_enrolled, organization_suspended, space_not_available, course_not_in_space, lesson_not_found.',
  input: z.object({
    course: z.string().optional().describe('Идентификатор курса. Необязательный; без него — все курсы пространства.'),
    lesson: z
      .string()
      .optional()
      .describe('Идентификатор урока. Необязательный; с ним приходит одна домашка целиком, с текущим ответом.'),
    space: CourseSpaceArg.describe(
      'Пространство: имя организации из whoami или personal. Необязательный; без него с course или lesson — пространство начатого занятия по курсу, иначе выбранное учеником.',
    ).optional(),
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
