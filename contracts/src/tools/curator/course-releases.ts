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
    'История релизов курса, свежие сверху: release, version, published_at, published_by, digest — отпечаток файла релиза (тот же файл — тот же отпечаток), ' +
    'commit — коммит course-design, из которого версия впервые опубликована (null — без коммита), document_key и active — действует ли. ' +
    'Содержимое хранится только у действующей версии (course_release); прежнюю смотрят в git course-design по commit, а версию без коммита сверяют с кандидатом по digest. ' +
    'У курса без релиза список пуст. Отказ course_not_found.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
  }),
  output: z.looseObject({
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
