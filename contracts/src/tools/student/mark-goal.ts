import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import { NextStep, ObjectiveStatus } from '../shapes.ts';

/** mark_goal: marks a lesson goal item as covered, with evidence. */
export const mark_goal = defineTool({
  name: 'mark_goal',
  surface: 'student',
  service: 'lessons',
  title: 'Отметить пункт урока',
  description:
    'Отмечает пункт урока, как только его разобрали; повторная отметка заменяет прежнюю. ' +
    'next_step в ответе: пункт, quiz (request_quiz), complete (complete_lesson) или null — урок пройден или попытки обязательного квиза кончились (см. ' +
    'next). Отказы: goal_status_unknown, not_needed_required — статус из allowed; evidence_required; ' +
    'evidence_too_long, resume_from_too_long — сократите; goal_unknown — ключ из lesson_map; goal_removed — пропустите пункт; ' +
    'session_closed — start_lesson; not_your_session; not_enrolled, organization_suspended; ' +
    'course_not_released, lesson_not_in_release, run_archived, busy.',
  input: z.object({
    session: z.string().describe('id занятия.'),
    goal: z.string().describe('Ключ пункта из lesson_map.'),
    status: z
      .string()
      .describe(
        'done — показал на своей задаче; planned — запланировал применить; not_needed — необязательный пункт не понадобился; open — вернуть в работу.',
      ),
    evidence: z
      .string()
      .max(INPUT_LIMITS.text)
      .optional()
      .describe(
        'Что ученик сделал или сказал, до 500 знаков, без личных данных; для всех статусов, кроме open. Жалобы — в report_issue.',
      ),
    resume_from: z
      .string()
      .max(INPUT_LIMITS.text)
      .optional()
      .describe('Одна фраза, с чего продолжить, если занятие прервётся; до 500 знаков; без неё — прежняя.'),
  }),
  output: z.looseObject({
    goal: z.string(),
    status: z.string(),
    objective: z.looseObject({
      key: z.string(),
      status: ObjectiveStatus,
      open: z
        .array(z.looseObject({ goal: z.string(), title: z.string() }))
        .describe('Обязательные пункты цели, которые ещё открыты'),
    }),
    lesson: z.string().describe('Статус урока'),
    next_step: NextStep,
    next: z.string(),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: [
    'not_your_session',
    'session_closed',
    'not_enrolled',
    'organization_suspended',
    'goal_unknown',
    'goal_removed',
    'goal_status_unknown',
    'not_needed_required',
    'evidence_required',
    'evidence_too_long',
    'resume_from_too_long',
    'course_not_released',
    'lesson_not_in_release',
    'run_archived',
    'busy',
  ],
});
