import { z } from 'zod';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';

/** notify_when_released: subscribes the student to an email when an announced course opens (or unsubscribes). */
export const notify_when_released = defineTool({
  name: 'notify_when_released',
  surface: 'student',
  service: 'enrollment',
  title: 'Сообщить о выходе курса',
  description:
    'Подписывает на письмо о выходе анонса course (upcoming в list_catalog) — вместо записи; notify: false отписывает. ' +
    'Письмо уйдёт один раз, когда курс откроют. Отказ course_not_upcoming — курс не анонс: открыт (enroll), снят или его нет; ' +
    'отписаться можно от любого.',
  input: z.object({
    course: z.string(),
    notify: z.boolean().optional().describe('По умолчанию true.'),
  }),
  output: z.looseObject({
    course: z.string(),
    title: z.string(),
    notify: z.boolean(),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['course_not_upcoming'],
});
