import { z } from 'zod';
import { defineTool, READ } from '../../tool.ts';
import { StudentReportView } from '../shapes.ts';

/** my_reports: the student's reports to course authors and what became of them. */
export const my_reports = defineTool({
  name: 'my_reports',
  surface: 'student',
  service: 'courses',
  title: 'Мои репорты',
  description:
    'Репорты, которые агент отправил авторам курса с занятий ученика, свежие сверху; без course — по всем курсам. ' +
    'status: new, in_progress, fixed — курс поправили, rejected — менять не будут, duplicate — правят по другому репорту. ' +
    'Ответ автора (resolution) пересказывайте близко к тексту. Своих отказов нет.',
  input: z.object({
    course: z.string().optional(),
  }),
  output: z.looseObject({
    reports: z.array(StudentReportView),
  }),
  annotations: READ,
  refusals: [],
});
