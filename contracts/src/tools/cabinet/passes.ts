import { z } from 'zod';
import { defineTool, READ } from '../../tool.ts';

/**
 * pass_counts: course-wide counts for the cabinet's passes page — per lesson, the live runs and
 * how many passed; per goal item, how many runs have it done. goal_runs pages through the runs
 * themselves (where each one stops, the evidence); these counts cover every run, not one page.
 */
export const pass_counts = defineTool({
  name: 'pass_counts',
  surface: 'cabinet',
  service: 'lessons',
  title: 'Сколько учеников дошли до пунктов',
  description:
    'По урокам курса: сколько учеников начали и прошли урок, и по каждому пункту — у скольких он засчитан. ' +
    'Видят кураторы курса и модераторы, остальным 403. Отказы: course_not_found; course_not_released.',
  input: z.object({ course: z.string(), lesson: z.string().max(128).optional() }),
  output: z.object({
    course: z.string(),
    lessons: z.array(
      z.object({
        key: z.string(),
        title: z.string(),
        runs: z.number().int(),
        passed: z.number().int(),
        goals: z.array(z.object({ key: z.string(), title: z.string(), done: z.number().int() })),
      }),
    ),
  }),
  annotations: READ,
  refusals: ['course_not_found', 'course_not_released'],
});
