import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';

/** announce_course: shows a course in the catalog as an announcement, before release. */
export const announce_course = defineTool({
  name: 'announce_course',
  surface: 'curator',
  service: 'courses',
  title: 'Анонсировать курс',
  description:
    'Показывает курс course в каталоге анонсом до выхода: записи нет, можно подписаться на письмо о выходе. ' +
    'Курсу без релиза передайте objectives — цели списком (заменяют прежние; без них — заданные раньше); ' +
    'у курса из релиза цели — названия глав релиза, objectives не передаются. ' +
    'Открывает анонс publish_course, снимает — unpublish_course. Отказы: course_objectives_missing; course_from_release; ' +
    'course_has_content; course_already_published; course_not_found.',
  input: z.object({
    course: z.string(),
    objectives: z.array(z.string().max(INPUT_LIMITS.summary)).optional(),
  }),
  output: z.looseObject({
    course: z.string(),
    published: z.boolean(),
    upcoming: z.boolean(),
    objectives: z.array(z.string()),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: [
    'course_not_found',
    'course_objectives_missing',
    'course_from_release',
    'course_has_content',
    'course_already_published',
  ],
});
