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
    'Отчёт руководителя по обучению своей организации: строки «человек × курс» — имя и учётная запись, организация, статус, доля пройденного, дедлайн, ' +
    'обязательность, просрочка, последняя активность и document — сколько разделов в документах курса и сколько заполнил сотрудник. ' +
    'course и status (not_started, in_progress, completed) сужают отчёт; подробности по одному человеку — student_detail. ' +
    'summary — итоги по статусам, просрочке и не начатым обязательным курсам; строки идут страницами в постоянном порядке: ' +
    'если next_offset не null, следующую страницу даёт тот же вызов с offset = next_offset. ' +
    'Своих отказов нет: не-руководителю отчёт приходит пустым, потому что данные закрыты правами.',
  input: z.object({
    course: z.string().optional().describe('Идентификатор курса, чтобы сузить отчёт до одного курса. Необязательный.'),
    status: z
      .enum(ORG_REPORT_STATUSES)
      .optional()
      .describe('Статус прохождения: not_started, in_progress или completed. Необязательный.'),
    // Beyond the spec: paging, so a large organization never gives a reply the agent cannot read.
    limit: z
      .number()
      .int()
      .optional()
      .describe(
        `Сколько строк вернуть за раз (1–${ORG_REPORT_PAGE.max}, по умолчанию ${ORG_REPORT_PAGE.default}). Необязательный.`,
      ),
    offset: z
      .number()
      .int()
      .optional()
      .describe('С какой строки продолжить: next_offset из прошлого ответа. Необязательный.'),
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
