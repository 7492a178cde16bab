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
    'Отмечает пункт урока сразу, как его разобрали: status done — ученик показал это на своей задаче, planned — запланировал применить, ' +
    'not_needed — необязательный пункт не понадобился, open — вернуть в работу (свидетельство стирается). ' +
    'evidence — что ученик сделал или сказал, до 500 знаков, без личных данных; нужен для всех статусов, кроме open; жалобы на урок — не сюда, а в report_issue. ' +
    'resume_from — одна фраза, с чего продолжить, если занятие прервётся. Повторная отметка заменяет прежнюю. ' +
    'В ответе objective (статус цели и её открытые обязательные пункты), lesson, next_step и next — следующий шаг: пункт, quiz (request_quiz), complete (complete_lesson) или null — урок пройден (или попытки обязательного квиза кончились, и урок больше не зачесть — что делать, скажет next). ' +
    'Отказы: goal_status_unknown, not_needed_required — передайте статус из allowed; evidence_required; evidence_too_long, resume_from_too_long (limit, length) — сократите; ' +
    'goal_unknown — ключ из lesson_map; goal_removed — пропустите пункт; session_closed — start_lesson; not_your_session; not_enrolled, organization_suspended; ' +
    'course_not_released, lesson_not_in_release, run_archived, busy — отказы цепочки урока.',
  input: z.object({
    session: z.string().describe('Идентификатор занятия. Обязательный.'),
    goal: z.string().describe('Ключ пункта из lesson_map ответа start_lesson. Обязательный.'),
    status: z
      .string()
      .describe(
        'Обязательный: done — ученик показал это на своей задаче; planned — запланировал применить; ' +
          'not_needed — необязательный пункт не понадобился; open — вернуть пункт в работу.',
      ),
    evidence: z
      .string()
      .max(INPUT_LIMITS.text)
      .optional()
      .describe(
        'Что именно ученик сделал или сказал, не длиннее 500 знаков, без личных данных. Нужен для всех статусов, кроме open; пустой не передаётся.',
      ),
    resume_from: z
      .string()
      .max(INPUT_LIMITS.text)
      .optional()
      .describe(
        'Одна фраза, с чего продолжить урок, если занятие прервётся, не длиннее 500 знаков. Необязательный; без него прежняя заметка остаётся.',
      ),
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
