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
    'Записывает ученика на курс course из list_catalog; в организации курс идёт за её счёт и виден руководителю. ' +
    'first_lesson в ответе — можно сразу start_lesson. Отказы: course_upcoming — предложите notify_when_released; ' +
    'already_enrolled; course_not_published; course_not_allowed — не открыт организациям ученика; ' +
    'program_order — сначала курс из previous.',
  input: z.object({
    course: z.string(),
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
