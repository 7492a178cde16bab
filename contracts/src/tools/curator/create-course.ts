import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE } from '../../tool.ts';

/** create_course: creates a course before its first release, for an announcement. */
export const create_course = defineTool({
  name: 'create_course',
  surface: 'curator',
  service: 'courses',
  title: 'Завести курс',
  description:
    'Заводит курс-черновик без уроков до первого релиза, чтобы показать его анонсом (announce_course): title — название, summary — текст карточки, description — полное описание (без него — summary). ' +
    'Курс из релиза заводит первая публикация релиза (и привязывается к анонсу, если он есть). ' +
    'Кто завёл курс — его инструктор. Своих отказов нет.',
  input: z.object({
    title: z.string().trim().min(1).max(INPUT_LIMITS.title),
    summary: z.string().trim().min(1).max(INPUT_LIMITS.summary),
    description: z.string().max(INPUT_LIMITS.long).optional(),
  }),
  output: z.looseObject({
    course: z.string(),
    title: z.string(),
    published: z.boolean(),
  }),
  annotations: WRITE,
  refusals: [],
});
