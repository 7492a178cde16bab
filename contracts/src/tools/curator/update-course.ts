import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';

/** update_course: edits the card of a course before its first release (an announcement). */
export const update_course = defineTool({
  name: 'update_course',
  surface: 'curator',
  service: 'courses',
  title: 'Поправить карточку курса',
  description:
    'Правит карточку курса до первого релиза (анонса): title, summary, description и promise — обещание, что человек получит к концу курса, ' +
    'так, чтобы в конце это можно было проверить; агент ученика произносит его на первом занятии. Непереданное поле остаётся прежним. ' +
    'Карточку курса из релиза пишет релиз. В ответе course, title, summary и promise. ' +
    'Отказы: course_from_release — поправьте карту курса и выпустите релиз; course_has_content — у курса есть уроки; course_not_found.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    title: z.string().trim().min(1).max(INPUT_LIMITS.title).optional().describe('Новое название. Необязательный.'),
    summary: z
      .string()
      .trim()
      .min(1)
      .max(INPUT_LIMITS.summary)
      .optional()
      .describe('Новый текст для карточки в каталоге. Необязательный.'),
    description: z.string().max(INPUT_LIMITS.long).optional().describe('Новое полное описание. Необязательный.'),
    promise: z
      .string()
      .max(INPUT_LIMITS.summary)
      .optional()
      .describe('Обещание курса: что человек получит к концу, так, чтобы это можно было проверить. Необязательный.'),
  }),
  output: z.looseObject({
    course: z.string(),
    title: z.string(),
    summary: z.string(),
    promise: z.string().nullable(),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['course_not_found', 'course_from_release', 'course_has_content'],
});
