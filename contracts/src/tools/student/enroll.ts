import { z } from 'zod';
import { SpaceArg } from '../../common.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import { LessonRef } from '../shapes.ts';

/** enroll: enrolls the student in a catalog course. */
export const enroll = defineTool({
  name: 'enroll',
  surface: 'student',
  service: 'enrollment',
  title: 'Записаться на курс',
  description:
    'Записывает ученика на курс из каталога (course из list_catalog). В пространстве организации запись — её назначение по выбору ученика: ' +
    'курс идёт за её счёт и виден её руководителю в отчёте. ' +
    'В ответе курс, название и first_lesson — занятие можно начинать сразу через start_lesson, список курсов звать не нужно. ' +
    'Отказы: course_upcoming — курс анонсирован, вместо записи предложите notify_when_released; already_enrolled — курс уже в list_my_courses; ' +
    'course_not_published — черновик; course_not_allowed — курс не открыт организациям ученика; ' +
    'program_order — сначала пройти курс из previous (в отказе program, program_title, previous).',
  input: z.object({
    course: z.string().describe('Идентификатор курса из list_catalog. Обязательный.'),
    space: SpaceArg.optional(),
  }),
  output: z.looseObject({
    course: z.string(),
    title: z.string(),
    space: z.string().optional(),
    first_lesson: LessonRef.nullable(),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['course_not_published', 'course_upcoming', 'already_enrolled', 'course_not_allowed', 'program_order'],
});
