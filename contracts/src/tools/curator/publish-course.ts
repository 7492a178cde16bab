import { z } from 'zod';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';

/** publish_course: opens a released course to students. */
export const publish_course = defineTool({
  name: 'publish_course',
  surface: 'curator',
  service: 'courses',
  title: 'Открыть курс',
  description:
    'Открывает ученикам курс course с действующим релизом; новый релиз открытого курса действует сразу. ' +
    'Анонс открывается для записи, подписчикам один раз уходит письмо (notified). ' +
    'warnings — предупреждения проверок релиза: перескажите их куратору. ' +
    'Отказы: course_not_released — сначала опубликуйте релиз конвейером; course_not_found.',
  input: z.object({
    course: z.string(),
  }),
  output: z.looseObject({
    course: z.string(),
    published: z.boolean(),
    warnings: z.array(z.string()),
    notified: z.number().int().optional().describe('Сколько писем о выходе ушло подписчикам анонса'),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['course_not_found', 'course_not_released'],
});
