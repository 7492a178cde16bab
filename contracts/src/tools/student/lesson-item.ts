import { z } from 'zod';
import { defineTool, READ } from '../../tool.ts';
import { GoalStatus } from '../shapes.ts';

/** lesson_item: details of one lesson goal item, for the agent. */
export const lesson_item = defineTool({
  name: 'lesson_item',
  surface: 'student',
  service: 'lessons',
  title: 'Пункт урока',
  description:
    'Подробности пункта урока goal: что разобрать и как понять, что ученик это умеет. Берите, когда дошли до пункта; ' +
    'текст для агента, ученику не зачитывайте. Только читает. ' +
    'Отказы: goal_unknown — пункта нет или он снят релизом, в отказе ключи пунктов; not_your_session; ' +
    'not_enrolled, organization_suspended; course_not_released, lesson_not_in_release.',
  input: z.object({
    session: z.string().describe('id занятия из start_lesson.'),
    goal: z.string().describe('Ключ пункта из lesson_map, например term:T1.'),
  }),
  output: z.looseObject({
    goal: z.looseObject({
      key: z.string(),
      kind: z.string(),
      required: z.boolean(),
      title: z.string(),
      status: GoalStatus,
    }),
    details: z.string().describe('Подробности пункта из пакета урока, для агента'),
    next: z.string().optional().describe('Следующий шаг фразой для агента (у открытого пункта)'),
  }),
  annotations: READ,
  refusals: [
    'not_your_session',
    'goal_unknown',
    'not_enrolled',
    'organization_suspended',
    'course_not_released',
    'lesson_not_in_release',
  ],
});
