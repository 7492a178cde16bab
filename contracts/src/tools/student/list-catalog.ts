import { z } from 'zod';
import { SpaceArg } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { ProgramFields } from '../shapes.ts';

/** list_catalog: courses the student may enroll in, and announcements. */
export const list_catalog = defineTool({
  name: 'list_catalog',
  surface: 'student',
  service: 'enrollment',
  title: 'Каталог курсов',
  description:
    'Курсы, на которые ученик может записаться сам (enroll), и анонсы; начатых здесь нет. ' +
    'upcoming — анонс: расскажите objectives и предложите notify_when_released, срок выхода не называйте. ' +
    'Курс с locked_by не предлагайте — назовите тот, что пройти раньше. Пусто — проверьте whoami. Своих отказов нет.',
  input: z.object({
    space: SpaceArg.optional(),
  }),
  output: z.looseObject({
    space: z.string().optional(),
    courses: z.array(
      z.looseObject({
        course: z.string(),
        title: z.string(),
        summary: z.string(),
        upcoming: z.boolean(),
        objectives: z.array(z.string()).optional().describe('Цели курса — только у анонса'),
        notify: z.boolean().optional().describe('Подписан ли ученик на письмо о выходе — только у анонса'),
        testing: z.boolean().optional().describe('Курс ещё не открыт: ученик тестирует его по доступу автора'),
        ...ProgramFields,
      }),
    ),
  }),
  annotations: READ,
  refusals: [],
});
