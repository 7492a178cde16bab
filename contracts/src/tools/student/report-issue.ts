import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE } from '../../tool.ts';
import { ReportNumber } from '../shapes.ts';

/** report_issue: tells course authors what prevents learning in this lesson. */
export const report_issue = defineTool({
  name: 'report_issue',
  surface: 'student',
  service: 'courses',
  title: 'Сообщить авторам курса',
  description:
    'Сообщает авторам курса, что мешает учиться на уроке занятия session: kind — stuck, misconception, material_issue, quiz_question_issue, ' +
    'directive_mismatch или out_of_scope; text — что не так (режется по 2000 символов). Курс, урок и релиз сервер проставит сам. ' +
    'question — id вопроса квиза этого урока, objective — цель из lesson_map, если репорт о них. Жалобы ученика — сюда, а не в evidence mark_goal. ' +
    'Номер report назовите ученику: по нему репорт виден в my_reports, а ответ автора придёт в closed_reports ответа start_lesson. ' +
    'Отказы: unknown_report_kind (kind); report_text_required; question_mismatch (question) — вопрос не из квиза урока; not_your_session.',
  input: z.object({
    session: z.string().describe('Идентификатор занятия. Обязательный.'),
    kind: z
      .string()
      .describe(
        'Вид репорта. Обязательный: stuck, misconception, material_issue, quiz_question_issue, directive_mismatch или out_of_scope.',
      ),
    text: z.string().max(INPUT_LIMITS.long).describe('Что не так. Обязательный; режется по 2000 символов.'),
    question: z
      .string()
      .optional()
      .describe('id вопроса квиза этого урока из request_quiz, если репорт о вопросе. Необязательный.'),
    objective: z
      .string()
      .max(INPUT_LIMITS.summary)
      .optional()
      .describe('Цель урока из lesson_map. Необязательный; режется по 140 символов.'),
  }),
  output: z.looseObject({
    report: ReportNumber,
    kind: z.string(),
  }),
  annotations: WRITE,
  refusals: ['not_your_session', 'unknown_report_kind', 'report_text_required', 'question_mismatch'],
});
