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
    'Заводит курс до первого релиза — черновиком без уроков, чтобы показать его анонсом (announce_course); ученикам он пока не виден. ' +
    'Курс из релиза этим инструментом не заводят: его заводит первая публикация релиза, и если анонс уже есть, релиз привязывают к нему. ' +
    'title — название, summary — текст карточки в каталоге, description — полное описание (без него берётся summary). ' +
    'Кто завёл курс, становится его инструктором. В ответе course, title и published. Своих отказов нет.',
  input: z.object({
    title: z.string().trim().min(1).max(INPUT_LIMITS.title).describe('Название курса. Обязательный.'),
    summary: z
      .string()
      .trim()
      .min(1)
      .max(INPUT_LIMITS.summary)
      .describe('Короткий текст для карточки в каталоге. Обязательный.'),
    description: z
      .string()
      .max(INPUT_LIMITS.long)
      .optional()
      .describe('Полное описание на странице курса. Необязательный; без него берётся summary.'),
  }),
  output: z.looseObject({
    course: z.string(),
    title: z.string(),
    published: z.boolean(),
  }),
  annotations: WRITE,
  refusals: [],
});
