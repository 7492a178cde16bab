import { z } from 'zod';
import { DESTRUCTIVE, defineTool } from '../../tool.ts';

/** unpublish_course: removes a course (or an announcement) from the catalog. */
export const unpublish_course = defineTool({
  name: 'unpublish_course',
  surface: 'curator',
  service: 'courses',
  title: 'Снять курс с публикации',
  description:
    'Убирает курс course из каталога, и анонс тоже; прогресс учеников сохраняется. ' +
    'Удалить курс нельзя — его снимают с публикации. Отказ course_not_found.',
  input: z.object({
    course: z.string(),
  }),
  output: z.looseObject({
    course: z.string(),
    published: z.boolean(),
  }),
  annotations: DESTRUCTIVE,
  refusals: ['course_not_found'],
});
