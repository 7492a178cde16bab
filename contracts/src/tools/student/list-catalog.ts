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
    'Курсы, на которые ученик может записаться сам в пространстве, и анонсы. Уже начатые курсы сюда не попадают; сотруднику видны курсы, открытые его организациям. ' +
    'upcoming: true — анонс: записи нет, расскажите цели из objectives и предложите notify_when_released (notify — подписан ли уже); срок выхода не называйте — его нет. ' +
    'programs — программы (цепочки курсов) с курсом; курс с locked_by не предлагайте, а назовите тот, что пройти раньше: запись на запертый откажет program_order. ' +
    'Записывает enroll; пустой каталог — повод проверить whoami. Своих отказов нет.',
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
        ...ProgramFields,
      }),
    ),
  }),
  annotations: READ,
  refusals: [],
});
