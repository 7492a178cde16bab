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
    'Правит карточку курса course до первого релиза (анонса): title, summary, description и promise — что человек получит к концу, так, чтобы это можно было проверить (агент ученика произносит его на первом занятии). ' +
    'Непереданное поле остаётся прежним. Отказы: course_from_release — поправьте карту курса и выпустите релиз; ' +
    'course_has_content; course_not_found.',
  input: z.object({
    course: z.string(),
    title: z.string().trim().min(1).max(INPUT_LIMITS.title).optional(),
    summary: z.string().trim().min(1).max(INPUT_LIMITS.summary).optional(),
    description: z.string().max(INPUT_LIMITS.long).optional(),
    promise: z.string().max(INPUT_LIMITS.summary).optional(),
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
