import { z } from 'zod';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';

/** notify_when_released: subscribes the student to an email when an announced course opens (or unsubscribes). */
export const notify_when_released = defineTool({
  name: 'notify_when_released',
  surface: 'student',
  service: 'enrollment',
  title: 'Сообщить о выходе курса',
  description:
    'Подписывает ученика на письмо о выходе анонсированного курса (course с upcoming из list_catalog) или снимает подписку при notify: false. ' +
    'Это то, что можно сделать с анонсом вместо записи. В ответе курс, название и notify — подписан ли ученик теперь; ' +
    'повторный вызов ничего не меняет, письмо уходит на почту один раз, когда курс откроют. ' +
    'Отказ course_not_upcoming — курс не анонс: уже открыт (записывайте через enroll), снят или его нет. Отписаться можно от любого курса.',
  input: z.object({
    course: z.string().describe('Идентификатор анонса из list_catalog (у него upcoming). Обязательный.'),
    notify: z.boolean().optional().describe('false снимает подписку. Необязательный, по умолчанию true.'),
  }),
  output: z.looseObject({
    course: z.string(),
    title: z.string(),
    notify: z.boolean(),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['course_not_upcoming'],
});
