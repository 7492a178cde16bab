import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { DocumentFill, ORG_REPORT_STATUSES } from '../shapes.ts';

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
    'Своих отказов нет: не-руководителю отчёт приходит пустым, потому что данные закрыты правами.',
  input: z.object({
    course: z.string().optional().describe('Идентификатор курса, чтобы сузить отчёт до одного курса. Необязательный.'),
    status: z
      .enum(ORG_REPORT_STATUSES)
      .optional()
      .describe('Статус прохождения: not_started, in_progress или completed. Необязательный.'),
  }),
  output: z.looseObject({
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
