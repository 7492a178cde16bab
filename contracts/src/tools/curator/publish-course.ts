import { z } from 'zod';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';

/** publish_course: opens a released course to students. */
export const publish_course = defineTool({
  name: 'publish_course',
  surface: 'curator',
  service: 'courses',
  title: 'Открыть курс',
  description:
    'Открывает курс ученикам; открыть можно только курс с действующим релизом. Новый релиз уже открытого курса действует сразу — открывать заново не нужно. ' +
    'Анонс (announce_course) открывается для записи, и подписавшимся один раз уходит письмо — сколько, в notified. ' +
    'warnings — предупреждения проверок действующего релиза (пустой текст для ученика, вопрос без пояснения): перескажите их куратору. ' +
    'Отказы: course_not_released — сначала опубликуйте релиз конвейером; course_not_found.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
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
