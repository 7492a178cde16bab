import { z } from 'zod';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';

/** set_space: selects the space the student studies in (shared with the platform's web UI). */
export const set_space = defineTool({
  name: 'set_space',
  surface: 'student',
  service: 'enrollment',
  title: 'Выбрать пространство',
  description:
    'Выбирает пространство, в котором ученик учится: организацию из whoami или personal. ' +
    'Выбор общий с сайтом платформы: списки курсов, каталог и документы потом относятся к нему. ' +
    'Отказ space_not_available — такой организации у ученика нет или она приостановлена.',
  input: z.object({
    space: z.string().describe('Организация из whoami или personal.'),
  }),
  output: z.object({ current: z.string() }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['space_not_available'],
});
