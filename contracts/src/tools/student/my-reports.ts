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
    'Репорты, которые агент отправил авторам курса с занятий ученика, свежие сверху: номер id, вид, урок, цель, текст, время отправки, ' +
    'status (new — автор не смотрел, in_progress — разбирается, fixed — курс поправили, rejected — менять не будут, duplicate — правят по другому репорту), ' +
    'ответ автора resolution и resolved_at. Ответ автора пересказывайте близко к тексту; у дубля без своего ответа приходит ответ на исходный репорт. ' +
    'Чужие репорты не приходят; course сужает список до одного курса. Своих отказов нет.',
  input: z.object({
    course: z.string().optional().describe('Идентификатор курса. Необязательный; без него — репорты по всем курсам.'),
  }),
  output: z.looseObject({
    reports: z.array(StudentReportView),
  }),
  annotations: READ,
  refusals: [],
});
