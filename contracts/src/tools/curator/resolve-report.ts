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
    'Ставит репорту report (из course_reports) статус status и отвечает ученику: in_progress — в работе, fixed — поправлено релизом, rejected — менять не будут, duplicate — дубль репорта duplicate_of того же курса. ' +
    'resolution ученик услышит от агента: что поменялось (урок и суть) или почему курс прежний, без оценок и имён; ' +
    'обязателен для fixed и rejected и перезаписывается каждым вызовом. Закрытый репорт можно только вернуть в in_progress. ' +
    'Отказы: report_not_found; unknown_report_status; invalid_report_transition; report_resolution_required; ' +
    'duplicate_of_required; invalid_duplicate_of.',
  input: z.object({
    report: ReportNumberArg,
    status: z.string(),
    resolution: z.string().max(INPUT_LIMITS.text).optional(),
    duplicate_of: ReportNumberArg.optional(),
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
