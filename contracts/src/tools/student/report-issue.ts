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
    'Сообщает авторам курса, что мешает учиться на уроке занятия; курс, урок и релиз сервер проставит сам. ' +
    'Жалобы ученика — сюда, а не в evidence mark_goal. ' +
    'Номер report назовите ученику: репорт виден в my_reports, ответ автора придёт в closed_reports ответа start_lesson. ' +
    'Отказы: unknown_report_kind; report_text_required; question_mismatch — вопрос не из квиза урока; not_your_session.',
  input: z.object({
    session: z.string().describe('id занятия.'),
    kind: z
      .string()
      .describe('stuck, misconception, material_issue, quiz_question_issue, directive_mismatch или out_of_scope.'),
    text: z.string().max(INPUT_LIMITS.long).describe('Что не так; режется по 2000 символов.'),
    question: z.string().optional().describe('id вопроса квиза урока, если репорт о нём.'),
    objective: z
      .string()
      .max(INPUT_LIMITS.summary)
      .optional()
      .describe('Цель урока из lesson_map; режется по 140 символов.'),
  }),
  output: z.looseObject({
    report: ReportNumber,
    kind: z.string(),
  }),
  annotations: WRITE,
  refusals: ['not_your_session', 'unknown_report_kind', 'report_text_required', 'question_mismatch'],
});
