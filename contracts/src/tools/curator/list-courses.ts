import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';

/** list_courses: the platform's courses, their keys and active releases. */
export const list_courses = defineTool({
  name: 'list_courses',
  surface: 'curator',
  service: 'courses',
  title: 'Курсы платформы',
  description:
    'Курсы платформы — черновики, анонсы и опубликованные, свежие сверху. С него начинается работа: идентификатор курса нужен всем остальным инструментам, а между сессиями он не запоминается. ' +
    'published: true сужает список до опубликованных, false — до черновиков. ' +
    'У курса course, title, summary, published, upcoming, course_key — ключ из релиза и release — версия и дата действующего релиза (у курса без релиза оба null), ' +
    'число уроков и когда курс правили. Своих отказов нет.',
  input: z.object({
    published: z
      .boolean()
      .optional()
      .describe('true — только опубликованные, false — только черновики. Необязательный; без него — все.'),
  }),
  output: z.looseObject({
    courses: z.array(
      z.looseObject({
        course: z.string(),
        title: z.string(),
        summary: z.string(),
        published: z.boolean(),
        upcoming: z.boolean(),
        course_key: z.string().nullable(),
        release: z
          .looseObject({ release: z.string().optional(), version: z.number().int(), published_at: Timestamp })
          .nullable(),
        lessons: z.number().int().describe('Число уроков'),
        modified_at: Timestamp,
      }),
    ),
  }),
  annotations: READ,
  refusals: [],
});
