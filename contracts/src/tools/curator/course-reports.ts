import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { ReportNumber, ReportStatus } from '../shapes.ts';

/** course_reports: what the students' agents report about the course. */
export const course_reports = defineTool({
  name: 'course_reports',
  surface: 'curator',
  service: 'courses',
  title: 'Репорты о курсе',
  description:
    'Репорты агентов учеников о курсе — пятьдесят свежих: id, kind, text, когда отправлен, release — действующий релиз на момент жалобы, lesson_key, ' +
    'objective и question_key, status, resolution и resolved_at. Кто пожаловался, не приходит. ' +
    'Фильтры: kind (stuck, misconception, material_issue, quiz_question_issue, directive_mismatch, out_of_scope); lesson — ключ урока, находятся и репорты снятого урока; ' +
    'status — open (new и in_progress), new, in_progress, fixed, rejected или duplicate. Закрывает репорт resolve_report. ' +
    'Отказы: course_not_found, unknown_report_kind, unknown_report_status.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    kind: z
      .string()
      .optional()
      .describe(
        'Вид репорта: stuck, misconception, material_issue, quiz_question_issue, directive_mismatch или out_of_scope. Необязательный.',
      ),
    lesson: z.string().optional().describe('Ключ урока. Необязательный.'),
    status: z
      .string()
      .optional()
      .describe(
        'open (новые и в работе), new, in_progress, fixed, rejected или duplicate. Необязательный; без него — все.',
      ),
  }),
  output: z.looseObject({
    reports: z.array(
      z.looseObject({
        id: ReportNumber,
        kind: z.string(),
        text: z.string(),
        created_at: Timestamp,
        release: z.string().nullable(),
        lesson_key: z.string().nullable(),
        objective: z.string().nullable().optional(),
        question_key: z.string().nullable().optional(),
        status: ReportStatus,
        resolution: z.string().nullable(),
        resolved_at: Timestamp.nullable(),
      }),
    ),
  }),
  annotations: READ,
  studentText: ['reports[]'],
  refusals: ['course_not_found', 'unknown_report_kind', 'unknown_report_status'],
});
