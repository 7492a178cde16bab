import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { DocumentFill, ORG_REPORT_PAGE, ORG_REPORT_STATUSES } from '../shapes.ts';

/** org_report: a manager's report on their organization's learning. */
export const org_report = defineTool({
  name: 'org_report',
  surface: 'student',
  service: 'reporting',
  title: 'Отчёт по организации',
  description:
    'Отчёт руководителя по своей организации: строки «человек × курс» — статус, доля пройденного, дедлайн, просрочка, активность, document — заполненность документа; ' +
    'summary — итоги. course и status сужают отчёт; по человеку — student_detail. ' +
    'next_offset не null — передайте его в offset. Своих отказов нет: не-руководителю отчёт пуст.',
  input: z.object({
    course: z.string().optional(),
    status: z.enum(ORG_REPORT_STATUSES).optional(),
    // Beyond the spec: paging, so a large organization never gives a reply the agent cannot read.
    limit: z
      .number()
      .int()
      .optional()
      .describe(`Строк за раз: 1–${ORG_REPORT_PAGE.max}, по умолчанию ${ORG_REPORT_PAGE.default}.`),
    offset: z.number().int().optional(),
  }),
  output: z.looseObject({
    organizations: z
      .array(z.looseObject({ organization: z.string(), title: z.string(), suspended: z.boolean() }))
      .optional()
      .describe('Организации, которыми руководит вызывающий'),
    summary: z
      .looseObject({
        rows: z.number().int(),
        people: z.number().int(),
        not_started: z.number().int(),
        in_progress: z.number().int(),
        completed: z.number().int(),
        overdue: z.number().int(),
        mandatory_not_started: z.number().int(),
      })
      .optional()
      .describe('Итоги по всем строкам отчёта (с учётом course, без учёта status и страниц)'),
    total: z.number().int().optional().describe('Сколько строк подходит под фильтры'),
    offset: z.number().int().optional(),
    next_offset: z.number().int().nullable().optional().describe('Откуда продолжить; null — строк больше нет'),
    rows: z.array(
      z.looseObject({
        user: z.string(),
        full_name: z.string(),
        organization: z.string(),
        course: z.string(),
        course_title: z.string(),
        status: z.enum(ORG_REPORT_STATUSES),
        progress: z.number().describe('Доля пройденного, от 0 до 1'),
        deadline: Timestamp.nullable(),
        mandatory: z.boolean(),
        overdue: z.boolean(),
        last_activity: Timestamp.nullable(),
        document: DocumentFill,
      }),
    ),
  }),
  annotations: READ,
  refusals: [],
});
