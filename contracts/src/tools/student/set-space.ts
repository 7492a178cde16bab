import { z } from 'zod';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';

/** set_space: selects the space the student studies in (shared with the platform's web UI). */
export const set_space = defineTool({
  name: 'set_space',
  surface: 'student',
  service: 'enrollment',
  title: 'Выбрать пространство',
  description:
    'Выбирает пространство, в котором ученик учится: одну из его организаций (имя из whoami) или personal — личное. ' +
    'Выбор общий с интерфейсом платформы: после него списки курсов, каталог и документы относятся к этому пространству. ' +
    'Отказ space_not_available — такой организации у ученика нет или она приостановлена.',
  input: z.object({
    space: z.string().describe('Имя организации из whoami или personal. Обязательный.'),
  }),
  output: z.object({ current: z.string() }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['space_not_available'],
});
