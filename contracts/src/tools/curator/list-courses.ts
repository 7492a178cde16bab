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
    'Курсы платформы — черновики, анонсы и опубликованные, свежие сверху. ' +
    'С него начинается работа: id курса нужен остальным инструментам, между сессиями он не запоминается. ' +
    'published: true — только опубликованные, false — только черновики. ' +
    'release — версия действующего релиза (null — без релиза). Своих отказов нет.',
  input: z.object({
    published: z.boolean().optional(),
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
