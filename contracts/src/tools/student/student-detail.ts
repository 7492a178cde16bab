import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { HomeworkStatus, ObjectiveStatus } from '../shapes.ts';

/** student_detail: details on one employee of the manager's organization. */
export const student_detail = defineTool({
  name: 'student_detail',
  surface: 'student',
  service: 'reporting',
  title: 'Подробности по сотруднику',
  description:
    'Подробности руководителю по сотруднику user своей организации: курсы с дедлайнами, занятия со статусами целей, попытки квизов с баллом, статусы домашек. ' +
    'Попытка Cancelled аннулирована новой версией курса: не в счёт, балл 0. Пунктов, свидетельств и разговоров нет. ' +
    'Отказ not_your_student — сотрудник не в ваших организациях.',
  input: z.object({
    user: z.string(),
  }),
  output: z.looseObject({
    user: z.string(),
    full_name: z.string(),
    courses: z.array(
      z.looseObject({
        course: z.string(),
        title: z.string(),
        organization: z.string(),
        deadline: Timestamp.nullable(),
        mandatory: z.boolean().optional(),
      }),
    ),
    sessions: z.array(
      z.looseObject({
        session: z.string(),
        course: z.string(),
        lesson: z.string(),
        lesson_title: z.string(),
        status: z.string(),
        started_at: Timestamp,
        objectives: z.array(z.looseObject({ objective: z.string(), status: ObjectiveStatus })),
      }),
    ),
    attempts: z.array(
      z.looseObject({
        attempt: z.string(),
        course: z.string().optional(),
        lesson: z.string(),
        lesson_title: z.string().optional(),
        number: z.number().int(),
        status: z.string().describe('Статус попытки; Cancelled — аннулирована новой версией курса'),
        score: z.number(),
        passed: z.boolean(),
        finished_at: Timestamp.nullable().optional(),
      }),
    ),
    homework: z
      .array(
        z.looseObject({
          course: z.string(),
          lesson: z.string(),
          lesson_title: z.string().optional(),
          organization: z.string(),
          status: HomeworkStatus,
          version: z.number().int().nullable(),
          due_at: Timestamp.nullable(),
        }),
      )
      .optional()
      .describe('Статусы домашних заданий в пространствах ваших организаций — без текста ответа и файлов'),
  }),
  annotations: READ,
  refusals: ['not_your_student'],
});
