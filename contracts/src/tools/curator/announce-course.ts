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
    'Показывает курс в каталоге анонсом до выхода: записаться нельзя, ученики могут подписаться на письмо о выходе; на странице курса видны только цели. ' +
    'Курсу без релиза передайте objectives — цели списком строк (новый список заменяет прежний, без него берутся заданные раньше); ' +
    'у курса из релиза цели анонса — названия глав действующего релиза, и objectives не передаются. ' +
    'В ответе published и upcoming (оба true) и objectives — ровно как их увидит каталог. Открывает анонс publish_course, снимает — unpublish_course. ' +
    'Отказы: course_objectives_missing; course_from_release; course_has_content; course_already_published; course_not_found.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    objectives: z
      .array(z.string().max(INPUT_LIMITS.summary))
      .optional()
      .describe('Цели курса списком строк, по цели на пункт. Только для курса без релиза; без них — заданные раньше.'),
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
