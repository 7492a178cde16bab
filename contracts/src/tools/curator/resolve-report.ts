import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { Timestamp } from '../../common.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import { ReportNumber, ReportNumberArg, ReportStatus } from '../shapes.ts';

/** resolve_report: changes a report's status and answers the student what was done. */
export const resolve_report = defineTool({
  name: 'resolve_report',
  surface: 'curator',
  service: 'courses',
  title: 'Закрыть репорт',
  description:
    'Меняет статус репорта (report из course_reports) и отвечает ученику: status in_progress — взяли в работу, fixed — курс поправлен новым релизом, ' +
    'rejected — менять не будут, duplicate — о том же уже есть репорт (duplicate_of — его номер, того же курса). ' +
    'resolution ученик услышит от своего агента: что поменялось в курсе (урок и суть правки) или почему курс остаётся прежним, без оценок и имён; ' +
    'обязателен для fixed и rejected и перезаписывается каждым вызовом. Закрытый репорт можно только вернуть в in_progress. ' +
    'Отказы: report_not_found; unknown_report_status; invalid_report_transition (текущий статус и allowed); report_resolution_required; duplicate_of_required; invalid_duplicate_of.',
  input: z.object({
    report: ReportNumberArg.describe('Номер репорта из course_reports. Обязательный.'),
    status: z.string().describe('in_progress, fixed, rejected или duplicate. Обязательный.'),
    resolution: z
      .string()
      .max(INPUT_LIMITS.text)
      .optional()
      .describe('Ответ ученику: что сделано в курсе или почему он остаётся прежним. Обязателен для fixed и rejected.'),
    duplicate_of: ReportNumberArg.optional().describe(
      'Номер репорта того же курса, дублем которого признан этот. Обязателен для duplicate.',
    ),
  }),
  output: z.looseObject({
    report: ReportNumber,
    status: ReportStatus,
    resolution: z.string().nullable(),
    resolved_at: Timestamp.nullable(),
    duplicate_of: ReportNumber.nullable(),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: [
    'report_not_found',
    'unknown_report_status',
    'invalid_report_transition',
    'report_resolution_required',
    'duplicate_of_required',
    'invalid_duplicate_of',
  ],
});
