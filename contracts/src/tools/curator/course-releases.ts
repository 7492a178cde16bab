import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';

/** course_releases: the course's release history. */
export const course_releases = defineTool({
  name: 'course_releases',
  surface: 'curator',
  service: 'courses',
  title: 'История релизов',
  description:
    'История релизов курса course, свежие сверху: версия, дата, автор, digest — отпечаток файла, commit в course-design, active — действует ли. ' +
    'Содержимое есть только у действующей (course_release); прежнюю смотрят в git по commit, без коммита — сверяют по digest. ' +
    'Отказ course_not_found.',
  input: z.object({
    course: z.string(),
  }),
  output: z.looseObject({
    title: z.string().optional(),
    releases: z.array(
      z.looseObject({
        release: z.string(),
        version: z.number().int(),
        published_at: Timestamp,
        published_by: z.string(),
        digest: z.string(),
        commit: z.string().nullable(),
        document_key: z.string().nullable(),
        active: z.boolean(),
      }),
    ),
  }),
  annotations: READ,
  refusals: ['course_not_found'],
});
