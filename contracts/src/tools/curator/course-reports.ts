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
    'Репорты агентов учеников о курсе course — пятьдесят свежих, без имён; release — действующий на момент жалобы. ' +
    'Фильтры: kind (stuck, misconception, material_issue, quiz_question_issue, directive_mismatch, out_of_scope), lesson — ключ урока (и снятого), status — open (new и in_progress), new, in_progress, fixed, rejected, duplicate. ' +
    'Закрывает репорт resolve_report. Отказы: course_not_found, unknown_report_kind, unknown_report_status.',
  input: z.object({
    course: z.string(),
    kind: z.string().optional(),
    lesson: z.string().optional(),
    status: z.string().optional(),
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
        lesson_title: z.string().nullable().optional(),
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
