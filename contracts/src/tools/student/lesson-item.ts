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
    'Подробности одного пункта урока: что разобрать с учеником и как понять, что он это умеет. Берите, когда дошли до пункта; ' +
    'текст адресован агенту, ученику его не зачитывают. goal — ключ пункта из lesson_map ответа start_lesson, например term:T1. ' +
    'В ответе goal (ключ, вид, обязательный ли, название, статус), details и у открытого пункта next — разобрать его и отметить mark_goal. Инструмент только читает. ' +
    'Отказы: goal_unknown — пункта нет или он снят новым релизом, в отказе ключи пунктов урока; not_your_session; ' +
    'not_enrolled, organization_suspended — доступ отозван; course_not_released, lesson_not_in_release — отказы цепочки урока.',
  input: z.object({
    session: z.string().describe('Идентификатор занятия из ответа start_lesson. Обязательный.'),
    goal: z.string().describe('Ключ пункта из lesson_map, например term:T1. Обязательный.'),
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
