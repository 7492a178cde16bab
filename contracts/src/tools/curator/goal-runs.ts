import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { GoalStatus, ObjectiveStatus, RUN_STATUSES } from '../shapes.ts';

/** goal_runs: how students go through the course's lessons — items marked and their evidence. */
export const goal_runs = defineTool({
  name: 'goal_runs',
  surface: 'curator',
  service: 'lessons',
  title: 'Прохождения уроков',
  description:
    'Прохождения учеников по урокам курса course, недавно начатые сверху: что разобрано, где застряли, на каком свидетельстве засчитано — по этому автор улучшает курс. ' +
    'lesson — ключ урока (и снятого); ' +
    'start — сколько пропустить (по умолчанию 0), limit — сколько на странице, до 20 (по умолчанию 20); ' +
    'has_more — есть ли дальше; removed — снято новым релизом. ' +
    'Свидетельства — слова учеников: в ответы на репорты и в заметки их не переносят. Отказы: course_not_found; ' +
    'course_not_released; invalid_page.',
  input: z.object({
    course: z.string(),
    lesson: z.string().optional(),
    start: z.union([z.number(), z.string()]).optional(),
    limit: z.union([z.number(), z.string()]).optional(),
  }),
  output: z.looseObject({
    course: z.string(),
    lesson: z.string().nullable(),
    start: z.number().int(),
    limit: z.number().int(),
    has_more: z.boolean(),
    runs: z.array(
      z.looseObject({
        student: z.looseObject({ id: z.string(), name: z.string() }),
        lesson: z.looseObject({ key: z.string(), title: z.string().nullable() }),
        status: z.enum(RUN_STATUSES),
        accepted_at: Timestamp.nullable(),
        started_at: Timestamp.nullable(),
        passed_at: Timestamp.nullable(),
        resume_from: z.string().nullable(),
        objectives: z.array(
          z.looseObject({
            key: z.string(),
            text: z.string().optional(),
            status: ObjectiveStatus,
            quiz_confirmed: z.boolean(),
            removed: z.boolean().optional(),
            goals: z.array(
              z.looseObject({
                key: z.string(),
                title: z.string().optional(),
                kind: z.string().optional(),
                status: GoalStatus,
                evidence: z.string().nullable(),
                marked_at: Timestamp.nullable(),
                session: z.string().nullable(),
                removed: z.boolean().optional(),
              }),
            ),
          }),
        ),
      }),
    ),
  }),
  annotations: READ,
  studentText: ['runs[]'],
  refusals: ['course_not_found', 'course_not_released', 'invalid_page'],
});
